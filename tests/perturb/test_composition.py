"""Issue 26 items 1-4: Table 3 / Tables 7-14's composition (``--composition paper``), the seeded
allocation of Dup / Reward records, and every sample getting every Observation type."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import STATIC_TYPES, TRANSITION_TYPES, Sample, read_jsonl
from robustcall.perturb import (
    ALLOCATED_TYPES,
    allocate,
    build_benchmark,
    paper_allocated_by_source,
    paper_type_counts,
    protect,
)
from robustcall.perturb._compose import targets
from robustcall.perturb._paraphrase import frame_query, paraphrase_description
from robustcall.perturb._typos import add_typos
from robustcall.sources import DEFAULT_COMPOSITION, PAPER_TABLE3

SOURCES = ["bfcl", "apibank", "rotbench", "toolalpaca", "tooleyes"]


def test_paper_counts_add_up_to_table3() -> None:
    """Tables 7-14's per-type counts and Table 3's per-source totals describe the same 3,721 records."""
    assert sum(paper_type_counts().values()) == sum(total for _, _, total in PAPER_TABLE3.values()) == 3721
    assert len(paper_type_counts()) == 1 + len(STATIC_TYPES) + len(TRANSITION_TYPES) == 23
    assert paper_allocated_by_source() == {
        "bfcl": 121,
        "apibank": 758,
        "rotbench": 227,
        "toolalpaca": 227,
        "tooleyes": 0,
    }
    assert sum(paper_allocated_by_source().values()) == sum(paper_type_counts()[t] for t in ALLOCATED_TYPES) == 1333
    assert [paper_type_counts()[t] for t in ALLOCATED_TYPES] == [133, 127, 126, 125, 126, 102, 102, 102, 102, 144, 144]
    assert set(ALLOCATED_TYPES) == {t for t, n in paper_type_counts().items() if n < 199}
    assert targets(DEFAULT_COMPOSITION) == (
        paper_allocated_by_source(),
        {t: paper_type_counts()[t] for t in ALLOCATED_TYPES},
    )


def _paper_frame() -> tuple[dict[str, list[str]], dict[str, str]]:
    """The paper's 199 samples; every allocated type applies to every sample but ToolEyes'."""
    source_of = {f"{name}_{i}": name for name, n in DEFAULT_COMPOSITION.items() for i in range(n)}
    applicable = {t: sorted(i for i, s in source_of.items() if s != "tooleyes") for t in ALLOCATED_TYPES}
    return applicable, source_of


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_allocation_meets_both_margins(seed: int) -> None:
    applicable, source_of = _paper_frame()
    got = allocate(applicable, source_of, seed)
    assert got.shortfall == {}
    assert {t: len(ids) for t, ids in got.chosen.items()} == {t: paper_type_counts()[t] for t in ALLOCATED_TYPES}
    per_source = Counter(source_of[i] for ids in got.chosen.values() for i in ids)
    assert {n: per_source.get(n, 0) for n in DEFAULT_COMPOSITION} == paper_allocated_by_source()
    # spread evenly: each sample carries its source's share of types, rounded down or up
    per_sample = Counter(i for ids in got.chosen.values() for i in ids)
    for name, n in DEFAULT_COMPOSITION.items():
        share = paper_allocated_by_source()[name] / n
        assert all(int(share) <= per_sample.get(i, 0) <= int(share) + 1 for i, s in source_of.items() if s == name)


def test_allocation_is_seeded() -> None:
    applicable, source_of = _paper_frame()
    a, b, c = (allocate(applicable, source_of, s).chosen for s in (0, 0, 1))
    assert a == b
    assert a != c


def test_allocation_avoids_pairs_that_do_not_apply_and_reports_what_it_cannot_meet() -> None:
    applicable, source_of = _paper_frame()
    applicable["CD_AB"] = [i for i in applicable["CD_AB"] if i != "bfcl_3"]  # e.g. a name with no abbreviation
    got = allocate(applicable, source_of, 0)
    assert "bfcl_3" not in got.chosen["CD_AB"]
    assert got.shortfall == {}
    # a frame where Abbr's 144 cannot be met: only 140 samples take it
    applicable["TD_AB"] = applicable["TD_AB"][:140]
    short = allocate(applicable, source_of, 0)
    assert short.shortfall["TD_AB"] == 4


def test_other_frames_scale_the_paper_rows() -> None:
    rows, cols = targets({"bfcl": 16, "tooleyes": 51})
    assert rows == {"bfcl": 61, "tooleyes": 0}  # 121 * 16 / 32 = 60.5, half up
    assert sum(cols.values()) == 61
    assert cols["CD_AB"] >= cols["CD"]  # the paper's proportions


# ---- item 4: the offline rewriter edits what its rules do not reach -------------------------------


def test_chinese_query_gets_typos_and_a_paraphrase() -> None:
    query = "请问北京的当前天气状况如何？还有，上海的天气情况是怎样的？"
    prot = protect(query, [])
    typo = add_typos(query, prot, random.Random(0))
    assert typo != query and len(typo) in (len(query), len(query) + 1, len(query) + 2)
    assert frame_query(query, random.Random(0)) in {"你好，" + query, "我想问一下：" + query}


def test_short_question_and_refused_rewrites_are_framed() -> None:
    assert frame_query("where is it?", random.Random(0)).endswith(": where is it?")
    assert frame_query("Analyze the review 'I love it!'.", random.Random(1)).endswith(
        "Analyze the review 'I love it!'."
    )
    transcript = "<user>hi</user>\n<user> Based on our conversation above, please only make one tool call.</user>"
    assert frame_query(transcript, random.Random(0)) == transcript  # markup: no frame


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The ID of appointment.", "Specifies the ID of appointment."),
        ("Specifies the ID of appointment.", "The ID of appointment."),
        ("Constant term.", "The constant term."),
        ("Build a decision tree classifier.", "Builds a decision tree classifier."),
    ],
)
def test_descriptions_no_phrase_reaches_are_reframed(text: str, expected: str) -> None:
    outs = {paraphrase_description(text, protect(text, []), random.Random(s)) for s in range(6)}
    assert outs == {expected}


# ---- builds ----------------------------------------------------------------------------------------


def test_paper_and_all_compositions_of_one_source(tmp_path: Path, shared_data: Path) -> None:
    """A BFCL-only build: ``paper`` keeps BFCL's share of each Dup / Reward type (121 records in all,
    as in Table 3) and every sample gets every other type; ``all`` keeps every applicable record,
    irrelevance samples included (the right answer stays no call)."""
    paper = build_benchmark(["bfcl"], shared_data, 0, tmp_path / "paper")
    assert paper["composition_shortfall"] == {}
    allocated = sum(paper["counts"][t] for t in ALLOCATED_TYPES)
    assert allocated == paper_allocated_by_source()["bfcl"] == 121
    assert paper["composition"]["bfcl"]["total"] == PAPER_TABLE3["bfcl"][2] == 505
    assert all(paper["counts"][t] == 32 for t in STATIC_TYPES if t not in ALLOCATED_TYPES)
    every = build_benchmark(["bfcl"], shared_data, 0, tmp_path / "all", composition="all")
    assert every["composition_mode"] == "all"
    clean = read_jsonl(tmp_path / "all" / "clean.jsonl", Sample)
    no_call = [s.id for s in clean if not s.golden_answers]
    assert no_call  # BFCL irrelevance samples
    for t in ALLOCATED_TYPES:
        rows = read_jsonl(tmp_path / "all" / f"{t}.jsonl", Sample)
        assert len(rows) == every["counts"][t] >= 30, t
        stand_ins = [r for r in rows if r.id.removesuffix(f"__{t}") in no_call]
        assert stand_ins and all(r.golden_answers == [] for r in stand_ins), t


def test_build_prints_ours_beside_the_papers(tmp_path: Path, shared_data: Path) -> None:
    out = tmp_path / "b"
    res = CliRunner().invoke(
        app, ["build", "--sources", ",".join(SOURCES), "--data-dir", str(shared_data), "--out", str(out)],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    for display, n in (("Dup-NoDesc", 133), ("MisDesc-Abbr", 144), ("RedunTool", 199), ("Timeout*", 199)):
        line = next(x for x in res.output.splitlines() if f" {display} " in x)
        assert line.split("│")[-3].strip() == line.split("│")[-2].strip() == str(n), line
    assert "3721 (3721)" in res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["composition_mode"] == "paper"
    assert manifest["not_applicable_samples"]["CD"][
        "no single ground-truth tool (any tool of the library is right, §4)"
    ]
    bad = CliRunner().invoke(app, ["build", "--composition", "some", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "--composition" in bad.output
