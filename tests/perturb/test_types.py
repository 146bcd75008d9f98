"""Each static type's exact behaviour on the Appendix C samples (multiple_110, apibank level1_101)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import BEYOND_TYPES, STATIC_TYPES, TRANSITION_TYPES, Sample, seeded_rng
from robustcall.perturb import REGISTRY, GuardStats, OfflineRewriter, PerturbContext, abbreviate
from robustcall.sources import load_source

MULTIPLE_110 = "bfcl_v3__BFCL_v3_multiple__multiple_110"
APIBANK_101 = "apibank__level1_101"


@pytest.fixture(scope="module")
def m110() -> Sample:
    return next(s for s in load_source("bfcl").samples if s.id == MULTIPLE_110)


@pytest.fixture(scope="module")
def a101(shared_data: Path) -> Sample:
    return next(s for s in load_source("apibank", shared_data).samples if s.id == APIBANK_101)


def _apply(code: str, sample: Sample, seed: int = 0) -> Sample | None:
    ctx = PerturbContext(seeded_rng(seed, sample.id, code), OfflineRewriter(), GuardStats(), code)
    return REGISTRY[code].apply(sample, ctx)


def test_registry_covers_all_22_types_with_paper_names() -> None:
    assert set(REGISTRY) == set(STATIC_TYPES) | set(TRANSITION_TYPES) | set(BEYOND_TYPES)
    assert not set(STATIC_TYPES) & set(BEYOND_TYPES)  # the default build stays the paper's 16 + 6
    assert REGISTRY["same_name_C"].display == "Dup-WrongP"
    assert REGISTRY["CD_AB"].component == "reward"
    assert not REGISTRY["transient_timeout"].static


def test_abbreviation_matches_case_2_and_appendix_c() -> None:
    assert abbreviate("mutation_type.find") == "mut_type.find"
    assert abbreviate("country_info.capital") == "cou_info.cap"
    # every word at every boundary: camelCase, capitals, digits, '-' (API-Bank / ToolAlpaca names)
    assert abbreviate("QueryBalance") == "QueBal" and abbreviate("getExchangeRates") == "getExcRat"
    assert abbreviate("HTTPRequest") == "HTTPReq" and abbreviate("calc-Distance3D") == "calc-Dis3D"
    assert abbreviate("math.gcd") == "mat.gcd" and abbreviate("find") == "fin" and abbreviate("a_b") is None


def test_typos_keep_the_snp_id_and_change_the_query(m110: Sample) -> None:
    out = _apply("realistic_typos", m110)
    assert out is not None and out.id == f"{MULTIPLE_110}__realistic_typos"
    q = out.conversation[-1].content
    assert q != m110.conversation[-1].content and "rs6034464" in q
    assert out.tools == m110.tools and out.golden_answers == m110.golden_answers
    assert out.perturbation.mdp_category == "observation"


def test_paraphrases_keep_golden_values(m110: Sample) -> None:
    out = _apply("query_paraphrase", m110)
    assert out is not None and "rs6034464" in out.conversation[-1].content
    tp = _apply("paraphrase_tool_description", m110)
    assert tp is not None and [t.name for t in tp.tools] == [t.name for t in m110.tools]
    assert any(a.description != b.description for a, b in zip(tp.tools, m110.tools, strict=True))


@pytest.mark.parametrize(
    ("code", "has_desc", "has_params"),
    [("same_name_A", False, False), ("same_name_B", True, False), ("same_name_D", True, True)],
)
def test_same_name_distractor_sits_after_the_gt(a101: Sample, code: str, has_desc: bool, has_params: bool) -> None:
    out = _apply(code, a101)
    assert out is not None
    names = [t.name for t in out.tools]
    assert names == ["ModifyAlarm", "GetUserToken", "AddAgenda", "AddAgenda", "**Think"]
    dup = out.tools[3]
    assert (dup.description == a101.tools[2].description) is has_desc
    assert bool(dup.properties()) is has_params
    if has_params:
        assert not set(dup.properties()) & set(a101.tools[2].properties())
    assert out.golden_answers == a101.golden_answers


@pytest.mark.parametrize("code", ["same_name_A", "same_name_C"])
def test_a_multi_call_sample_gets_one_decoy_per_golden_call(code: str) -> None:
    """As the release's multi-call records: 2-4 decoys sharing the golden tools' names, all listed."""
    sample = next(s for s in load_source("bfcl").samples if s.id.endswith("parallel_multiple_0"))
    gold = [g.name for g in sample.golden_answers]
    out = _apply(code, sample)
    assert out is not None and len(gold) >= 2
    meta = out.perturbation.metadata
    assert sorted(meta["distractor"]) == sorted(gold) and len(meta["position"]) == len(gold)
    assert [out.tools[i].name for i in meta["position"]] == meta["distractor"]
    rest = [t for i, t in enumerate(out.tools) if i not in meta["position"]]
    assert rest == sample.tools  # the original tools, in their order
    if code == "same_name_A":  # each right after its GT tool
        assert all(out.tools[i - 1].name == out.tools[i].name for i in meta["position"])


def test_same_name_E_takes_another_tools_description(a101: Sample) -> None:
    out = _apply("same_name_E", a101)
    assert out is not None and out.tools[3].name == "AddAgenda"
    assert out.tools[3].description == a101.tools[0].description


def test_same_name_C_has_no_description_and_wrong_params(a101: Sample) -> None:
    out = _apply("same_name_C", a101)
    assert out is not None
    dups = [t for t in out.tools if t.name == "AddAgenda" and not t.description]
    assert len(dups) == 1 and dups[0].properties()
    assert out.perturbation.metadata["position"] != 3


def test_redundant_appends_siblings(m110: Sample) -> None:
    out = _apply("redundant", m110)
    assert out is not None
    assert [t.name for t in out.tools[:2]] == ["get_collectables_in_season", "mutation_type.find"]
    added = out.perturbation.metadata["added_tools"]
    assert len(added) == 4 and not set(added) & {t.name for t in m110.tools}


@pytest.mark.parametrize(("code", "suffix", "request_words"), [("CD", "_Budget", "c"), ("TD", "_Fast", "quickest")])
def test_reward_hint_suffix_and_request(a101: Sample, code: str, suffix: str, request_words: str) -> None:
    out = _apply(code, a101)
    assert out is not None
    names = sorted(t.name for t in out.tools)
    assert names == sorted(["ModifyAlarm", "GetUserToken", "AddAgenda", "**Think", "AddAgenda" + suffix])
    user = out.conversation[-1].content
    assert 'location is "Restaurant X". Please use' in user or "Use the cheapest" in user
    assert out.golden_answers[0].name == "AddAgenda"
    gt = out.tool("AddAgenda")
    wrong = out.tool("AddAgenda" + suffix)
    assert gt is not None and wrong is not None and gt.parameters == wrong.parameters


def test_neutral_suffix_is_underscore_one(a101: Sample) -> None:
    out = _apply("CD_NT", a101)
    assert out is not None and out.tool("AddAgenda_1") is not None


def test_abbreviated_gt_becomes_golden(m110: Sample) -> None:
    out = _apply("CD_AB", m110)
    assert out is not None
    assert sorted(t.name for t in out.tools) == ["get_collectables_in_season", "mut_type.find", "mutation_type.find"]
    g = out.golden_answers[0]
    assert g.name == "mut_type.find" and g.acceptable == m110.golden_answers[0].acceptable
    short, full = out.tool("mut_type.find"), out.tool("mutation_type.find")
    assert short is not None and full is not None
    assert "$0.001" in short.description and "$0.050" in full.description
    # Appendix C / O Case 2: only the tools change, the user query is the clean one
    assert out.conversation == m110.conversation and "request" not in out.perturbation.metadata


@pytest.mark.parametrize("code", ["CD_AB", "TD_AB"])
def test_abbreviated_variants_leave_the_query_unchanged(a101: Sample, code: str) -> None:
    out = _apply(code, a101)
    assert out is not None and out.conversation == a101.conversation
    assert out.golden_answers[0].name == "AddAge" and out.perturbation.metadata["distractor"] == "AddAgenda"


def test_tooleyes_gets_redundant_but_no_dup_or_reward_variants(shared_data: Path) -> None:
    """ToolEyes has no single ground-truth tool (§4), so no Dup / Reward type; RedunTool reaches every
    sample (Tables 7-14: 199), here around a tool of the query's library, and the siblings it adds
    are not among the acceptable names, so calling one is wrong."""
    sample = load_source("tooleyes", shared_data).samples[0]
    for code in ("same_name_A", "CD", "TD_AB"):
        assert _apply(code, sample) is None
    out = _apply("redundant", sample)
    assert out is not None
    added = set(out.perturbation.metadata["added_tools"])
    assert added and added.isdisjoint(g.name for g in sample.golden_answers)
    assert out.golden_answers == sample.golden_answers


def test_same_seed_same_output_other_seed_other_typos(m110: Sample) -> None:
    a, b, c = (_apply("realistic_typos", m110, seed) for seed in (0, 0, 1))
    assert a == b and a is not None and c is not None
    assert a.conversation != c.conversation


def test_build_cli_is_byte_identical_and_counts_per_source(tmp_path: Path, shared_data: Path) -> None:
    runner = CliRunner()
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        args = ["build", "--sources", "bfcl,apibank,tooleyes", "--data-dir", str(shared_data)]
        res = runner.invoke(app, [*args, "--per-source", "bfcl=6,apibank=5,tooleyes=4", "--out", str(out)])
        assert res.exit_code == 0, res.output
        outs.append(out)
    files = sorted(p.name for p in outs[0].iterdir())
    assert files == sorted(["clean.jsonl", "manifest.json", *(f"{c}.jsonl" for c in STATIC_TYPES)])
    for f in files:
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes()
    manifest = json.loads((outs[0] / "manifest.json").read_text())
    assert manifest["counts_by_source"]["clean"] == {"apibank": 5, "bfcl": 6, "tooleyes": 4}
    assert "tooleyes" not in manifest["counts_by_source"]["same_name_A"]
    assert manifest["guard"]["realistic_typos"]["checked"] == 15
