"""The LLM rewriter: the exact Appendix F prompts sent to an OpenAI-compatible endpoint, with a
persistent on-disk cache keyed by (prompt, model, params) so that rebuilds cost nothing."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from robustcall.core import ToolSpec, cache_dir, stable_hash
from robustcall.perturb._protect import Protection

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


class LLMRewriter:
    """Sends Appendix F prompts to ``base_url``; ``attempt`` > 0 asks again at a higher temperature."""

    name = "llm"

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        temperature: float = 0.0,
        timeout_s: float = 120.0,
        cache_path: Path | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.cache = RewriteCache(cache_path or cache_dir("rewrites") / "cache.sqlite")
        self.requests = 0
        self.cache_hits = 0

    def settings(self) -> dict[str, Any]:
        return {"rewriter": "llm", "model": self.model, "temperature": self.temperature}

    def complete(self, prompt: str, attempt: int) -> str:
        temperature = self.temperature if attempt == 0 else min(1.0, self.temperature + 0.3 * attempt)
        params = {"temperature": temperature, "attempt": attempt}
        key = stable_hash({"prompt": prompt, "model": self.model, "params": params})
        cached = self.cache.get(key)
        if cached is not None:
            self.cache_hits += 1
            return cached
        body = {"model": self.model, "messages": [{"role": "user", "content": prompt}], "temperature": temperature}
        headers = {"Content-Type": "application/json"}
        if key_env := os.environ.get("OPENAI_API_KEY"):
            headers["Authorization"] = f"Bearer {key_env}"
        req = urllib.request.Request(
            f"{self.base_url}/chat/completions", data=json.dumps(body).encode(), headers=headers
        )
        with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
            text = str(json.loads(resp.read())["choices"][0]["message"]["content"] or "").strip()
        self.requests += 1
        self.cache.put(key, text)
        return text

    def typos(self, query: str, protection: Protection, rng: random.Random, attempt: int) -> str:
        return self.complete(fill(TYPO_PROMPT, query=query), attempt)

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
        text = self.complete(fill(REDUNDANT_PROMPT, num_tools=str(n), existing_tool=existing), attempt)
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
