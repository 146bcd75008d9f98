"""``build --release``: the authors' released RobustBench-TC read from its documented layouts, run,
scored and reported "like for like with the paper" (issue 45 item 1)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import STATIC_TYPES, TRANSITION_TYPES, file_sha256, read_bench_manifest, read_run_meta
from robustcall.sources import load_release

sys.path.insert(0, str(Path(__file__).resolve().parent))
from release_files import clean_records, write_release

runner = CliRunner()

PER_TYPE = {code: 4 for code in STATIC_TYPES} | {"clean": 5}  # ToolEyes: no Dup / Reward type
PER_TYPE |= {c: 5 for c in ("realistic_typos", "query_paraphrase", "paraphrase_tool_description")}
PER_TYPE |= {"paraphrase_parameter_description": 5, "redundant": 5}


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_release_layout_builds_runs_scores_and_reports_like_for_like(tmp_path: Path) -> None:
    release = write_release(tmp_path / "RobustBench-TC")
    bench = tmp_path / "bench"
    printed = _ok("build", "--release", str(release), "--out", str(bench))
    assert "runs of this build are like for like" in printed
    manifest = read_bench_manifest(bench)
    assert manifest.counts == PER_TYPE
    rel = manifest.release
    assert rel is not None and rel["like_for_like"] is True and rel["layout"] == "release"
    assert rel["name"] == "robustbench-tc/RobustBench-TC" and rel["commit"] is None  # not a hub snapshot
    assert rel["files"] == {f"{c}.jsonl": file_sha256(release / f"{c}.jsonl") for c in ("clean", *STATIC_TYPES)}
    assert rel["records"] == sum(PER_TYPE.values()) + 5 * len(TRANSITION_TYPES) == 104
    assert manifest.composition["bfcl"]["clean"] == 1 and manifest.composition_mode == "release"

    data = load_release(release)
    typo = data.by_type["realistic_typos"][0]
    assert (typo.id, typo.source.original_id) == ("apibank__level1_7__realistic_typos", "apibank__level1_7")
    assert typo.source.extra["meta_tools"] == ["**Think"] and typo.eval_config.method == "apibank"
    assert typo.tools[0].parameters == json.loads(clean_records()[0]["tools"][0]["parameters"])
    rules = {s.benchmark: (s.eval_config.method, s.source.extra["golden_mode"]) for s in data.by_type["clean"]}
    assert rules == {
        "bfcl_v3": ("bfcl_ast", "all"), "apibank": ("apibank", "all"), "rotbench": ("rotbench", "any"),
        "toolalpaca": ("toolalpaca", "sequence"), "tooleyes": ("tooleyes", "any_name"),
    }  # fmt: skip
    assert data.by_type["clean"][1].source.extra["release_method"] == "ast"  # kept, not trusted

    run = tmp_path / "run"
    _ok("run", "--bench", str(bench), "--out", str(run), "--model", "scripted:oracle")
    meta = read_run_meta(run)
    assert meta.release == rel  # every run's metadata names the release
    _ok("score", str(run), "--bootstrap", "0")
    scores = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert len(scores) == 104 and all(s["correct"] for s in scores)  # the oracle answers every rule right
    out = tmp_path / "report"
    _ok("report", str(run), "--out", str(out), "--resamples", "0")
    (only,) = json.loads((out / "report.json").read_text()).values()
    assert only["like_for_like"] is True
    assert only["versus_paper"].startswith("like for like with the paper: every record of the authors' release")
    assert "like for like with the paper" in (out / "table2.md").read_text()

    part = tmp_path / "part"  # a --limit run of the release is not like for like
    _ok("run", "--bench", str(bench), "--out", str(part), "--model", "scripted:oracle", "--limit", "2")
    _ok("report", str(part), "--out", str(tmp_path / "r2"), "--resamples", "0")
    (one,) = json.loads((tmp_path / "r2" / "report.json").read_text()).values()
    assert one["like_for_like"] is False and "of the release's 104 records" in one["versus_paper"]


def test_our_own_build_is_not_like_for_like(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
    from mock_openai import write_capital_bench

    bench = write_capital_bench(tmp_path / "bench", 3)
    run = tmp_path / "run"
    _ok("run", "--bench", str(bench), "--out", str(run), "--model", "scripted:oracle", "--types", "clean")
    _ok("report", str(run), "--out", str(tmp_path / "r"), "--resamples", "0")
    (one,) = json.loads((tmp_path / "r" / "report.json").read_text()).values()
    assert one["like_for_like"] is False and one["versus_paper"].startswith("not like for like with the paper")


def test_a_record_out_of_layout_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = json.dumps({**clean_records()[0], "tools": {"name": "x"}, "perturbation": {"type": "CD"}})
    release = write_release(tmp_path / "rel", bad_line=bad)
    result = runner.invoke(app, ["build", "--release", str(release), "--out", str(tmp_path / "b")])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"error: {release / 'CD.jsonl'}:5: not a RobustBench-TC release record: tools must be a list, got dict"
    ]
    (release / "CD.jsonl").write_text(json.dumps({**clean_records()[0], "perturbation": {"type": "TD"}}) + "\n")
    result = runner.invoke(app, ["build", "--release", str(release), "--out", str(tmp_path / "b")])
    assert "CD.jsonl:1: not a RobustBench-TC release record: perturbation.type 'TD' in a file of type 'CD'" in (
        result.output
    )
    result = runner.invoke(app, ["build", "--release", str(tmp_path), "--out", str(tmp_path / "b")])
    assert result.exit_code == 1 and "neither clean.jsonl" in result.output


def test_the_larger_cards_layout_with_string_fields_and_acebench(tmp_path: Path) -> None:
    root = tmp_path / "Justin1233"
    folder = root / "unified_benchmark" / "bfcl_v3"
    folder.mkdir(parents=True)
    lines = []
    for rec in clean_records()[:1]:
        as_strings = {k: (json.dumps(v) if isinstance(v, list | dict) else v) for k, v in rec.items()}
        lines.append(as_strings)  # the larger card's README types every nested field `string`
        lines.append({**as_strings, "perturbation": json.dumps({"type": "realistic_typos", "mdp_category": "O"})})
    lines.append({**clean_records()[0], "id": "ace_1", "benchmark": "acebench"})
    (folder / "all.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    bench = tmp_path / "bench"
    printed = _ok("build", "--release", str(root), "--out", str(bench))
    assert "ACEBench: not one of the paper's five sources (no scorer here): 1" in printed
    rel = read_bench_manifest(bench).release
    assert rel is not None and (rel["name"], rel["layout"], rel["like_for_like"]) == (
        "Justin1233/RobustBench-TC",
        "unified",
        False,
    )
    typo = load_release(root).by_type["realistic_typos"][0]
    assert typo.source.extra["release_mdp_category"] == "O" and typo.perturbation.mdp_category == "observation"


def test_hf_snapshot_path_names_repo_and_commit(tmp_path: Path) -> None:
    commit = "d962f2b6e0f687c113b1708b68ec11baf6bea94c"
    snap = write_release(tmp_path / "datasets--robustbench-tc--RobustBench-TC" / "snapshots" / commit)
    data = load_release(snap)
    assert (data.name, data.commit, data.complete) == ("robustbench-tc/RobustBench-TC", commit, True)


def test_release_hf_says_in_one_line_when_the_hub_is_not_reachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path / "cache"))
    result = runner.invoke(app, ["build", "--release", "hf", "--out", str(tmp_path / "b")])
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: the Hugging Face hub is not reachable from here (")
    assert line.endswith("download robustbench-tc/RobustBench-TC elsewhere and give --release DIR")


def test_release_grpo_parquets_load_in_train_as_toolrl_dr_data(tmp_path: Path) -> None:
    release = write_release(tmp_path / "rel")
    (release / "training").mkdir()
    system = 'You may call tools.\n<tools>\n{"name": "city.find", "parameters": {}}\n</tools>'
    rows = [
        {
            "data_source": "robustbench_tc",
            "prompt": [{"role": "system", "content": system}, {"role": "user", "content": f"Find city {i}."}],
            "ability": "tool_use",
            "reward_model": {"style": "rule", "ground_truth": f'<tool_call>\n{{"name": "city.find"}}\n</tool_call>{i}'},
            "extra_info": {"index": i},
        }
        for i in range(3)
    ]
    pq.write_table(pa.Table.from_pylist(rows), release / "training" / "mixed_train.parquet")
    pq.write_table(pa.Table.from_pylist(rows[:1]), release / "training" / "test.parquet")
    out = _ok(
        "train", "grpo", "--train", str(release), "--release-split", "mixed", "--out", str(tmp_path / "o"),
        "--dry-run",
    )  # fmt: skip
    assert "mixed_train.parquet: 3 ToolRL-DR rows" in out and "test.parquet: 1 ToolRL-DR rows" in out
    settings = json.loads(out[out.index("{") :])
    assert settings["train"].endswith("mixed_train.parquet") and settings["eval"].endswith("test.parquet")
    missing = runner.invoke(app, ["train", "grpo", "--train", str(release), "--out", str(tmp_path / "o")])
    assert missing.exit_code == 1 and "no training/train.parquet" in missing.output


def test_the_leaderboard_says_like_for_like_only_on_the_release(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from robustcall.web import create_app

    release_bench = tmp_path / "release_bench"
    _ok("build", "--release", str(write_release(tmp_path / "rel")), "--out", str(release_bench))
    own = tmp_path / "own"  # the same files without the manifest's release: a build of our own
    shutil.copytree(release_bench, own)
    manifest = json.loads((own / "manifest.json").read_text())
    del manifest["release"]
    (own / "manifest.json").write_text(json.dumps(manifest))
    pages = {}
    for name, bench in (("release", release_bench), ("own", own)):
        with TestClient(create_app(bench, f"sqlite:///{tmp_path / name}.db")) as client:
            pages[name] = client.get("/").text
    said = "release robustbench-tc/RobustBench-TC (unknown): a complete submission is like for like"
    assert said in pages["release"]
    assert "not like for like with the paper" in pages["own"] and "is like for like" not in pages["own"]


def test_a_card_of_the_release_places_the_model_like_for_like(tmp_path: Path) -> None:
    """The card's RobustBench-TC run on the release (``card --budget paper --release``): its placement
    beside the paper's models is like for like (the paper protocol's 102 records a type lowered to
    what these few files hold)."""
    import asyncio
    import dataclasses

    from robustcall.card import PROTOCOLS, CardModel
    from robustcall.card._assemble import robustbench_section
    from robustcall.card._execute import run_tc

    protocol = dataclasses.replace(PROTOCOLS["paper"], min_records_per_type=4)
    card = tmp_path / "card"
    release = write_release(tmp_path / "rel")
    asyncio.run(run_tc(protocol, CardModel(spec="scripted:oracle"), card, None, lambda _: None, release))
    section = robustbench_section(card, protocol, "scripted:oracle", 0)
    assert section.records == 104 and section.reference.comparable
    assert "so like for like with the paper's rows" in section.reference.note
    quick = runner.invoke(
        app,
        ["card", "--release", str(release), "--out", str(tmp_path / "q"), "--model", "scripted:oracle",
         "--env-model", "scripted:expert"],
    )  # fmt: skip
    assert quick.exit_code == 1 and "use it with --budget paper" in quick.output
