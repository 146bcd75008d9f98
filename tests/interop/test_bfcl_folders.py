"""``robustcall import bfcl`` on the rest of a ``bfcl generate`` folder: the four multi-turn categories
(scored by BFCL's multi-turn checker, verdicts and ``error_type`` equal to upstream's committed ones),
``live_relevance``, and BFCL v3 result folders (ids mapped to today's); a version it cannot map is
refused in one line."""

from __future__ import annotations

import gc
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.sources import fetch_bfcl

ROOT = Path(__file__).parents[2]
ORACLE = ROOT / "tests" / "score" / "data" / "bfcl_mt_oracle_verdicts.jsonl"
FORMAT_ORACLE = ROOT / "tests" / "score" / "data" / "bfcl_format_oracle_wrong.jsonl"
runner = CliRunner()


def _write(folder: Path, files: dict[str, list[dict[str, Any]]]) -> None:
    for name, entries in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(e) + "\n" for e in entries))


def _import_score(folder: Path, run: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    res = runner.invoke(app, ["import", "bfcl", str(folder), "--out", str(run)])
    assert res.exit_code == 0, res.output
    scored = runner.invoke(app, ["score", str(run), "--bootstrap", "10"])
    assert scored.exit_code == 0, scored.output
    verdicts = [json.loads(x) for x in (run / "scores.jsonl").read_text().splitlines()]
    return res.output, {v["id"].split("__")[-1]: v for v in verdicts}


def test_multi_turn_result_files_get_upstreams_verdicts_and_error_types(
    tmp_path: Path, bfcl_mt_corpus: Callable[[int], list[dict[str, Any]]]
) -> None:
    oracle = {
        (o["id"], o["variant"], o["shape"]): o["error_type"] for o in map(json.loads, ORACLE.read_text().splitlines())
    }
    rows = bfcl_mt_corpus(4)
    cases = [("gold", "fc", "gpt-4o-2024-11-20-FC"), ("wrong_arg", "text", "my-model"),
             ("empty_turn", "fc", "my-model-FC"), ("missing_call", "text", "gpt-4o-2024-11-20")]  # fmt: skip
    for variant, shape, model in cases:
        files: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            if r["variant"] == variant and r["shape"] == shape:
                files.setdefault(f"{model}/multi_turn/BFCL_v4_{r['category']}_result.json", []).append(
                    {"id": r["id"], "result": r["result"], "latency": 1.0}
                )
        _write(tmp_path / variant, files)
        out, verdicts = _import_score(tmp_path / variant, tmp_path / f"run-{variant}")
        assert "read BFCL v4 result files" in out
        want = {i: oracle[(i, v, s)] for (i, v, s) in oracle if v == variant and s == shape and i in verdicts}
        assert len(want) == len(verdicts) == 16
        got = {i: (None if v["correct"] else v["detail"]) for i, v in verdicts.items()}
        assert got == want
        assert variant != "gold" or set(got.values()) == {None}
        _check_score_files(tmp_path / f"run-{variant}", tmp_path / f"scores-{variant}", want)


def _check_score_files(run: Path, out: Path, want: dict[str, str | None]) -> None:
    """`export bfcl-scores`: per category BFCL's score file (the summary line, then each wrong entry with
    its error_type under `error`, as BFCL nests it for multi-turn), ordered by id as BFCL orders them."""
    res = runner.invoke(app, ["export", "bfcl-scores", str(run), "--out", str(out), "--model-dir", "m"])
    assert res.exit_code == 0, res.output
    for category in ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"):
        lines = [
            json.loads(x)
            for x in (out / "m" / "multi_turn" / f"BFCL_v4_{category}_score.json").read_text().splitlines()
        ]
        mine = {i: e for i, e in want.items() if i.startswith(category + "_")}
        wrong = sorted((i for i, e in mine.items() if e is not None), key=lambda i: int(i.rsplit("_", 1)[1]))
        right = len(mine) - len(wrong)
        assert lines[0] == {"accuracy": right / len(mine), "correct_count": right, "total_count": len(mine)}
        assert [(x["id"], x["error"]["error_type"], x["valid"]) for x in lines[1:]] == [
            (i, mine[i], False) for i in wrong
        ]
    assert (out / "data_multi_turn.csv").read_text().splitlines()[0] == (
        "Rank,Model,Multi Turn Overall Acc,Base,Miss Func,Miss Param,Long Context"
    )


def test_live_relevance_is_right_when_at_least_one_call_is_made(tmp_path: Path) -> None:
    _write(tmp_path / "res", {"m/live/BFCL_v4_live_relevance_result.json": [
        {"id": "live_relevance_0-0-0", "result": "[generate_image(prompt='a masked woman')]"},
        {"id": "live_relevance_1-1-0", "result": "I cannot help with that."},
        {"id": "live_relevance_2-2-0", "result": "[]"},
    ]})  # fmt: skip
    _, verdicts = _import_score(tmp_path / "res", tmp_path / "run")
    assert {i: v["correct"] for i, v in verdicts.items()} == {
        "live_relevance_0-0-0": True, "live_relevance_1-1-0": False, "live_relevance_2-2-0": False}  # fmt: skip
    assert verdicts["live_relevance_1-1-0"]["detail"].startswith("relevance_error:decoder_failed; BFCL cannot decode")


def test_a_v3_folder_is_read_with_its_ids_mapped_and_says_so(tmp_path: Path) -> None:
    _write(tmp_path / "res", {
        "m/BFCL_v3_simple_result.json": [{"id": "simple_0", "result": "[calculate_triangle_area(base=10, height=5)]"},
                                         {"id": "simple_1", "result": "[math.factorial(number=5)]"}],
        "m/BFCL_v3_live_simple_result.json": [{"id": "live_simple_0-0-0", "result": "[]"}],
        "m/BFCL_v3_java_result.json": [{"id": "java_0", "result": [{"f": "{}"}]}],
        "m/BFCL_v3_exec_simple_result.json": [{"id": "exec_simple_0", "result": "[f(a=1)]"}],
    })  # fmt: skip
    out, verdicts = _import_score(tmp_path / "res", tmp_path / "run")
    assert "read BFCL v3 result files (ids mapped to today's: simple_N as simple_python_N, ...)" in " ".join(
        out.split()
    )
    assert "robustcall does not score BFCL category exec_simple" in out
    want = {"simple_python_0": True, "simple_python_1": True, "live_simple_0-0-0": False, "simple_java_0": False}
    assert {i: v["correct"] for i, v in verdicts.items()} == want


def test_a_folder_of_a_version_it_cannot_map_or_of_two_versions_is_refused_in_one_line(tmp_path: Path) -> None:
    _write(tmp_path / "v2", {"m/BFCL_v2_simple_result.json": [{"id": "simple_0", "result": "[]"}]})
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "v2"), "--out", str(tmp_path / "r2")])
    assert res.exit_code != 0 and "holds BFCL v2 result files (e.g. BFCL_v2_simple_result.json): robustcall reads" in (
        " ".join(res.output.split())
    )
    assert "Traceback" not in res.output and not (tmp_path / "r2").exists()
    v3 = {"m/BFCL_v3_simple_result.json": [{"id": "simple_0", "result": "[]"}]}
    _write(tmp_path / "both", v3 | {"m/BFCL_v4_simple_python_result.json": [{"id": "simple_python_0", "result": "[]"}]})
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "both"), "--out", str(tmp_path / "rb")])
    assert res.exit_code != 0 and "holds both BFCL v3 and v4 result files" in " ".join(res.output.split())


def test_imported_text_answers_are_decoded_as_bfcl_decodes_them(tmp_path: Path) -> None:
    """The two readings found on real answers (upstream's verdicts from the oracle venv): a subscript
    argument is its text (parallel_multiple_21's gold is the string ``"data['sales']"``: right), and
    ``f(a=1)()`` is a call without a name (``wrong_func_name``)."""
    subscript = ("[data_loading(file_path='dataset.csv'), linear_regression_fit(x=data['sales'], "
                 "y=data['future_sales'], return_residuals=True)]")  # fmt: skip
    _write(tmp_path / "res", {
        "m/non_live/BFCL_v4_parallel_multiple_result.json": [{"id": "parallel_multiple_21", "result": subscript}],
        "m/non_live/BFCL_v4_simple_python_result.json": [
            {"id": "simple_python_0", "result": "[calculate_triangle_area(base=10, height=5)()]"}],
    })  # fmt: skip
    _, verdicts = _import_score(tmp_path / "res", tmp_path / "run")
    assert verdicts["parallel_multiple_21"]["correct"] is True
    assert verdicts["simple_python_0"]["correct"] is False
    assert verdicts["simple_python_0"]["detail"] == "simple_function_checker:wrong_func_name"


def test_java_text_answers_without_the_parser_extra_are_skipped_in_one_line(tmp_path: Path) -> None:
    answer = "[GeometryPresentation.createPresentation(controller=mapController, parent=mapArea)]"
    java = {"my-model/BFCL_v4_simple_java_result.json": [{"id": "simple_java_0", "result": answer}]}
    _write(
        tmp_path / "res",
        java | {"my-model/BFCL_v4_simple_python_result.json": [{"id": "simple_python_0", "result": "[]"}]},
    )
    out, verdicts = _import_score(tmp_path / "res", tmp_path / "run")
    if importlib.util.find_spec("tree_sitter_java") is not None:
        assert verdicts["simple_java_0"]["correct"] is True
    else:
        needs = "its simple_java text answers need BFCL's tree-sitter parser: pip install 'robustcall[bfcl-java]'"
        assert needs in " ".join(out.split()) and "simple_java_0" not in verdicts


def test_format_sensitivity_answers_get_upstreams_verdicts_in_every_return_format(tmp_path: Path) -> None:
    """The first 260 entries of ``benchmarks/bfcl_folder.py``'s format_sensitivity file (10 originals x
    the 26 configurations: python, JSON, verbose and concise XML, with and without ``<TOOLCALL>``; some
    values changed, some in the wrong format or without the tag): the wrong ones and their error_type
    equal upstream's (committed from `bfcl_evaluate.py` on the whole file)."""
    spec = importlib.util.spec_from_file_location("bfcl_folder", ROOT / "benchmarks" / "bfcl_folder.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    entries = module._format_entries(str(fetch_bfcl(quiet=True)))[:260]
    _write(tmp_path / "res", {"gpt-4o-2024-11-20/format_sensitivity/BFCL_v4_format_sensitivity_result.json": entries})
    _, verdicts = _import_score(tmp_path / "res", tmp_path / "run")
    want = {o["id"]: o["error_type"] for o in map(json.loads, FORMAT_ORACLE.read_text().splitlines())}
    assert len(verdicts) == 260 and len(want) == 138
    res = runner.invoke(app, ["export", "bfcl-scores", str(tmp_path / "run"), "--out", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    path = tmp_path / "s" / "gpt-4o-2024-11-20" / "format_sensitivity" / "BFCL_v4_format_sensitivity_score.json"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert {x["id"]: x["error_type"] for x in lines[1:]} == want
    assert lines[0]["correct_count"] == 260 - 138 and len([k for k in lines[0] if k.startswith("ret_fmt=")]) == 26
    res = runner.invoke(app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")])
    assert res.exit_code == 0, res.output
    table = (tmp_path / "report" / "format_sensitivity.csv").read_text().splitlines()
    assert sum(",BFCL ret_fmt=" in row for row in table) == 26
    spread = f"{lines[0]['accuracy_max_delta']:.2f} / {lines[0]['accuracy_std']:.2f}"
    assert any(row.endswith(f"BFCL max delta / std (points),{spread},") for row in table)


def test_import_with_bfcl_out_scores_in_one_process_as_the_three_commands_do(
    tmp_path: Path, bfcl_mt_corpus: Callable[[int], list[dict[str, Any]]]
) -> None:
    """`import bfcl --bfcl-out DIR` (the records handed to the scorer and the export in memory) writes
    the same predictions, verdicts and BFCL score folder as `import`, `score`, `export bfcl-scores`."""
    rows = bfcl_mt_corpus(2)
    files: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r["shape"] == "fc" and r["variant"] in ("gold", "wrong_arg"):
            name = f"gpt-4o-2024-11-20-FC/multi_turn/BFCL_v4_{r['category']}_result.json"
            files.setdefault(name, []).append({"id": f"{r['id']}", "result": r["result"]})
    for entries in files.values():  # one entry per id: the gold answer, then a wrong one in its place
        entries[:] = list({e["id"]: e for e in entries}.values())
    files["gpt-4o-2024-11-20-FC/live/BFCL_v4_live_relevance_result.json"] = [
        {"id": "live_relevance_0-0-0", "result": [{"get_weather": '{"city": "Paris"}'}]},
        {"id": "live_relevance_1-1-0", "result": []},
    ]
    _write(tmp_path / "result", files)
    one = runner.invoke(
        app,
        [
            "import",
            "bfcl",
            str(tmp_path / "result"),
            "--out",
            str(tmp_path / "one"),
            "--bfcl-out",
            str(tmp_path / "s1"),
        ],
    )
    assert one.exit_code == 0, one.output
    assert gc.isenabled()  # the command pauses the cyclic collector while it runs, not after
    assert "live_relevance: 1/2 = 50.00%" in one.output
    assert (
        runner.invoke(app, ["import", "bfcl", str(tmp_path / "result"), "--out", str(tmp_path / "three")]).exit_code
        == 0
    )
    assert runner.invoke(app, ["score", str(tmp_path / "three"), "--bootstrap", "0"]).exit_code == 0
    res = runner.invoke(app, ["export", "bfcl-scores", str(tmp_path / "three"), "--out", str(tmp_path / "s3")])
    assert res.exit_code == 0, res.output
    for name in ("predictions.jsonl", "scores.jsonl", "summary.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "three" / name).read_bytes(), name
    written = sorted(p.relative_to(tmp_path / "s1") for p in (tmp_path / "s1").rglob("*") if p.is_file())
    assert written == sorted(p.relative_to(tmp_path / "s3") for p in (tmp_path / "s3").rglob("*") if p.is_file())
    assert len(written) == 5 + 6  # four multi-turn and one live score file, and the six data_*.csv
    for rel in written:
        assert (tmp_path / "s1" / rel).read_bytes() == (tmp_path / "s3" / rel).read_bytes(), rel


def test_bfcl_out_without_a_run_scores_as_bfcl_evaluate_on_one_core_or_two(
    tmp_path: Path, bfcl_mt_corpus: Callable[[int], list[dict[str, Any]]]
) -> None:
    """`import bfcl RESULT --bfcl-out DIR` without `--out` (bfcl evaluate's job: no run written) writes
    the score folder `--out RUN --bfcl-out DIR` writes, byte for byte, under the results' model name,
    whether the turn-based part is scored in a forked child or here."""
    from robustcall.interop import evaluate_bfcl_folder

    rows = bfcl_mt_corpus(2)
    files: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r["shape"] == "fc" and r["variant"] == "wrong_arg":
            files.setdefault(f"my-model-FC/multi_turn/BFCL_v4_{r['category']}_result.json", []).append(
                {"id": r["id"], "result": r["result"]}
            )
    files["my-model-FC/live/BFCL_v4_live_relevance_result.json"] = [
        {"id": "live_relevance_0-0-0", "result": [{"get_weather": '{"city": "Paris"}'}]},
        {"id": "live_relevance_1-1-0", "result": []},
    ]
    files["my-model-FC/non_live/BFCL_v4_simple_python_result.json"] = [
        {"id": "simple_python_0", "result": [{"calculate_triangle_area": '{"base": 10, "height": 5}'}]},
        {"id": "simple_python_1", "result": [{"math_factorial": '{"number": 5}'}]},
    ]
    _write(tmp_path / "result", files)
    with_run = runner.invoke(app, ["import", "bfcl", str(tmp_path / "result"), "--out", str(tmp_path / "run"),
                                   "--bfcl-out", str(tmp_path / "s1")])  # fmt: skip
    assert with_run.exit_code == 0, with_run.output
    alone = runner.invoke(app, ["import", "bfcl", str(tmp_path / "result"), "--bfcl-out", str(tmp_path / "s2")])
    assert alone.exit_code == 0, alone.output
    assert "records scored" in alone.output and "simple_python: 2/2 = 100.00%" in alone.output
    assert not (tmp_path / "s2" / "predictions.jsonl").exists()
    exported = runner.invoke(app, ["export", "bfcl-scores", str(tmp_path / "run"), "--out", str(tmp_path / "s3")])
    assert exported.exit_code == 0, exported.output
    for processes in (1, 2):
        done = evaluate_bfcl_folder(tmp_path / "result", tmp_path / f"p{processes}", processes=processes)
        assert done.model_dir == "my-model-FC" and done.records == 4 * 2 + 2 + 2
    written = sorted(p.relative_to(tmp_path / "s1") for p in (tmp_path / "s1").rglob("*") if p.is_file())
    assert len(written) == 4 + 2 + 6 and all(p.parts[0] == "my-model-FC" for p in written if p.suffix == ".json")
    for folder in ("s2", "s3", "p1", "p2"):
        got = sorted(p.relative_to(tmp_path / folder) for p in (tmp_path / folder).rglob("*") if p.is_file())
        assert got == written, folder
        for rel in written:
            assert (tmp_path / folder / rel).read_bytes() == (tmp_path / "s1" / rel).read_bytes(), (folder, rel)


def test_import_bfcl_needs_a_run_or_a_score_folder(tmp_path: Path) -> None:
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path)])
    assert res.exit_code == 2
    assert "give --out (a run to write), --bfcl-out (BFCL's score folder) or both" in res.output


def test_a_bad_line_in_a_forked_part_is_said_in_one_line(tmp_path: Path) -> None:
    """The parts run in forked children: a malformed line or an unknown id still ends the command
    with one line naming the file and line, as the import does."""
    good = {"id": "live_relevance_0-0-0", "result": []}
    files = {
        "m-FC/live/BFCL_v4_live_relevance_result.json": [good],
        "m-FC/multi_turn/BFCL_v4_multi_turn_base_result.json": [{"id": "multi_turn_base_999", "result": []}],
    }
    _write(tmp_path / "unknown", files)
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "unknown"), "--bfcl-out", str(tmp_path / "s")])
    assert res.exit_code != 0
    assert "BFCL_v4_multi_turn_base_result.json:1: id 'multi_turn_base_999' is not a BFCL v4" in res.output
    assert "Traceback" not in res.output
    bad = tmp_path / "bad" / "m-FC" / "live" / "BFCL_v4_live_relevance_result.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps(good) + "\n{not json\n")
    res = runner.invoke(app, ["import", "bfcl", str(tmp_path / "bad"), "--bfcl-out", str(tmp_path / "s2")])
    assert res.exit_code != 0 and f"{bad}:2: not JSON" in res.output.replace("\n", "")
    assert "Traceback" not in res.output


def test_the_console_script_leaves_after_bfcl_evaluates_job_with_every_line_said(tmp_path: Path) -> None:
    """Its files written, `import bfcl --bfcl-out` leaves without Python's teardown (cli._errors.
    skip_teardown): the exit status is 0 and the report's last line is not lost."""
    import subprocess
    import sys

    _write(tmp_path / "res", {"m-FC/live/BFCL_v4_live_relevance_result.json": [
        {"id": "live_relevance_0-0-0", "result": [{"get_weather": '{"city": "Paris"}'}]},
    ]})  # fmt: skip
    cmd = [sys.executable, "-m", "robustcall.cli.main", "import", "bfcl", str(tmp_path / "res"),
           "--bfcl-out", str(tmp_path / "s")]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.rstrip().endswith("1 score files and the data_*.csv tables")
    assert (tmp_path / "s" / "m-FC" / "live" / "BFCL_v4_live_relevance_score.json").is_file()
