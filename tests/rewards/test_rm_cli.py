"""The rm commands end to end with scripted generators and a mock endpoint (fast, no real model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mock_endpoint import mock_endpoint
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.rewards import ERROR_TYPES, read_pairs

runner = CliRunner()


def _run(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def test_build_bench_is_seed_stable_and_typed(tmp_path: Path) -> None:
    args = ["rm", "build-bench", "-g", "scripted:always_first_tool", "--queries", "60", "--size", "80", "--top-up"]
    _run(*args, "-o", str(tmp_path / "a.jsonl"))
    _run(*args, "-o", str(tmp_path / "b.jsonl"))
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    recs = read_pairs(tmp_path / "a.jsonl")
    assert 0 < len(recs) <= 80
    assert len({r.test_id for r in recs}) == len(recs)  # one rejected call per query
    assert {r.error_type for r in recs} <= set(ERROR_TYPES)
    real = [r for r in recs if not r.model_name.startswith("synthetic:")]
    assert real and all(r.model_name == "scripted:always_first_tool" for r in real)
    assert any(r.model_name.startswith("synthetic:") for r in recs)
    stats = json.loads((tmp_path / "a.stats.json").read_text())
    assert stats["draws"] == 60
    other = tmp_path / "c.jsonl"
    _run(*args[:-1], "--seed", "1", "--top-up", "-o", str(other))
    assert other.read_bytes() != (tmp_path / "a.jsonl").read_bytes()


def test_from_file_reads_the_release_layout(tmp_path: Path) -> None:
    release = tmp_path / "fc.json"
    row = {
        "tools": json.dumps([{"name": "f", "description": "", "parameters": {"type": "dict", "properties": {}}}]),
        "conversation": json.dumps([{"role": "user", "content": "hi"}]),
        "chosen_output": '[{"f": {}}]',
        "rejected_output": "[]",
        "error_type": "Incorrect number of functions",
        "model_name": "Qwen/Qwen2.5-0.5B-Instruct",
        "test_category": "simple",
        "test_id": "simple_0",
    }
    release.write_text(json.dumps([row]))
    out = _run("rm", "build-bench", "--from-file", str(release), "-o", str(tmp_path / "b.jsonl"))
    assert "| Incorrect number of functions | 1 | 100.0 |" in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(row) + "\n" + json.dumps({"tools": []}) + "\n")
    res = runner.invoke(app, ["rm", "build-bench", "--from-file", str(bad), "-o", str(tmp_path / "x.jsonl")])
    assert res.exit_code == 1 and "bad.jsonl:2" in res.output


def test_eval_runs_rules_and_a_judge_endpoint(tmp_path: Path) -> None:
    bench = tmp_path / "bench.jsonl"
    _run("rm", "build-bench", "--queries", "40", "--size", "40", "--top-up", "-o", str(bench))
    with mock_endpoint(["[]"]) as url:
        out = _run(
            "rm", "eval", str(bench), "-s", "schema", "-s", "bfcl", "-s", f"judge:m@{url}", "-o", str(tmp_path / "ev")
        )
    res = {r["scorer"]: r for r in json.loads((tmp_path / "ev" / "rm_eval.json").read_text())}
    assert res["bfcl"]["accuracy"] == 1.0  # gold-aware: every chosen passes, every rejected fails
    judge = res[f"judge:openai:m@{url}"]
    assert judge["unparseable"] == 0 and 0.25 < judge["accuracy"] < 0.75  # always-[[A]] under a seeded order
    assert "FC-RewardBench pairwise accuracy" in out


def test_best_of_n_with_endpoint_draws_and_log_probs(tmp_path: Path) -> None:
    replies = ["[]", "[calculate_triangle_area(base=10, height=5)]", "not a call", "[f(x=1)]"]
    with mock_endpoint(replies) as url:
        out = _run(
            "rm",
            "best-of-n",
            "-g",
            f"openai:m@{url}",
            "-s",
            "schema",
            "-s",
            "bfcl",
            "--n",
            "4",
            "--limit",
            "12",
            "--seed",
            "0",
            "-o",
            str(tmp_path),
        )
    assert "Best-of-4 accuracy" in out and "Table 8" in out
    recs = [json.loads(line) for line in (tmp_path / "best_of_n.jsonl").read_text().splitlines()]
    assert len(recs) == 12
    for r in recs:
        assert len(r["draws"]) == 4 and all(lp is not None for lp in r["logprobs"])
        assert r["correct"]["rm:bfcl"] == r["correct"]["oracle"]  # gold-aware RM picks a correct draw if any


def test_filter_keeps_the_top_fraction_as_trl_rows(tmp_path: Path, shared_data: Path) -> None:
    out = tmp_path / "sft.jsonl"
    text = _run(
        "rm",
        "filter",
        "--source",
        "toolalpaca",
        "--data-dir",
        str(shared_data),
        "-s",
        "schema",
        "--fraction",
        "0.5",
        "-o",
        str(out),
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert f"kept {len(rows)} of" in text
    assert rows and all(r["messages"][-1]["role"] == "assistant" for r in rows)
    assert {"messages", "tools", "id", "rm_score"} <= set(rows[0])


def test_train_data_obfuscates_and_keeps_one_pair_per_query(tmp_path: Path, shared_data: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    _run(
        "rm",
        "train-data",
        "--source",
        "toolalpaca",
        "--data-dir",
        str(shared_data),
        "-g",
        "scripted:always_first_tool",
        "--limit",
        "20",
        "--top-up",
        "-o",
        str(out),
    )
    pairs = read_pairs(out)
    assert pairs and len({p.test_id for p in pairs}) == len(pairs)
    from robustcall.sources import load_source

    names = {t.name for s in load_source("toolalpaca", shared_data).samples for t in s.tools}
    for p in pairs:
        assert not {t["name"] for t in p.tools} & names  # every function renamed
    res = runner.invoke(app, ["rm", "train-data", "--source", "bfcl", "-o", str(out)])
    assert res.exit_code == 1 and "overlap" in res.output
    # A.9's ablation: the same pairs with the names as given
    plain = tmp_path / "plain.jsonl"
    args = ["rm", "train-data", "--source", "toolalpaca", "--data-dir", str(shared_data), "--limit", "20"]
    text = _run(*args, "-g", "scripted:always_first_tool", "--top-up", "--no-obfuscate", "-o", str(plain))
    assert "original names (--no-obfuscate" in text
    kept = read_pairs(plain)
    assert [p.test_id for p in kept] == [p.test_id for p in pairs]
    assert all({t["name"] for t in p.tools} <= names for p in kept)  # no function renamed


@pytest.mark.realmodel
def test_build_bench_with_the_local_model(tmp_path: Path) -> None:
    from robustcall.models.local import check

    if not check().ready:
        pytest.skip("the embedded model is not set up")
    out = tmp_path / "bench.jsonl"
    _run(
        "rm",
        "build-bench",
        "-g",
        "local",
        "--queries",
        "4",
        "--temperature",
        "1.0",
        "-o",
        str(out),
        "--concurrency",
        "2",
    )
    stats = json.loads((tmp_path / "bench.stats.json").read_text())
    assert stats["draws"] == 4 and stats["failed_draws"] == 0
    assert all(r.model_name.startswith("local:") for r in read_pairs(out))


@pytest.mark.realmodel
def test_judge_on_the_local_model(tmp_path: Path) -> None:
    from robustcall.models.local import check

    if not check().ready:
        pytest.skip("the embedded model is not set up")
    bench = tmp_path / "bench.jsonl"
    _run("rm", "build-bench", "--queries", "40", "--size", "2", "--top-up", "-o", str(bench))
    _run("rm", "eval", str(bench), "-s", "judge:local", "-o", str(tmp_path / "ev"))
    (res,) = json.loads((tmp_path / "ev" / "rm_eval.json").read_text())
    assert res["total"] == 2 and 0 <= res["unparseable"] <= 2


def test_train_data_cli_keeps_irrelevance_samples(tmp_path: Path) -> None:
    from robustcall.core import EvalConfig, Message, Sample, SourceInfo, ToolSpec

    tool = ToolSpec(name="get_time", parameters={"type": "object", "properties": {}})
    no_call = Sample(
        id="irr1",
        benchmark="xlam_irrelevance",
        category="irrelevance",
        source=SourceInfo(original_id="irr1", benchmark="xlam_irrelevance"),
        conversation=[Message(role="user", content="Tell me a joke.")],
        tools=[tool],
        golden_answers=[],
        eval_config=EvalConfig(method="exact"),
    )
    src = tmp_path / "irr.jsonl"
    src.write_text(no_call.model_dump_json() + "\n")
    out = tmp_path / "pairs.jsonl"
    text = _run("rm", "train-data", "--samples", str(src), "-g", "scripted:always_first_tool", "-o", str(out))
    (pair,) = read_pairs(out)
    assert pair.chosen_output == "[]" and pair.error_type == "Irrelevance error"
    assert "| Irrelevance error | 1 | 100.0 |" in text


def test_best_of_n_draws_32_by_default(tmp_path: Path) -> None:
    with mock_endpoint(["[]", "[f(x=1)]"]) as url:
        out = _run("rm", "best-of-n", "-g", f"openai:m@{url}", "-s", "schema", "--limit", "1", "-o", str(tmp_path))
    assert "Best-of-32 accuracy" in out
    (rec,) = [json.loads(line) for line in (tmp_path / "best_of_n.jsonl").read_text().splitlines()]
    assert len(rec["draws"]) == 32
