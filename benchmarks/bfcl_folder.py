"""A whole ``bfcl generate`` result folder made from the bfcl-eval wheel's ground truth, right and wrong.

Standard library only (the oracle venv runs it too). Function-calling shape, as BFCL's FC handlers
write it (names with a dot written with ``_``), for the model ``gpt-4o-2024-11-20-FC``:

- every single-turn entry with a ground truth (the ten v3 categories, ``simple_java``,
  ``simple_javascript``): the first acceptable value of each parameter; every third entry mutated
  (its first parameter's value changed, or a parameter dropped), every seventh answered in text;
- ``irrelevance`` / ``live_irrelevance``: a text answer, every fifth a call; ``live_relevance``: a call,
  every fourth a text answer;
- the four multi-turn categories: per task one variant of ``bfcl_mt_corpus.py`` in turn (right ones and
  mutations);
- the five agentic ones (memory kv / vector / rec_sum, web search base / no snippet): per entry one
  kind of ``bfcl_agentic_oracle.py`` in turn;
- in a second model folder, ``gpt-4o-2024-11-20`` (a prompting handler), ``format_sensitivity``: per
  original entry and configuration the calls in the configuration's return format (python, JSON,
  verbose or concise XML, in ``<TOOLCALL>`` when asked), some values changed, some in the wrong
  format or without the tag.

usage: python bfcl_folder.py WHEEL OUT_DIR
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import bfcl_agentic_oracle
import bfcl_mt_corpus

from robustcall.interop._bfcl_scores import FORMAT_CONFIGS

MODEL = "gpt-4o-2024-11-20-FC"
PROMPT_MODEL = "gpt-4o-2024-11-20"
"""The prompting model whose folder holds the format_sensitivity answers (text in each configuration's format)."""
AST = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
       "live_parallel", "live_parallel_multiple", "simple_java", "simple_javascript")  # fmt: skip
_DATA = "bfcl_eval/data"


def _first(options: Any) -> Any:
    if not isinstance(options, list):
        return options
    for o in options:
        if o != "":
            return _canonical(o)
    return None


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in ((k, _first(o)) for k, o in value.items()) if v is not None}
    return value


def _group(category: str) -> str:
    if category == "format_sensitivity":
        return category
    if category.startswith("multi_turn"):
        return "multi_turn"
    if category.startswith("memory_"):
        return f"agentic/memory/{category.removeprefix('memory_')}"
    if category.startswith("web_search"):
        return "agentic"
    return "live" if category.startswith("live_") else "non_live"


def _lines(zf: zipfile.ZipFile, member: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in zf.read(member).decode("utf-8").splitlines() if x.strip()]


def _ast_result(n: int, gold: list[dict[str, Any]]) -> Any:
    calls = _gold_calls(n, gold)
    if n % 7 == 3:
        return "I would call " + calls[0][0]
    return [{name.replace(".", "_"): json.dumps(args)} for name, args in calls]


def _gold_calls(n: int, gold: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The first acceptable value per parameter; every third entry's first value changed (or dropped)."""
    calls = []
    for call in gold:
        ((name, params),) = call.items()
        args = {k: v for k, v in ((k, _first(o)) for k, o in params.items()) if v is not None}
        calls.append((name, args))
    if n % 3 == 1 and calls[0][1]:
        name, args = calls[0]
        key = next(iter(args))
        value = args[key]
        args = dict(args)
        if isinstance(value, bool):
            args[key] = not value
        elif isinstance(value, (int, float)):
            args[key] = value + 1
        elif isinstance(value, str):
            args[key] = value + "x"
        else:
            del args[key]
        calls[0] = (name, args)
    return calls


CONFIGS = FORMAT_CONFIGS  # BFCL's 26 format-sensitivity configurations, in its order


def _xml_type(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "float"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, dict):
        return "dict"
    return "string"


def _xml_value(v: Any) -> str:
    text = repr(v) if isinstance(v, (list, tuple, dict)) else str(v)
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _render(calls: list[tuple[str, dict[str, Any]]], fmt: str) -> str:
    if fmt == "python":
        return "[" + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls) + "]"
    if fmt == "json":
        return json.dumps([{"function": n, "parameters": a} for n, a in calls])
    if fmt == "verbose_xml":
        body = "".join(
            f'<function name="{n}"><params>'
            + "".join(f'<param name="{k}" value="{_xml_value(v)}" type="{_xml_type(v)}"/>' for k, v in a.items())
            + "</params></function>"
            for n, a in calls
        )
    else:
        body = "".join(
            f'<function name="{n}">'
            + "".join(f'<param name="{k}" type="{_xml_type(v)}">{_xml_value(v)}</param>' for k, v in a.items())
            + "</function>"
            for n, a in calls
        )
    return f"<functions>{body}</functions>"


def _format_entries(wheel: str) -> list[dict[str, Any]]:
    """format_sensitivity: per (original entry, configuration) the gold calls in the configuration's
    return format (inside <TOOLCALL> when it asks), every third with a changed value, every fifth in
    the python format whatever the configuration asks."""
    with zipfile.ZipFile(wheel) as zf:
        ids = json.loads(zf.read(f"{_DATA}/BFCL_v4_format_sensitivity.json"))
        gold: dict[str, Any] = {}  # in BFCL's order: per category of the id file, the data file's order
        for category, wanted in ids.items():
            for g in _lines(zf, f"{_DATA}/possible_answer/BFCL_v4_{category}.json"):
                if g["id"] in wanted:
                    gold[g["id"]] = g["ground_truth"]
    entries = []
    index = 0
    for original in gold:
        for config in CONFIGS:
            calls = _gold_calls(index, gold[original])
            fmt = config.split("&")[0].split("=")[1]
            text = _render(calls, "python" if index % 5 == 4 else fmt)
            if "tool_call_tag=True" in config and index % 7 != 5:
                text = f"<TOOLCALL>{text}</TOOLCALL>"
            entries.append({"id": f"format_sensitivity_{index}:{config}:{original}", "result": text})
            index += 1
    return entries


def build(wheel: str, out: Path) -> dict[str, int]:
    files: dict[str, list[dict[str, Any]]] = {}
    with zipfile.ZipFile(wheel) as zf:
        for category in AST:
            gts = _lines(zf, f"{_DATA}/possible_answer/BFCL_v4_{category}.json")
            files[category] = [{"id": g["id"], "result": _ast_result(n, g["ground_truth"])} for n, g in enumerate(gts)]
        for category in ("irrelevance", "live_irrelevance", "live_relevance"):
            qs = _lines(zf, f"{_DATA}/BFCL_v4_{category}.json")
            entries = []
            for n, q in enumerate(qs):
                call = n % 5 == 0 if "irrelevance" in category else n % 4 != 0
                name = q["function"][0]["name"].replace(".", "_") if q["function"] else "f"
                entries.append({"id": q["id"], "result": [{name: "{}"}] if call else "I cannot help with that."})
            files[category] = entries
    rows = bfcl_mt_corpus.entries(wheel)
    by_task: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r["shape"] == "fc":
            by_task.setdefault(r["id"], []).append(r)
    for n, (task, variants) in enumerate(by_task.items()):
        pick = variants[n % len(variants)]
        files.setdefault(pick["category"], []).append({"id": task, "result": pick["result"]})
    prompt_file = out / PROMPT_MODEL / "format_sensitivity" / "BFCL_v4_format_sensitivity_result.json"
    prompt_file.parent.mkdir(parents=True, exist_ok=True)
    fs = _format_entries(wheel)
    prompt_file.write_text("".join(json.dumps(e) + "\n" for e in fs), encoding="utf-8")
    for n, (category, bfcl_id, gold) in enumerate(bfcl_agentic_oracle.entries(wheel)):
        kinds = bfcl_agentic_oracle.answers(gold, "fc")
        result = list(kinds.values())[n % len(kinds)]
        files.setdefault(category, []).append({"id": bfcl_id, "result": result})
    counts = {}
    for category, entries in files.items():
        path = out / MODEL / _group(category) / f"BFCL_v4_{category}_result.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
        counts[category] = len(entries)
    return counts


if __name__ == "__main__":
    got = build(sys.argv[1], Path(sys.argv[2]))
    print(f"{sum(got.values())} entries in {len(got)} files")
