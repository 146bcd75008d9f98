"""BFCL result files: ``robustcall import bfcl`` reads ``bfcl generate`` output (text and
function-calling shapes) into a run that ``robustcall score`` scores with upstream BFCL's verdicts,
and ``robustcall export bfcl`` writes the same files back. The files are made from the rows of the
BFCL oracle corpus (``../shared/tools/bfcl_oracle``) with upstream's verdicts committed beside them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import read_run_meta
from robustcall.sources._bfcl import BFCL_CATEGORIES

ORACLE_ROWS = Path(__file__).parents[1] / "score" / "data" / "bfcl_oracle_verdicts.jsonl"
runner = CliRunner()


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in ORACLE_ROWS.read_text().splitlines() if line.strip()]


def _layers(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The rows dealt into result folders in which every BFCL id appears once (as in one `bfcl generate`)."""
    layers: list[list[dict[str, Any]]] = []
    for row in rows:
        layer = next((la for la in layers if all(r["id"] != row["id"] for r in la)), None)
        if layer is None:
            layer = []
            layers.append(layer)
        layer.append(row)
    return layers


def _write_results(folder: Path, rows: list[dict[str, Any]], result_of: Any) -> dict[str, dict[str, Any]]:
    """BFCL's layout: <folder>/<model>/<non_live|live>/BFCL_v4_<category>_result.json, with metadata."""
    files: dict[str, dict[str, Any]] = {}
    for row in rows:
        group = "live" if row["category"].startswith("live_") else "non_live"
        name = f"{group}/BFCL_v4_{row['category']}_result.json"
        files.setdefault(name, {})[row["id"]] = result_of(row)
    for name, results in files.items():
        path = folder / "my-model" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [
            json.dumps({"id": i, "result": r, "input_token_count": 10, "latency": 0.5}) for i, r in results.items()
        ]
        path.write_text("\n".join(lines) + "\n")
    return files


def _import_score(folder: Path, run: Path) -> dict[str, bool]:
    res = runner.invoke(app, ["import", "bfcl", str(folder), "--out", str(run), "--model", "my-model"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["score", str(run), "--bootstrap", "100"])
    assert res.exit_code == 0, res.output
    verdicts = [json.loads(x) for x in (run / "scores.jsonl").read_text().splitlines()]
    return {v["id"].split("__")[-1]: v["correct"] for v in verdicts}


def _exported(run: Path, out: Path) -> dict[str, dict[str, Any]]:
    res = runner.invoke(app, ["export", "bfcl", str(run), "--out", str(out), "--model-dir", "my-model"])
    assert res.exit_code == 0, res.output
    files: dict[str, dict[str, Any]] = {}
    for path in sorted((out / "my-model").rglob("*_result.json")):
        entries = [json.loads(x) for x in path.read_text().splitlines()]
        assert all(set(e) == {"id", "result"} for e in entries)
        files[str(path.relative_to(out / "my-model"))] = {e["id"]: e["result"] for e in entries}
    return files


@pytest.mark.usefixtures("shared_data")
def test_text_results_round_trip_with_upstream_verdicts(tmp_path: Path) -> None:
    rows = _rows()
    assert {r["category"] for r in rows} <= set(BFCL_CATEGORIES.values())
    layers = _layers(rows)
    assert sum(len(la) for la in layers) == len(rows) == 92
    for k, layer in enumerate(layers):
        written = _write_results(tmp_path / f"in{k}", layer, lambda r: r["output"])
        verdicts = _import_score(tmp_path / f"in{k}", tmp_path / f"run{k}")
        assert verdicts == {r["id"]: r["upstream_valid"] for r in layer}  # BFCL's own verdicts
        assert read_run_meta(tmp_path / f"run{k}").mode == "prompt"  # text results: a prompting handler
        assert _exported(tmp_path / f"run{k}", tmp_path / f"out{k}") == written  # the files come back
        for path in (tmp_path / f"out{k}" / "my-model").rglob("BFCL_v4_simple_python_result.json"):
            ids = [json.loads(x)["id"] for x in path.read_text().splitlines()]
            assert ids == sorted(ids, key=lambda i: int(i.rsplit("_", 1)[1]))  # BFCL's numeric id order


def test_function_calling_results_round_trip(tmp_path: Path) -> None:
    from robustcall.core import Sample
    from robustcall.formats import parse_tool_calls
    from robustcall.sources._bfcl import load_bfcl

    by_id: dict[str, Sample] = {s.source.original_id: s for s in load_bfcl().samples}
    rows = [r for r in _layers(_rows())[0] if r["category"] != "irrelevance"]

    def fc(row: dict[str, Any]) -> list[dict[str, str]] | str:
        """As BFCL's function-calling handlers write it: the calls, or the message text when there are none."""
        calls = parse_tool_calls(row["output"], "bfcl", by_id[row["id"]].tools).calls
        return [{c.name: json.dumps(c.arguments)} for c in calls] or "I will not call a function."

    def decoded(files: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Arguments strings read as JSON (``"\\u00b3"`` and ``"³"`` are one string)."""
        return {
            f: {
                i: [{n: json.loads(a) for n, a in c.items()} for c in r] if isinstance(r, list) else r
                for i, r in res.items()
            }
            for f, res in files.items()
        }

    written = _write_results(tmp_path / "in", rows, fc)
    assert any(isinstance(r, list) for res in written.values() for r in res.values())
    verdicts = _import_score(tmp_path / "in", tmp_path / "run")
    assert verdicts == {r["id"]: r["upstream_valid"] for r in rows}
    assert read_run_meta(tmp_path / "run").mode == "fc"  # lists of calls: a function-calling handler
    assert decoded(_exported(tmp_path / "run", tmp_path / "out")) == decoded(written)


def test_bad_result_files_are_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "in" / "m" / "non_live"
    folder.mkdir(parents=True)
    (folder / "BFCL_v4_simple_python_result.json").write_text('{"id": "simple_python_999999", "result": "[]"}\n')
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "in"), "--out", str(tmp_path / "run")])
    assert res.exit_code != 0 and "simple_python_999999" in res.output
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "nothing"), "--out", str(tmp_path / "run")])
    assert res.exit_code != 0 and "BFCL_v4_" in res.output


FC_ORACLE_ROWS = Path(__file__).parents[1] / "score" / "data" / "bfcl_fc_oracle_verdicts.jsonl"


def test_function_calling_names_with_dots_as_bfcl_evaluate_reads_them(tmp_path: Path) -> None:
    """BFCL's FC handlers answer ``a.b`` as ``a_b``; upstream's checker (``convert_func_name`` with the
    model's ``underscore_to_dot``, benchmarks/bfcl_fc_oracle.py) gave these verdicts; import and export
    follow it both ways for a model of BFCL's list."""
    rows = [json.loads(line) for line in FC_ORACLE_ROWS.read_text().splitlines()]
    assert len(rows) == 31 and sum(r["upstream_valid"] for r in rows) == 9
    assert all("_" in name and "." not in name for r in rows for call in r["result"] for name in call)
    files: dict[str, dict[str, Any]] = {}
    for row in rows:
        group = "live" if row["category"].startswith("live_") else "non_live"
        files.setdefault(f"{group}/BFCL_v4_{row['category']}_result.json", {})[row["id"]] = row["result"]
    for name, results in files.items():
        path = tmp_path / "in" / "gpt-4o-2024-11-20-FC" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps({"id": i, "result": r}) + "\n" for i, r in results.items()))
    verdicts = _import_score(tmp_path / "in", tmp_path / "run")
    assert verdicts == {r["id"]: r["upstream_valid"] for r in rows}  # upstream's own verdicts on FC files
    res = runner.invoke(app, ["export", "bfcl", str(tmp_path / "run"), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert "bfcl evaluate --model gpt-4o-2024-11-20-FC" in res.output  # an fc run's default: a name BFCL knows
    back = {
        str(p.relative_to(tmp_path / "out" / "gpt-4o-2024-11-20-FC")): {
            e["id"]: [{n: json.loads(a) for n, a in c.items()} for c in e["result"]]
            for e in map(json.loads, p.read_text().splitlines())
        }
        for p in (tmp_path / "out" / "gpt-4o-2024-11-20-FC").rglob("*_result.json")
    }
    sent = {
        f: {i: [{n: json.loads(a) for n, a in c.items()} for c in r] for i, r in res_.items()}
        for f, res_ in files.items()
    }
    assert back == sent  # the underscored names again, as the handler wrote them


def test_function_calling_answers_with_text_export_their_calls(tmp_path: Path) -> None:
    """An fc answer that carries a sentence and calls: BFCL's FC handlers write the calls (the text is
    dropped) whenever the message has any, so the export does too; upstream's verdicts on those very
    lines (``bfcl_fc_oracle_verdicts.jsonl``) hold for the re-import. Writing the text instead made
    every such line ``decoder_failed`` in ``bfcl evaluate``."""
    rows = [json.loads(line) for line in FC_ORACLE_ROWS.read_text().splitlines()]
    folder = tmp_path / "in" / "gpt-4o-2024-11-20-FC"
    for row in rows:
        group = "live" if row["category"].startswith("live_") else "non_live"
        path = folder / group / f"BFCL_v4_{row['category']}_result.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(json.dumps({"id": row["id"], "result": row["result"]}) + "\n")
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "in"), "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    preds = tmp_path / "run" / "predictions.jsonl"
    recs = [json.loads(x) for x in preds.read_text().splitlines()]
    assert all(r["prediction"]["tool_calls"] for r in recs)
    for r in recs:  # what an fc run of a model that talks while it calls records
        r["prediction"]["raw_output"] = "Let me look that up."
    preds.write_text("".join(json.dumps(r) + "\n" for r in recs))
    res = runner.invoke(app, ["export", "bfcl", str(tmp_path / "run"), "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    exported = {
        e["id"]: e["result"]
        for p in (tmp_path / "out").rglob("*_result.json")
        for e in map(json.loads, p.read_text().splitlines())
    }
    assert len(exported) == len(rows) == 31
    for row in rows:
        sent = [{n: json.loads(a) for n, a in c.items()} for c in row["result"]]
        assert isinstance(exported[row["id"]], list)
        assert [{n: json.loads(a) for n, a in c.items()} for c in exported[row["id"]]] == sent
    verdicts = _import_score(tmp_path / "out", tmp_path / "again")
    assert verdicts == {r["id"]: r["upstream_valid"] for r in rows}


# The files a default `bfcl generate` (every category) writes besides those robustcall scores:
# <result dir>/<model>/<group>/BFCL_v4_<category>_result.json, memory one level deeper with its prereq
# results (bfcl_eval: base_handler.write, utils.get_directory_structure_by_id, category_mapping).
UNSCORED_FILES = {
    "agentic/memory/kv/BFCL_v4_memory_kv_prereq_result.json": "memory_kv_prereq_0-customer-0",
}
JAVA_FILES = {
    "non_live/BFCL_v4_simple_java_result.json": "simple_java_0",
    "non_live/BFCL_v4_simple_javascript_result.json": "simple_javascript_0",
}
"""Text answers of the Java / JavaScript categories from an FC model: BFCL's FC handler decodes no
call from text (wrong), so no tree-sitter parser is needed to read them."""
WRONG_EXTRA_FILES = {
    "format_sensitivity/BFCL_v4_format_sensitivity_result.json": (
        "format_sensitivity_0:ret_fmt=python&tool_call_tag=True&func_doc_fmt=python&prompt_fmt=plaintext"
        "&style=classic:simple_python_58"
    ),
    "agentic/BFCL_v4_web_search_base_result.json": "web_search_base_0",
    "agentic/BFCL_v4_web_search_no_snippet_result.json": "web_search_no_snippet_0",
    "agentic/memory/kv/BFCL_v4_memory_kv_result.json": "memory_kv_0-customer-0",
    "live/BFCL_v4_live_relevance_result.json": "live_relevance_0-0-0",
    "multi_turn/BFCL_v4_multi_turn_base_result.json": "multi_turn_base_0",
    "multi_turn/BFCL_v4_multi_turn_miss_func_result.json": "multi_turn_miss_func_0",
    "multi_turn/BFCL_v4_multi_turn_miss_param_result.json": "multi_turn_miss_param_0",
    "multi_turn/BFCL_v4_multi_turn_long_context_result.json": "multi_turn_long_context_0",
}
"""Files of categories scored beyond the single-turn ten, with answers BFCL scores wrong: the FC handler
decodes no call from text (relevance: no call made) nor from a list of strings (multi-turn: no turn
decoded, one turn given where the task has several: ``multi_turn:force_terminated``)."""


def _bfcl_run_folder(root: Path, model: str) -> dict[str, bool]:
    """A default BFCL run of an FC model: the FC oracle answers (upstream's verdicts), answers whose
    argument strings are not JSON (JavaScript code, a `]` closing an object) and every category's file
    robustcall does not score. Returns BFCL's verdict per scored id."""
    from robustcall.sources._bfcl import load_bfcl

    rows = [json.loads(line) for line in FC_ORACLE_ROWS.read_text().splitlines()]
    first = {}
    for s in load_bfcl().samples:
        first.setdefault(s.category, s.source.original_id)
    not_json = {  # BFCL's FC decoder fails on each: no call, right on irrelevance, `decoder_failed` elsewhere
        first["simple"]: ('{"base": 10, "height": 5]', False),
        first["multiple"]: ("function (a, b) { return a + b; }", False),
        first["irrelevance"]: ("{'query': 'weather'}", True),
        first["live_irrelevance"]: ('{"code": () => fetch("/x")}', True),
    }
    answers: dict[str, Any] = {r["id"]: r["result"] for r in rows}
    answers |= {i: [{"some_function": args}] for i, (args, _) in not_json.items()}
    files: dict[str, list[str]] = {}
    for i, result in answers.items():
        category = next(c for c in BFCL_CATEGORIES.values() if re.fullmatch(rf"{c}_\d+(-\d+-\d+)?", i))
        group = "live" if category.startswith("live_") else "non_live"
        line = json.dumps(
            {"id": i, "result": result, "input_token_count": 90, "output_token_count": 12, "latency": 0.8}
        )
        files.setdefault(f"{group}/BFCL_v4_{category}_result.json", []).append(line)
    for name, i in (UNSCORED_FILES | WRONG_EXTRA_FILES | JAVA_FILES).items():
        result = [[["get_weather(city='Paris')"]]] if "multi_turn" in name else "I cannot help with that."
        files[name] = [json.dumps({"id": i, "result": result, "latency": 0.8})]
    for name, lines in files.items():
        path = root / model / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
    extra = {i: False for i in (WRONG_EXTRA_FILES | JAVA_FILES).values()}
    return {r["id"]: r["upstream_valid"] for r in rows} | {i: ok for i, (_, ok) in not_json.items()} | extra


def test_a_default_bfcl_run_folder_imports_every_answer_it_scores(tmp_path: Path) -> None:
    """docs/interop.md's lines on a default `bfcl generate` result folder: the categories robustcall
    does not score are skipped with one line each, answers BFCL cannot decode are scored as BFCL scores
    them, the verdicts equal BFCL's; `--categories` chooses."""
    expected = _bfcl_run_folder(tmp_path / "result", "gpt-4o-2024-11-20-FC")
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "result"), "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    skipped = [line for line in res.output.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == len(UNSCORED_FILES)
    assert (
        sum(line.endswith("memory prerequisite conversations (bfcl evaluate does not score them)") for line in skipped)
        == 1
    )
    assert "read BFCL v4 result files" in res.output
    imported = "46 records imported (8 answers BFCL cannot decode"
    assert imported in " ".join(res.output.split())
    res = runner.invoke(app, ["score", str(tmp_path / "run"), "--bootstrap", "100"])
    assert res.exit_code == 0, res.output
    verdicts = [json.loads(x) for x in (tmp_path / "run" / "scores.jsonl").read_text().splitlines()]
    assert {v["id"].split("__")[-1]: v["correct"] for v in verdicts} == expected
    assert sum(expected.values()) == 9 + 2
    assert sum("BFCL cannot decode the answer: arguments of some_function are not JSON" in v.get("detail", "")
               for v in verdicts) == 4  # fmt: skip

    some = ["--out", str(tmp_path / "some"), "--categories", "simple,irrelevance"]
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "result"), *some])
    assert res.exit_code == 0, res.output
    ids = [
        json.loads(x)["source"]["original_id"]
        for x in (tmp_path / "some" / "predictions.jsonl").read_text().splitlines()
    ]
    assert sorted(ids) == sorted(i for i in expected if i.startswith(("simple_python_", "irrelevance_")))
    assert sum(line.startswith("skipped ") and "not in --categories" in line for line in res.output.splitlines()) == 19

    res = runner.invoke(
        app, ["import", "bfcl", str(tmp_path / "result"), "--out", str(tmp_path / "x"), "--categories", "memory"]
    )
    assert res.exit_code == 2 and "does not score BFCL category 'memory'" in res.output
    assert not (tmp_path / "x").exists()


def test_a_result_folder_of_several_models_is_refused_in_one_line(tmp_path: Path) -> None:
    _bfcl_run_folder(tmp_path / "result", "gpt-4o-2024-11-20-FC")
    _bfcl_run_folder(tmp_path / "result", "other-model-FC")
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "result"), "--out", str(tmp_path / "run")])
    assert res.exit_code != 0 and "holds the results of 2 models (gpt-4o-2024-11-20-FC, other-model-FC)" in res.output
    assert not (tmp_path / "run").exists()
    res = runner.invoke(
        app, ["import", "bfcl", str(tmp_path / "result" / "other-model-FC"), "--out", str(tmp_path / "run")]
    )
    assert res.exit_code == 0, res.output
