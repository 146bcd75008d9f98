"""A scored run's BFCL verdicts in ``bfcl evaluate``'s score-folder layout, to diff file by file.

``bfcl evaluate`` writes ``<score dir>/<model>/<group>/BFCL_v4_<category>_score.json``: a first line
``{"accuracy", "correct_count", "total_count"}``, then one line per wrong entry (``id``,
``model_name``, ``test_category``, ``valid``, and its ``error_type``: top level for single-turn
categories, under ``error`` for multi-turn and agentic ones), and the CSVs ``data_non_live.csv``,
``data_live.csv``, ``data_multi_turn.csv``, ``data_agentic.csv`` and ``data_overall.csv`` (accuracies as ``12.34%``,
categories not scored ``N/A``, combined as BFCL combines them: unweighted means, the live summary
weighted by entry counts, the overall accuracy weighted 10/10/10/30/40 over non-live, live,
irrelevance, multi-turn and agentic). Here the same files come from a run's ``scores.jsonl``: only
clean ``bfcl_v3`` records count. What BFCL's files carry beyond verdicts (the prompt, the raw and
decoded answer, cost and latency, the model's link) is not written: cost, latency, link,
organisation and license read ``N/A``.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from robustcall.core import PREDICTIONS, SCORES, PredictionRecord, Verdict, read_checkpoint, record_key
from robustcall.envs import MULTI_TURN_CATEGORIES
from robustcall.interop._bfcl_files import AGENTIC_CATEGORIES, FC_TEXT_ERROR, BfclFileError, bfcl_model_dir
from robustcall.sources import BFCL_BENCHMARK, BFCL_CATEGORIES, fetch_bfcl

_DECODE_FAILED = "BFCL cannot decode the answer"
_NO_CALL_DECODED = "BFCL decodes no call in the answer"


def _group(category: str) -> str:
    """BFCL's ``get_directory_structure_by_category``."""
    if category in MULTI_TURN_CATEGORIES:
        return "multi_turn"
    if category.startswith("memory_"):
        return f"agentic/memory/{category.removeprefix('memory_')}"
    if category.startswith("web_search"):
        return "agentic"
    if category == "format_sensitivity":
        return "format_sensitivity"
    return "live" if category.startswith("live_") else "non_live"


def _nested_error(category: str) -> bool:
    """BFCL writes a multi-turn or agentic entry's ``error_type`` under ``error``."""
    return category in MULTI_TURN_CATEGORIES or category in AGENTIC_CATEGORIES


def bfcl_error_type(category: str, verdict: Verdict, rec: PredictionRecord) -> str:
    """The ``error_type`` BFCL's score file gives a wrong entry, from robustcall's verdict."""
    detail = verdict.detail or ""
    decode = rec.prediction.error_kind in ("model_format", "infra")
    if "irrelevance" in category:
        return "irrelevance_error:decoder_success"
    if category == "live_relevance":
        return "relevance_error:decoder_failed"
    if _nested_error(category):
        return detail
    if decode and (_DECODE_FAILED in detail or FC_TEXT_ERROR in detail or rec.prediction.error_kind == "infra"):
        return "ast_decoder:decoder_failed"
    if decode and _NO_CALL_DECODED in detail:
        return "ast_decoder:decoder_wrong_output_format"
    return detail.split(";")[0]


@cache
def _entry_count(category: str) -> int:
    """Entries of a category in the wheel (BFCL counts a category not evaluated with its size)."""
    base = (
        "memory" if category.startswith("memory_") else "web_search" if category.startswith("web_search") else category
    )
    with zipfile.ZipFile(fetch_bfcl(quiet=True)) as zf:
        text = zf.read(f"bfcl_eval/data/BFCL_v4_{base}.json").decode("utf-8")
    return sum(1 for line in text.splitlines() if line.strip())


def export_bfcl_scores(
    run_dir: Path,
    out: Path,
    *,
    model_dir: str | None = None,
    records: Iterable[PredictionRecord] | None = None,
    verdicts: Iterable[Verdict] | None = None,
) -> dict[str, tuple[int, int]]:
    """Write BFCL's score files and CSVs for the scored run ``run_dir`` under ``out``; return
    ``(correct, total)`` per category. ``records`` and ``verdicts``: the run's predictions and
    scores as the caller just wrote them (``import bfcl --bfcl-out``), not read back."""
    if not (run_dir / PREDICTIONS).is_file():
        raise BfclFileError(f"{run_dir / PREDICTIONS} not found: is {run_dir} a run directory?")
    if not (run_dir / SCORES).is_file():
        raise BfclFileError(f"{run_dir / SCORES} not found: run `robustcall score {run_dir}` first")
    model = bfcl_model_dir(run_dir, model_dir)
    if records is None:
        records = read_checkpoint(run_dir / PREDICTIONS, PredictionRecord)
    if verdicts is None:
        verdicts = read_checkpoint(run_dir / SCORES, Verdict)
    try:
        return write_bfcl_scores(out, model, records, verdicts)
    except BfclFileError:
        raise BfclFileError(f"{run_dir} holds no scored clean BFCL record") from None


def write_bfcl_scores(
    out: Path, model: str, records: Iterable[PredictionRecord], verdicts: Iterable[Verdict]
) -> dict[str, tuple[int, int]]:
    """BFCL's score folder under ``out/<model>/`` and its CSVs from records and their verdicts;
    ``(correct, total)`` per category. Only clean BFCL records count (the last of a key)."""
    return write_score_folder(out, model, category_scores(model, records, verdicts))


CategoryScore = dict[str, Any]
"""One category's score file: ``header`` (its first line) and ``wrong`` (the lines after it)."""


def category_scores(
    model: str, records: Iterable[PredictionRecord], verdicts: Iterable[Verdict]
) -> dict[str, CategoryScore]:
    """Per BFCL category, its score file's lines (plain data: a forked part sends them back)."""
    by_id = {r.id: r for r in records}
    latest = {record_key(r): r for r in by_id.values()}
    by_category: dict[str, list[tuple[PredictionRecord, Verdict]]] = {}
    for verdict in verdicts:
        rec = by_id.get(verdict.id)
        if rec is None or rec.benchmark != BFCL_BENCHMARK or rec.perturbation.type != "clean":
            continue
        if latest.get(record_key(rec)) is not rec:
            continue
        category = BFCL_CATEGORIES.get(rec.category, rec.category)
        by_category.setdefault(category, []).append((rec, verdict))
    scores: dict[str, CategoryScore] = {}
    for category, pairs in by_category.items():
        pairs.sort(key=lambda p: _id_key(p[0].source.original_id))
        wrong = []
        for rec, verdict in pairs:
            ok = verdict.correct
            if ok is None:  # an infra error: BFCL decodes its text and fails (right only on irrelevance)
                ok = "irrelevance" in category
            if not ok:
                wrong.append(_wrong_line(category, model, rec, verdict))
        total = len(pairs)
        correct = total - len(wrong)
        header: dict[str, Any] = {"accuracy": correct / total, "correct_count": correct, "total_count": total}
        if category == "format_sensitivity":
            header |= _format_stats(pairs, {w["id"] for w in wrong})
        scores[category] = {"header": header, "wrong": wrong}
    return scores


def write_score_folder(out: Path, model: str, scores: dict[str, CategoryScore]) -> dict[str, tuple[int, int]]:
    """Write each category's score file under ``out/<model>/<group>/`` and the ``data_*.csv`` tables;
    ``(correct, total)`` per category."""
    if not scores:
        raise BfclFileError("no scored clean BFCL record")
    counts: dict[str, tuple[int, int]] = {}
    for category, score in sorted(scores.items()):
        header = score["header"]
        folder = out / model / _group(category)
        folder.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(x, ensure_ascii=False) for x in [header, *score["wrong"]]]
        (folder / f"BFCL_v4_{category}_score.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
        counts[category] = (header["correct_count"], header["total_count"])
    fs_header = scores["format_sensitivity"]["header"] if "format_sensitivity" in scores else {}
    _write_csvs(out, model, counts, fs_header)
    return counts


def _format_stats(pairs: list[tuple[PredictionRecord, Verdict]], wrong: set[str]) -> dict[str, Any]:
    """BFCL's format-sensitivity header fields: per configuration its accuracy and counts, and the
    spread of those accuracies (max delta, variance, standard deviation, in points, rounded to 2)."""
    import statistics

    stats: dict[str, list[int]] = {}
    for rec, _ in pairs:
        cfg = str(rec.source.extra.get("bfcl_config", ""))
        got = stats.setdefault(cfg, [0, 0])
        got[0] += rec.source.original_id not in wrong
        got[1] += 1
    by_config = {c: {"accuracy": k / n, "correct_count": k, "total_count": n} for c, (k, n) in stats.items()}
    accs = [v["accuracy"] for v in by_config.values()]
    spread = len(accs) > 1
    return {
        "accuracy_max_delta": round((max(accs) - min(accs)) * 100, 2) if spread else 0.0,
        "accuracy_variance": round(statistics.variance(accs) * 100**2, 2) if spread else 0.0,
        "accuracy_std": round(statistics.stdev(accs) * 100, 2) if spread else 0.0,
        **by_config,
    }


FORMAT_CONFIGS = [
    f"ret_fmt={r}&tool_call_tag={t}&func_doc_fmt={d}&prompt_fmt=plaintext&style=classic"
    for r in ("python", "json", "verbose_xml", "concise_xml")
    for t in ("True", "False")
    for d in ("python", "xml", "json")
] + [
    "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=markdown&style=classic",
    "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=experimental",
]  # fmt: skip
"""BFCL's 26 format-sensitivity configurations (``get_all_format_sensitivity_configs``), in its order."""


def _wrong_line(category: str, model: str, rec: PredictionRecord, verdict: Verdict) -> dict[str, Any]:
    error_type = bfcl_error_type(category, verdict, rec)
    line: dict[str, Any] = {
        "id": rec.source.original_id,
        "model_name": model,
        "test_category": category,
        "valid": False,
    }
    if _nested_error(category):
        line["error"] = {"error_type": error_type}
    else:
        line["error_type"] = error_type
    return line


def _id_key(bfcl_id: str) -> tuple[str, list[int]]:
    """BFCL's ``sort_key``: a format-sensitivity id by its part before the first ``:``."""
    stem, _, tail = bfcl_id.split(":")[0].rpartition("_")
    return stem, [int(p) for p in tail.split("-") if p.isdigit()]


Score = dict[str, Any]


def _score(counts: dict[str, tuple[int, int]], category: str) -> Score:
    if category in counts:
        correct, total = counts[category]
        return {"accuracy": correct / total, "total_count": total, "display": correct / total}
    return {"accuracy": 0.0, "total_count": _entry_count(category), "display": "N/A"}


def _unweighted(scores: list[Score], na: bool = True) -> Score:
    acc = sum(s["accuracy"] for s in scores) / len(scores)
    missing = any(s["display"] == "N/A" for s in scores)
    return {"accuracy": acc, "total_count": sum(s["total_count"] for s in scores),
            "display": "N/A" if missing and na else acc}  # fmt: skip


def _weighted(scores: list[Score], na: bool = True) -> Score:
    total = sum(s["total_count"] for s in scores)
    acc = sum(s["accuracy"] * s["total_count"] for s in scores) / total
    missing = any(s["display"] == "N/A" for s in scores)
    return {"accuracy": acc, "total_count": total, "display": "N/A" if missing and na else acc}


def _na() -> Score:
    return {"accuracy": 0.0, "total_count": 0, "display": "N/A"}


def _cell(score: Score) -> str:
    shown = score["display"]
    return shown if isinstance(shown, str) else f"{shown * 100:.2f}%"


def _write_csvs(out: Path, model: str, counts: dict[str, tuple[int, int]], fs: dict[str, Any]) -> None:
    s = {c: _score(counts, c) for c in (*BFCL_CATEGORIES.values(), "simple_java", "simple_javascript",
                                        "live_relevance", *MULTI_TURN_CATEGORIES, *AGENTIC_CATEGORIES)}  # fmt: skip
    simple = _unweighted([s["simple_python"], s["simple_java"], s["simple_javascript"]])
    non_live_parts = [simple, s["multiple"], s["parallel"], s["parallel_multiple"]]
    non_live, non_live_summary = _unweighted(non_live_parts, na=False), _unweighted(non_live_parts)
    live_parts = [s["live_simple"], s["live_multiple"], s["live_parallel"], s["live_parallel_multiple"]]
    live, live_summary = _weighted(live_parts, na=False), _weighted(live_parts)
    multi = _unweighted([s[c] for c in MULTI_TURN_CATEGORIES], na=False)
    web = _unweighted([s["web_search_base"], s["web_search_no_snippet"]])
    memory = _unweighted([s["memory_kv"], s["memory_vector"], s["memory_rec_sum"]])
    agentic = _unweighted([web, memory], na=False)
    irrelevance = _unweighted([s["irrelevance"], s["live_irrelevance"]])
    parts = [non_live, live, irrelevance, multi, agentic]
    weights = [10, 10, 10, 30, 40]
    overall_acc = sum(p["accuracy"] * w / sum(weights) for p, w in zip(parts, weights, strict=True))
    overall: Score = {"accuracy": overall_acc, "total_count": 0, "display": overall_acc}
    na = "N/A"
    tables = {
        "data_non_live.csv": (
            ["Rank", "Model", "Non-Live Overall Acc", "AST Summary", "Simple AST", "Python Simple AST",
             "Java Simple AST", "JavaScript Simple AST", "Multiple AST", "Parallel AST", "Parallel Multiple AST",
             "Irrelevance Detection"],
            [non_live, non_live_summary, simple, s["simple_python"], s["simple_java"], s["simple_javascript"],
             s["multiple"], s["parallel"], s["parallel_multiple"], s["irrelevance"]],
        ),
        "data_live.csv": (
            ["Rank", "Model", "Live Overall Acc", "AST Summary", "Python Simple AST", "Python Multiple AST",
             "Python Parallel AST", "Python Parallel Multiple AST", "Irrelevance Detection", "Relevance Detection"],
            [live, live_summary, *live_parts, s["live_irrelevance"], s["live_relevance"]],
        ),
        "data_agentic.csv": (
            ["Rank", "Model", "Agentic Overall Acc", "Web Search Summary", "Web Search Base", "Web Search No Snippet",
             "Memory Summary", "Memory KV", "Memory Vector", "Memory Recursive Summarization"],
            [agentic, web, s["web_search_base"], s["web_search_no_snippet"], memory, s["memory_kv"], s["memory_vector"],
             s["memory_rec_sum"]],
        ),
        "data_multi_turn.csv": (
            ["Rank", "Model", "Multi Turn Overall Acc", "Base", "Miss Func", "Miss Param", "Long Context"],
            [multi, *(s[c] for c in MULTI_TURN_CATEGORIES)],
        ),
    }  # fmt: skip
    fs_delta, fs_std = (str(fs["accuracy_max_delta"]), str(fs["accuracy_std"])) if fs else ("N/A", "N/A")
    fs_cells = [_cell({"display": fs[c]["accuracy"]}) if c in fs else "N/A" for c in FORMAT_CONFIGS]
    fs_header = ["Rank", "Model", "Format Sensitivity Max Delta", "Format Sensitivity Standard Deviation",
                 *(f"Config {c}" for c in FORMAT_CONFIGS)]  # fmt: skip
    fs_row = ["1", model, fs_delta, fs_std, *fs_cells]
    (out / "data_format_sensitivity.csv").write_text(",".join(fs_header) + "\n" + ",".join(fs_row), encoding="utf-8")
    for name, (header, row) in tables.items():
        cells = ["1", model, *(_cell(x) for x in row)]
        (out / name).write_text(",".join(header) + "\n" + ",".join(cells), encoding="utf-8")
    overall_header = ["Rank", "Overall Acc", "Model", "Model Link", "Total Cost ($)", "Latency Mean (s)",
                      "Latency Standard Deviation (s)", "Latency 95th Percentile (s)", "Non-Live AST Acc",
                      "Non-Live Simple AST", "Non-Live Multiple AST", "Non-Live Parallel AST",
                      "Non-Live Parallel Multiple AST", "Live Acc", "Live Simple AST", "Live Multiple AST",
                      "Live Parallel AST", "Live Parallel Multiple AST", "Multi Turn Acc", "Multi Turn Base",
                      "Multi Turn Miss Func", "Multi Turn Miss Param", "Multi Turn Long Context", "Web Search Acc",
                      "Web Search Base", "Web Search No Snippet", "Memory Acc", "Memory KV", "Memory Vector",
                      "Memory Recursive Summarization", "Relevance Detection", "Irrelevance Detection",
                      "Format Sensitivity Max Delta", "Format Sensitivity Standard Deviation", "Organization",
                      "License"]  # fmt: skip
    overall_row = ["1", _cell(overall), model, na, na, na, na, na, _cell(non_live_summary), _cell(simple),
                   _cell(s["multiple"]), _cell(s["parallel"]), _cell(s["parallel_multiple"]), _cell(live),
                   *(_cell(x) for x in live_parts), _cell(multi), *(_cell(s[c]) for c in MULTI_TURN_CATEGORIES),
                   _cell(web), _cell(s["web_search_base"]), _cell(s["web_search_no_snippet"]), _cell(memory),
                   _cell(s["memory_kv"]), _cell(s["memory_vector"]), _cell(s["memory_rec_sum"]),
                   _cell(s["live_relevance"]), _cell(irrelevance), fs_delta, fs_std, na, na]  # fmt: skip
    (out / "data_overall.csv").write_text(",".join(overall_header) + "\n" + ",".join(overall_row), encoding="utf-8")
