"""The BFCL multi-turn API classes, tasks and function docs, read from the pinned ``bfcl-eval`` wheel.

The wheel is the one ``robustcall data fetch bfcl`` caches (``sources.fetch_bfcl``); it is never
installed. Its API classes are imported from the wheel's own Python files (``sources.bfcl_module``:
unpacked once into the cache beside the wheel, that folder put first on ``sys.path``), so the code
that runs is BFCL's, unmodified and not copied into robustcall. Only the
eight API modules are imported; they need nothing beyond the standard library except ``mpmath``
(MathAPI), none of BFCL's heavy evaluation dependencies.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from robustcall.core import ToolSpec, derived_cache_dir, json_value, jsonl_lines, kept_or_built
from robustcall.sources import SourceError, bfcl_module, fetch_bfcl

_BACKEND = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
_DATA = "bfcl_eval/data"

API_CLASSES: dict[str, tuple[str, str]] = {
    "GorillaFileSystem": ("gorilla_file_system", "gorilla_file_system.json"),
    "MathAPI": ("math_api", "math_api.json"),
    "MessageAPI": ("message_api", "message_api.json"),
    "TwitterAPI": ("posting_api", "posting_api.json"),
    "TicketAPI": ("ticket_api", "ticket_api.json"),
    "TradingBot": ("trading_bot", "trading_bot.json"),
    "TravelAPI": ("travel_booking", "travel_booking.json"),
    "VehicleControlAPI": ("vehicle_control", "vehicle_control.json"),
}
"""The multi-turn API class -> (its module under ``func_source_code``, its function-doc file), in BFCL's order."""

STATELESS = frozenset({"MathAPI"})
"""Classes BFCL never loads a scenario into (``STATELESS_CLASSES``)."""


@dataclass(frozen=True)
class MultiTurnTask:
    """One BFCL multi-turn task."""

    id: str
    """BFCL's id, e.g. ``multi_turn_base_0``."""
    turns: list[str]
    """The user message of each turn (base tasks have one message per turn)."""
    initial_config: dict[str, Any]
    """Per class, the scenario loaded into a fresh instance."""
    classes: list[str]
    """The involved API classes."""
    excluded: list[str]
    """Functions of those classes the task withholds from the agent."""
    ground_truth: list[list[str]]
    """Per turn, BFCL's ground-truth calls as written in the possible answers (``cd(folder='x')``)."""
    missed_function: dict[int, list[str]] = field(default_factory=dict)
    """``miss_func`` tasks: per turn, the functions withheld until that turn (their docs arrive with it)."""

    @property
    def category(self) -> str:
        """``multi_turn_base`` for ``multi_turn_base_3`` (BFCL's own reading of an id)."""
        return self.id.rsplit("_", 1)[0]

    @property
    def long_context(self) -> bool:
        """BFCL loads the scenario with its long-context extra data for these tasks."""
        return "long_context" in self.category or "composite" in self.category


@cache
def _wheel() -> Path:  # once per process: every task loads its API instances through it
    return fetch_bfcl(quiet=True)


def _jsonl(zf: zipfile.ZipFile, member: str) -> list[dict[str, Any]]:
    text = zf.read(member).decode("utf-8")
    return [json_value(line) for line in jsonl_lines(text) if line.strip()]


MULTI_TURN_CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
"""BFCL's multi-turn categories, as its file names and ids spell them."""


@cache
def load_tasks(category: str = "multi_turn_base") -> list[MultiTurnTask]:
    """The tasks of one multi-turn category (default: the 200 ``multi_turn_base`` ones), in the wheel's
    order: read from the wheel once, then from the cache (keyed by the wheel and this module's source;
    in a third of the time)."""
    if category not in MULTI_TURN_CATEGORIES:
        raise KeyError(f"unknown BFCL multi-turn category {category!r}; known: {', '.join(MULTI_TURN_CATEGORIES)}")
    return kept_or_built(_tasks_cache() / f"{category}.pickle", lambda: _read_tasks(category), list)


@cache
def _tasks_cache() -> Path:
    wheel = _wheel()
    return derived_cache_dir("bfcl-tasks", f"{wheel.name} {wheel.stat().st_size}", [Path(__file__)])


def _read_tasks(category: str) -> list[MultiTurnTask]:
    with zipfile.ZipFile(_wheel()) as zf:
        questions = _jsonl(zf, f"{_DATA}/BFCL_v4_{category}.json")
        answers = {a["id"]: a["ground_truth"] for a in _jsonl(zf, f"{_DATA}/possible_answer/BFCL_v4_{category}.json")}
    tasks = []
    for q in questions:
        turns = []
        for turn in q["question"]:
            users = [m["content"] for m in turn if m.get("role") == "user"]
            turns.append("\n".join(users))
        tasks.append(
            MultiTurnTask(
                id=q["id"],
                turns=turns,
                initial_config=q["initial_config"],
                classes=list(q["involved_classes"]),
                excluded=list(q.get("excluded_function") or []),
                ground_truth=answers[q["id"]],
                missed_function={int(k): list(v) for k, v in (q.get("missed_function") or {}).items()},
            )
        )
    return tasks


def _spec(doc: dict[str, Any]) -> ToolSpec:
    return ToolSpec(name=doc["name"], description=doc["description"], parameters=doc["parameters"])


@cache
def function_docs() -> dict[str, list[ToolSpec]]:
    """Per API class, its function docs as ``ToolSpec`` s (BFCL's JSON schema kept as given)."""
    with zipfile.ZipFile(_wheel()) as zf:
        return {
            cls: [_spec(d) for d in _jsonl(zf, f"{_DATA}/multi_turn_func_doc/{doc}")]
            for cls, (_, doc) in API_CLASSES.items()
        }


@cache
def api_class(name: str) -> type[Any]:
    """BFCL's API class ``name``, imported from the wheel (not from any installed ``bfcl_eval``)."""
    if name not in API_CLASSES:
        raise KeyError(f"unknown BFCL API class {name!r}; known: {', '.join(API_CLASSES)}")
    wheel = _wheel()
    try:
        module = bfcl_module(f"{_BACKEND}.{API_CLASSES[name][0]}", wheel)
    except SourceError as exc:
        raise ImportError(str(exc)) from None
    except ImportError as exc:
        raise ImportError(
            f"cannot import BFCL's {name} from {wheel}: {exc} (MathAPI needs `pip install mpmath`)"
        ) from exc
    cls = getattr(module, name)
    assert isinstance(cls, type)
    return cls
