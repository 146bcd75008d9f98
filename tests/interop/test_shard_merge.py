"""Several machines: ``run --shard i/n`` answers deterministic slices (one mock server per "node"),
``merge`` joins them into a run that scores exactly like the unsharded run, and refuses overlaps,
missing or repeated shards and mismatched runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from mock_servers import ChatServer, completion
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.run import clean_id_of, parse_types, plan_work, shard_items

runner = CliRunner()


async def _deterministic(body: dict[str, Any]) -> dict[str, Any]:
    """Right or wrong by the prompt alone: no call for even-length user turns, else the first tool."""
    user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    return completion("[]" if len(user) % 2 == 0 else "[f()]")


def _invoke(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def _flat(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


def test_shards_partition_the_plan_by_clean_sample(tiny_bench: Path) -> None:
    items = plan_work(tiny_bench, parse_types("all"))
    parts = [shard_items(items, i, 3) for i in range(3)]
    keys = [it.key for p in parts for it in p]
    assert sorted(keys) == sorted(it.key for it in items) and len(set(keys)) == len(keys)
    assert [len({clean_id_of(it.sample) for it in p}) for p in parts] == [
        2,
        1,
        1,
    ]  # 4 clean samples dealt round-robin over 3 shards
    assert shard_items(items, 1, 3) == parts[1]  # deterministic


def test_run_shards_on_three_nodes_merge_and_score_like_one_run(tiny_bench: Path, tmp_path: Path) -> None:
    nodes = [ChatServer(_deterministic) for _ in range(3)]
    try:
        for i, node in enumerate(nodes):
            _invoke("run", "--bench", str(tiny_bench), "--out", str(tmp_path / f"s{i}"), "--shard", f"{i}/3",
                    "--model", "openai/m", "--base-url", node.base_url, "--types", "static")  # fmt: skip
        single = ChatServer(_deterministic)
        try:
            _invoke("run", "--bench", str(tiny_bench), "--out", str(tmp_path / "one"), "--model", "openai/m",
                    "--base-url", single.base_url, "--types", "static")  # fmt: skip
        finally:
            single.stop()
    finally:
        for node in nodes:
            node.stop()
    assert all(node.seen for node in nodes)
    total = sum(len(node.seen) for node in nodes)
    assert total == len(single.seen)
    shards = [str(tmp_path / f"s{i}") for i in (2, 0, 1)]  # any order
    out = _invoke("merge", *shards, "--out", str(tmp_path / "merged"))
    assert f"{total}records" in _flat(out)
    meta = json.loads((tmp_path / "merged" / "run.json").read_text())
    assert [p["shard"] for p in meta["merged_from"]] == ["0/3", "1/3", "2/3"]
    assert [p["base_url"] for p in meta["merged_from"]] == [n.base_url for n in nodes]
    for run in ("merged", "one"):
        _invoke("score", str(tmp_path / run), "--bootstrap", "200")
    assert (tmp_path / "merged" / "scores.jsonl").read_bytes() == (tmp_path / "one" / "scores.jsonl").read_bytes()
    merged = json.loads((tmp_path / "merged" / "summary.json").read_text())
    one = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert merged == one
    assert merged["clean"]["n"] == 4 and 0 < merged["perturbed"]["accuracy"] < 1
    for run in ("merged", "one"):  # reports read the merged run like any other (same run name in both)
        shutil.copytree(tmp_path / run, tmp_path / f"for-{run}" / "qwen")
        _invoke("report", str(tmp_path / f"for-{run}" / "qwen"), "--out", str(tmp_path / f"report-{run}"),
                "--resamples", "100")  # fmt: skip
    # every table but the tokens tables, whose latency columns are measured wall time (no two runs share it)
    tables = sorted(p.name for p in (tmp_path / "report-merged").glob("*.md") if not p.name.startswith("tokens"))
    assert tables
    for name in tables:
        assert (tmp_path / "report-merged" / name).read_text() == (tmp_path / "report-one" / name).read_text(), name


def test_merge_refuses_overlaps_missing_repeated_and_mismatched(tiny_bench: Path, tmp_path: Path) -> None:
    def shard(name: str, spec: str, types: str = "clean") -> str:
        _invoke("run", "--bench", str(tiny_bench), "--out", str(tmp_path / name), "--shard", spec,
                "--model", "scripted:oracle", "--types", types)  # fmt: skip
        return str(tmp_path / name)

    a, b = shard("a", "0/2"), shard("b", "1/2")
    other = shard("c", "1/2", types="clean,realistic_typos")

    def refused(*runs: str) -> str:
        res = runner.invoke(app, ["merge", *runs, "--out", str(tmp_path / "m")])
        assert res.exit_code == 1 and not (tmp_path / "m" / "predictions.jsonl").exists()
        return _flat(res.output)

    assert "shards12missing" in refused(a)
    assert "givenmorethanonce" in refused(a, a, b)
    assert "isnotashardofthesamerun" in refused(a, other)
    assert "types" in refused(a, other)
    overlap = tmp_path / "overlap"
    shutil.copytree(b, overlap)
    with (overlap / "predictions.jsonl").open("a") as fh:
        fh.write((Path(a) / "predictions.jsonl").read_text().splitlines()[0] + "\n")
    assert "isinboth" in refused(a, str(overlap))
    assert "notarundirectory" in refused(str(overlap / "predictions.jsonl"))  # a file, not a run
    res = runner.invoke(app, ["run", "--bench", str(tiny_bench), "--out", str(tmp_path / "x"), "--shard", "3/3",
                              "--model", "scripted:oracle"])  # fmt: skip
    assert res.exit_code != 0 and "shard33needn1and0in" in _flat(res.output)
    _invoke("merge", a, b, "--out", str(tmp_path / "ok"))
    _invoke("score", str(tmp_path / "ok"), "--bootstrap", "100")
    summary = json.loads((tmp_path / "ok" / "summary.json").read_text())
    assert (summary["clean"]["n"], summary["clean"]["accuracy"]) == (4, 1.0)
