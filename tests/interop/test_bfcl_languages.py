"""``simple_java`` and ``simple_javascript`` result files scored with BFCL's type rules: answers made
from the ground truth and mutated (``benchmarks/bfcl_lang_oracle.py``), in function-calling and
prompting shapes, imported and scored; every verdict and ``error_type`` equals upstream's committed
one. Text answers are read by BFCL's own tree-sitter parsers (the ``bfcl-java`` extra): that half
is skipped where the extra is not installed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.interop._bfcl_files import _prediction
from robustcall.score import score_prediction
from robustcall.sources import load_bfcl_extra

ROOT = Path(__file__).parents[2]
ORACLE = ROOT / "tests" / "score" / "data" / "bfcl_lang_oracle_verdicts.jsonl"
runner = CliRunner()


def _answers() -> Any:
    spec = importlib.util.spec_from_file_location("bfcl_lang_oracle", ROOT / "benchmarks" / "bfcl_lang_oracle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.answers


def _rows(shape: str) -> list[dict[str, Any]]:
    """The oracle rows of one shape, each with its answer rebuilt from the wheel's ground truth."""
    answers = _answers()
    gold = {s.source.original_id: s.golden_answers[0] for s in load_bfcl_extra() if s.category != "live_relevance"}
    made = {}
    for bfcl_id, g in gold.items():
        for kind, sh, result in answers(g.name, g.acceptable, bfcl_id.startswith("simple_java_")):
            made[(bfcl_id, kind, sh)] = result
    rows = [o for o in map(json.loads, ORACLE.read_text().splitlines()) if o["shape"] == shape]
    return [o | {"result": made[(o["id"], o["kind"], o["shape"])]} for o in rows]


def _check(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    """Every row through the import's reading and the scorer in process; the gold kind also end to end
    through `robustcall import bfcl` and `robustcall score`."""
    samples = {s.source.original_id: s for s in load_bfcl_extra()}
    differ = []
    for r in rows:
        prediction = _prediction(samples[r["id"]], r["result"], r["id"], isinstance(r["result"], list))
        verdict = score_prediction(samples[r["id"]], prediction)
        got = None if verdict.correct else (verdict.detail or "").split(";")[0]
        if got != r["error_type"]:
            differ.append((r["id"], r["kind"], got, r["error_type"]))
    assert differ == []
    for kind in ["gold"]:
        files: dict[str, list[str]] = {}
        for r in rows:
            if r["kind"] == kind:
                category = r["id"].rsplit("_", 1)[0]
                files.setdefault(category, []).append(json.dumps({"id": r["id"], "result": r["result"]}))
        folder = tmp_path / kind / "my-model"
        folder.mkdir(parents=True)
        for category, lines in files.items():
            (folder / f"BFCL_v4_{category}_result.json").write_text("\n".join(lines) + "\n")
        run = tmp_path / f"run-{kind}"
        res = runner.invoke(app, ["import", "bfcl", str(tmp_path / kind), "--out", str(run)])
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["score", str(run), "--bootstrap", "10"])
        assert res.exit_code == 0, res.output
        verdicts = {}
        for line in (run / "scores.jsonl").read_text().splitlines():
            v = json.loads(line)
            verdicts[v["id"].split("__")[-1]] = None if v["correct"] else v["detail"].split(";")[0]
        differ += [(r["id"], kind, verdicts[r["id"]], r["error_type"]) for r in rows
                   if r["kind"] == kind and verdicts[r["id"]] != r["error_type"]]  # fmt: skip
    assert differ == []


def test_function_calling_java_and_javascript_answers_get_upstreams_verdicts(tmp_path: Path) -> None:
    rows = _rows("fc")
    assert len(rows) == 900 and sum(r["error_type"] is None for r in rows) == 190
    _check(tmp_path, rows)


def test_text_java_and_javascript_answers_get_upstreams_verdicts(tmp_path: Path) -> None:
    pytest.importorskip("tree_sitter_java", reason="BFCL's Java parser needs the bfcl-java extra")
    rows = _rows("text")
    assert len(rows) == 750 and sum(r["error_type"] is None for r in rows) == 137
    _check(tmp_path, rows)
