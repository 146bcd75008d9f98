"""The LLM rewriter: the exact Appendix F prompts sent to a model through ``robustcall.models`` (a
``make_model`` spec, settings files, the retry loop with ``Retry-After``), one model per family
of prompts if wanted, and a persistent on-disk cache keyed by (prompt, model, params) so that
rebuilds cost nothing.

Families (§4.3: the paper used gpt-4o-mini for typos, "more willing to produce lexically-noisy
text", and gpt-5-mini for everything else): ``typos`` (Typo), ``paraphrases`` (QueryPara,
ToolPara, ParamPara) and ``tools`` (RedunTool's sibling tools).
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, get_args

from robustcall.core import ToolSpec, cache_dir, stable_hash
from robustcall.models import KEEP, TextModel
from robustcall.perturb._protect import Protection

Family = Literal["typos", "paraphrases", "tools"]
FAMILIES: tuple[Family, ...] = get_args(Family)

# Appendix F, verbatim; [brackets] are substituted with the sample's fields.
TYPO_PROMPT = (
    "Add realistic typing errors to the following query, simulating natural human typos. [query] "
    "Requirements: add 2–4 realistic typos that humans commonly make when typing quickly; include common "
    "typo types (adjacent key hits e→r, character swaps ‘teh’ → ‘the’, missing letters, doubled letters, "
    "common misspellings); DO NOT change any numbers, dates, proper nouns, or technical terms; DO NOT change "
    "the meaning or intent of the query; output the perturbed query only."
)
QUERY_PARA_PROMPT = (
    "Paraphrase the following user query while preserving its exact meaning and intent. [query] "
    "Requirements: use different wording but keep the same semantic meaning; DO NOT change any locations, "
    "person names, numbers, dates, or specific entities; maintain all technical terms and important details; "
    "output the paraphrased query only."
)
TOOL_PARA_PROMPT = (
    "Paraphrase the following tool/function description while preserving its exact meaning. "
    "Tool name: [tool_name]. Original description: [description]. Requirements: use different wording but "
    "keep the same semantic meaning; maintain all technical details and constraints; keep similar length "
    "(±20%); output ONLY the paraphrased description (no explanation)."
)
PARAM_PARA_PROMPT = (
    "Paraphrase the following API parameter description while preserving its exact meaning. "
    "Parameter name: [param_name]. Parameter type: [param_type]. Original description: [description]. "
    "Requirements: use different wording but keep the same semantic meaning; maintain type constraints and "
    "valid values; keep similar length; output ONLY the paraphrased description (no explanation)."
)
REDUNDANT_PROMPT = (
    "You are an API designer. Given the following existing tool, generate [num_tools] NEW tools that are "
    "semantically related but serve DIFFERENT purposes. Existing tool: [existing_tool]. Requirements: the new "
    "tools should be plausible extensions that could exist alongside the existing tool; they should NOT "
    "duplicate existing functionality; each tool needs a descriptive name following the same naming "
    "convention, a clear description, and appropriately typed parameters. Output as a JSON array of tool dicts."
)


def fill(template: str, **fields: str) -> str:
    for key, value in fields.items():
        template = template.replace(f"[{key}]", value)
    return template


class RewriteCache:
    """SQLite table of request hash -> completion text."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path)
        self._db.execute("CREATE TABLE IF NOT EXISTS rewrites (key TEXT PRIMARY KEY, text TEXT NOT NULL)")

    def get(self, key: str) -> str | None:
        row = self._db.execute("SELECT text FROM rewrites WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, text: str) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO rewrites VALUES (?, ?)", (key, text))


def model_specs(values: list[str], base_url: str | None = None) -> tuple[str, dict[Family, str]]:
    """``--llm-model`` values (``SPEC`` for every family, ``FAMILY=SPEC`` for one) -> the default spec
    and the per-family ones. With ``base_url``, a bare model name or ``openai/<name>`` becomes
    ``openai:<name>@<base_url>``. Raises ``ValueError`` when no default is given or a family is unknown."""

    def spec(text: str) -> str:
        if not base_url or text == "local" or ":" in text:
            return text
        return f"openai:{text.removeprefix('openai/')}@{base_url}"

    default: str | None = None
    per: dict[Family, str] = {}
    for value in values:
        head, sep, rest = value.partition("=")
        if sep and head in FAMILIES:
            per[head] = spec(rest)
        elif sep and head.isidentifier() and ":" not in head:
            raise ValueError(f"unknown rewriter family {head!r} in {value!r}: expected one of {', '.join(FAMILIES)}")
        else:
            default = spec(value)
    if default is None:
        if set(per) != set(FAMILIES):
            raise ValueError("--rewriter llm needs --llm-model SPEC (and FAMILY=SPEC for a family of its own)")
        default = per["paraphrases"]
    return default, per


class LLMRewriter:
    """Sends Appendix F prompts to one model per family (``model`` for all by default); ``attempt``
    > 0 asks again at a higher temperature (or, with the temperature left to the endpoint, simply
    again: the attempt is part of the cache key)."""

    name = "llm"

    def __init__(
        self,
        model: str,
        *,
        family_models: Mapping[Family, str] | None = None,
        settings_file: Path | None = None,
        cache_path: Path | None = None,
    ) -> None:
        specs = {f: (family_models or {}).get(f, model) for f in FAMILIES}
        clients: dict[str, TextModel] = {}
        for spec in specs.values():
            if spec not in clients:
                clients[spec] = TextModel(spec, settings_file=settings_file)
        self.models: dict[Family, TextModel] = {f: clients[spec] for f, spec in specs.items()}
        self.cache = RewriteCache(cache_path or cache_dir("rewrites") / "cache.sqlite")
        self.cache_hits = 0

    @property
    def requests(self) -> int:
        """Requests sent to models (cache misses)."""
        return sum(m.requests for m in {id(m): m for m in self.models.values()}.values())

    def settings(self) -> dict[str, Any]:
        return {
            "rewriter": "llm",
            "models": {f: m.model_name for f, m in self.models.items()},
            "temperature": {f: m.temperature for f, m in self.models.items()},
        }

    def complete(self, prompt: str, attempt: int, family: Family = "paraphrases") -> str:
        client = self.models[family]
        base = client.temperature
        temperature = base if attempt == 0 or base is None else min(1.0, base + 0.3 * attempt)
        params = {"temperature": temperature, "attempt": attempt}
        key = stable_hash({"prompt": prompt, "model": client.model_name, "params": params})
        cached = self.cache.get(key)
        if cached is not None:
            self.cache_hits += 1
            return cached
        text = client.complete(prompt, temperature=KEEP if attempt == 0 else temperature).strip()
        self.cache.put(key, text)
        return text

    def close(self) -> None:
        for m in {id(m): m for m in self.models.values()}.values():
            m.close()

    def __enter__(self) -> LLMRewriter:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def typos(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str:
        return self.complete(fill(TYPO_PROMPT, query=query), attempt, "typos")

    def paraphrase_query(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str:
        return self.complete(fill(QUERY_PARA_PROMPT, query=query), attempt)

    def paraphrase_tool_description(
        self, tool_name: str, description: str, protection: Protection, rng: random.Random, attempt: int
    ) -> str:
        return self.complete(fill(TOOL_PARA_PROMPT, tool_name=tool_name, description=description), attempt)

    def paraphrase_parameter_description(
        self,
        param_name: str,
        param_type: str,
        description: str,
        protection: Protection,
        rng: random.Random,
        attempt: int,
    ) -> str:
        prompt = fill(PARAM_PARA_PROMPT, param_name=param_name, param_type=param_type, description=description)
        return self.complete(prompt, attempt)

    def sibling_tools(self, tool: ToolSpec, n: int, rng: random.Random, attempt: int) -> list[ToolSpec]:
        existing = json.dumps(tool.model_dump(), ensure_ascii=False)
        text = self.complete(fill(REDUNDANT_PROMPT, num_tools=str(n), existing_tool=existing), attempt, "tools")
        start, end = text.find("["), text.rfind("]")
        try:
            items = json.loads(text[start : end + 1]) if start >= 0 < end else []
        except json.JSONDecodeError:
            return []
        out: list[ToolSpec] = []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                params = item.get("parameters")
                out.append(
                    ToolSpec(
                        name=item["name"],
                        description=str(item.get("description", "")),
                        parameters=params if isinstance(params, dict) else {"type": "object", "properties": {}},
                    )
                )
        return out[:n]
