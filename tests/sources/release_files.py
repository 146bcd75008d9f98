"""Files in the released RobustBench-TC's documented layout, a few records per type, for tests.

Records follow the release's record shape (``id, benchmark, category, perturbation {type, mdp_category,
variant}, conversation, tools, golden_answers, eval_config {method}``) with ``tools[].parameters`` as
JSON strings (the cards' dtype). One clean sample per source; each static type on every sample it
applies to (ToolEyes gets no Dup / Reward type, as in the paper)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from robustcall.core import STATIC_TYPES, type_info

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "The city."}},
    "required": ["city"],
}


def _tool(name: str, description: str = "Look a city up.") -> dict[str, Any]:
    return {"name": name, "description": description, "parameters": json.dumps(SCHEMA)}


def clean_records() -> list[dict[str, Any]]:
    def rec(
        rid: str, bench: str, query: str, tools: list[dict[str, Any]], gold: list[dict[str, Any]]
    ) -> dict[str, Any]:
        return {
            "id": rid,
            "benchmark": bench,
            "category": "simple",
            "perturbation": {"type": "clean", "mdp_category": "clean", "variant": None},
            "conversation": [{"role": "user", "content": query}],
            "tools": tools,
            "golden_answers": gold,
            "eval_config": {"method": "ast" if bench == "bfcl_v3" else bench},
        }

    paris = [{"name": "city.find", "parameters": {"city": "Paris"}}]
    return [
        rec("bfcl_v3__BFCL_v3_simple__simple_1", "bfcl_v3", "Find Paris.", [_tool("city.find")], paris),
        rec(
            "apibank__level1_7", "apibank", "**Dialogue Records History** <user>Find Paris.</user>",
            [_tool("city.find"), {"name": "**Think", "description": "Think.", "parameters": "{}"}], paris,
        ),
        rec("rotbench__clean_3", "rotbench", "Find Paris.", [_tool("city.find"), _tool("city.list")], paris),
        rec("toolalpaca__Cities__inst0", "toolalpaca", "Find Paris.", [_tool("city.find")], paris),
        rec("tooleyes__9", "tooleyes", "Find Paris.", [_tool("city.find"), _tool("city.list")],
            [{"name": "city.find", "parameters": {}}, {"name": "city.list", "parameters": {}}]),
    ]  # fmt: skip


def perturbed(record: dict[str, Any], code: str) -> dict[str, Any] | None:
    """``record`` under ``code`` (a plain, recognisable edit; the release's own texts are the authors')."""
    comp = type_info(code).component
    if record["benchmark"] == "tooleyes" and comp in ("action", "reward") and code != "redundant":
        return None
    out = json.loads(json.dumps(record))
    out["perturbation"] = {"type": code, "mdp_category": comp, "variant": code}
    if comp == "observation":
        out["conversation"][0]["content"] = record["conversation"][0]["content"].replace("Find", "Fnid")
    elif code.startswith("same_name"):
        out["tools"].append(_tool("city.find", "Another city lookup."))
    else:
        out["tools"].append(_tool(f"city.find_{code.lower()}", "The fastest city lookup."))
    return out


def write_release(root: Path, *, bad_line: str | None = None) -> Path:
    """The release's flat layout under ``root``: ``clean.jsonl`` and the 16 type files (``bad_line``
    appended to ``CD.jsonl`` when given)."""
    root.mkdir(parents=True, exist_ok=True)
    clean = clean_records()
    (root / "clean.jsonl").write_text("".join(json.dumps(r) + "\n" for r in clean))
    for code in STATIC_TYPES:
        rows = [p for r in clean if (p := perturbed(r, code)) is not None]
        text = "".join(json.dumps(r) + "\n" for r in rows)
        (root / f"{code}.jsonl").write_text(text + (bad_line + "\n" if bad_line and code == "CD" else ""))
    return root
