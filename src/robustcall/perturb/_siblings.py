"""Offline sibling-tool synthesis for RedunTool: tools related to an existing one but for a
different purpose, named in its convention (``ns.verb_obj``, ``snake_case``, ``camelCase``,
``PascalCase``), with a description and typed parameters."""

from __future__ import annotations

import random
import re
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from robustcall.core import ToolSpec

_FAMILIES: tuple[frozenset[str], ...] = (
    frozenset(
        ["get", "find", "fetch", "retrieve", "search", "lookup", "query", "list", "show", "check", "read", "look"]
    ),
    frozenset(["create", "add", "generate", "make", "register", "book", "new", "post"]),
    frozenset(["update", "modify", "set", "edit", "change"]),
    frozenset(["delete", "remove", "cancel"]),
)
# new verb -> (extra name word or "", description template, extra parameter)
_VERBS: dict[str, tuple[str, str, tuple[str, str, str] | None]] = {
    "annotate": ("", "Annotate {obj} with additional notes and metadata.", ("note", "string", "The note to attach.")),
    "predict": ("effect", "Predict the likely effect of {obj}.", ("model", "string", "The prediction model to use.")),
    "export": ("", "Export {obj} to a downloadable file.", ("format", "string", "File format, e.g. 'csv' or 'json'.")),
    "count": ("", "Count {obj} matching the given criteria.", None),
    "validate": ("", "Validate {obj} and report any problems found.", ("strict", "boolean", "Fail on warnings.")),
    "summarize": ("", "Summarize {obj} in a short report.", ("max_length", "integer", "Maximum summary length.")),
    "compare": ("", "Compare {obj} against another entry.", ("other", "string", "The entry to compare with.")),
    "subscribe": ("updates", "Subscribe to updates about {obj}.", ("email", "string", "Where to send updates.")),
    "delete": ("", "Delete {obj}.", None),
    "update": ("", "Update {obj} with new values.", ("changes", "string", "The fields to change.")),
    "archive": ("", "Archive {obj} so it no longer appears in results.", None),
    "rank": ("", "Rank {obj} by popularity.", ("limit", "integer", "How many entries to return.")),
}
_QUALIFIERS: tuple[tuple[str, str, str], ...] = (
    ("for", "player", "The player to filter by."),
    ("in", "region", "The region to search in."),
    ("by", "category", "The category to filter by."),
    ("by", "date", "The date to filter by, YYYY-MM-DD."),
    ("for", "user", "The user to look up."),
    ("in", "range", "The range to restrict results to."),
    ("by", "location", "The location to filter by."),
    ("for", "team", "The team to filter by."),
)
_PREPS = frozenset(["in", "for", "by", "from", "with", "of", "on", "at"])


@dataclass(frozen=True)
class _Name:
    namespace: str  # "mutation_type." or ""
    words: list[str]
    style: str  # snake | camel | pascal

    def render(self, words: list[str]) -> str:
        if self.style == "snake":
            base = "_".join(w.lower() for w in words)
        else:
            base = "".join(w[:1].upper() + w[1:].lower() for w in words)
            if self.style == "camel":
                base = base[:1].lower() + base[1:]
        return self.namespace + base


def _parse(name: str) -> _Name:
    namespace, _, base = name.rpartition(".")
    namespace = namespace + "." if namespace else ""
    if "_" in base or base.islower():
        return _Name(namespace, [w for w in base.split("_") if w], "snake")
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", base)
    return _Name(namespace, words or [base], "pascal" if base[:1].isupper() else "camel")


def _family(verb: str) -> frozenset[str]:
    return next((f for f in _FAMILIES if verb in f), frozenset({verb}))


def _obj_text(words: list[str]) -> str:
    return "the " + " ".join(w.lower() for w in words) if words else "the item"


def _param(kind: str, like: dict[str, Any]) -> str:
    string_type = next(
        (p.get("type") for p in like.values() if isinstance(p, dict) and p.get("type") in ("str", "string")), "string"
    )
    return {"string": str(string_type), "integer": "integer", "boolean": "boolean"}[kind]


def _make(tool: ToolSpec, name: str, description: str, keep: list[str], extra: tuple[str, str, str] | None) -> ToolSpec:
    props = tool.properties()
    new_props: dict[str, Any] = {k: deepcopy(props[k]) for k in keep}
    required = [k for k in tool.required() if k in keep]
    if extra is not None and extra[0] not in new_props:
        new_props[extra[0]] = {"type": _param(extra[1], props), "description": extra[2]}
        required.append(extra[0])
    params = {"type": tool.parameters.get("type", "object"), "properties": new_props}
    if required:
        params["required"] = required
    return ToolSpec(name=name, description=description, parameters=params)


def synthesize_siblings(tool: ToolSpec, n: int, rng: random.Random, taken: set[str]) -> list[ToolSpec]:
    """``n`` sibling tools of ``tool`` whose names are not in ``taken``."""
    parsed = _parse(tool.name)
    words = parsed.words
    has_verb = bool(words) and any(words[0].lower() in f for f in _FAMILIES)
    verb, rest = (words[0], words[1:]) if has_verb else ("", words)
    prep_at = next((i for i, w in enumerate(rest) if w.lower() in _PREPS and i > 0), None)
    obj = rest[:prep_at] if prep_at is not None else rest
    if not obj and parsed.namespace:  # ``mutation_type.find``: the namespace names the object
        obj = [w for w in re.split(r"[._]", parsed.namespace) if w]
    props = list(tool.properties())
    candidates: list[ToolSpec] = []
    if prep_at is not None:
        old_qual = [w.lower() for w in rest[prep_at + 1 :]]
        keep = [p for p in props if p.lower() not in old_qual][:2]
        for prep, noun, pdesc in _QUALIFIERS:
            if noun in old_qual:
                continue
            name = parsed.render([*([verb] if verb else []), *obj, prep, noun])
            desc = f"{(verb or 'get').capitalize()} {_obj_text(obj)[4:]} {prep} a given {noun}."
            candidates.append(_make(tool, name, desc, keep, (noun, "string", pdesc)))
    family = _family(verb.lower())
    for new_verb, (suffix, template, extra) in _VERBS.items():
        if new_verb in family:
            continue
        name_words = [new_verb, *(obj or rest), *([suffix] if suffix else [])]
        candidates.append(
            _make(tool, parsed.render(name_words), template.format(obj=_obj_text(obj or rest)), props[:1], extra)
        )
    unique = {c.name: c for c in candidates if c.name not in taken and c.name != tool.name}
    pool = list(unique.values())
    # qualifier swaps first (closest siblings), then verb swaps, each group in a seeded order
    quals = [c for c in pool if prep_at is not None and c.name in {x.name for x in candidates[: len(_QUALIFIERS)]}]
    verbs = [c for c in pool if c not in quals]
    rng.shuffle(quals)
    rng.shuffle(verbs)
    if quals and verbs and n >= 2:
        return [*quals[: n // 2 + n % 2], *verbs[: n // 2]][:n] if len(quals) >= n else [*quals, *verbs][:n]
    return [*quals, *verbs][:n]
