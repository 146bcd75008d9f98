"""What a rewrite must keep verbatim, and the check that it did.

Protected: numbers and dates, proper nouns (capitalised words not at a sentence start), technical
terms (tokens with digits, ``_``, ``.``, inner capitals, all-caps acronyms), quoted strings, URLs and
e-mails, markup (``<user>`` tags, ``<tool_call>`` / ``<obs>`` blocks, the API-Bank closing
instruction) and every golden argument value that appears in the text. The offline rewriter never
edits inside a protected span; any rewrite (LLM ones especially) is checked with ``lost``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from robustcall.core import Sample

_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"<(tool_call|obs)>.*?</\1>", re.S),  # API-Bank history blocks
    re.compile(r"</?[A-Za-z_]+>"),  # tags
    re.compile(r"\*\*[^*\n]+\*\*"),  # **Dialogue Records History**, **Think
    re.compile(r"Based on our conversation above[^<]*"),  # API-Bank closing instruction
    re.compile(r"https?://\S+|[\w.+-]+@[\w-]+\.[\w.]+"),
    re.compile(r'"[^"\n]{1,80}"|(?<![A-Za-z])\'[^\'\n]{1,80}\'(?![A-Za-z])'),  # quoted strings
    re.compile(r"%[A-Za-z](?:[-:/ ]%[A-Za-z])*"),  # strftime formats
    re.compile(r"[$€£]?\d(?:[\d,.:/-]*\d)?(?:\s?(?:am|pm|AM|PM|%))?"),  # numbers, dates, times, money
    re.compile(
        r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December"
        r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Monday|Tuesday|Wednesday|Thursday|Friday"
        r"|Saturday|Sunday|today|tomorrow|yesterday|tonight)\b",
        re.I,
    ),
    re.compile(r"\b\w*[\d_]\w*\b|\b\w+(?:\.\w+)+\b"),  # tokens with digits, underscores, dots
    re.compile(r"\b[a-z]+[A-Z]\w*\b|\b[A-Z]{2,}s?\b|\b[A-Z][a-z]+[A-Z]\w*\b"),  # camelCase, ACRONYMS
)
_CAPWORD = re.compile(r"\b[A-Z][a-zA-Z'-]*\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;>\n\"])\s*$")
_CLAIMS = frozenset({"I", "I'm", "I'd", "I'll", "I've"})


@dataclass(frozen=True)
class Protection:
    """Character spans the offline rewriter leaves alone, and strings every rewrite must keep."""

    spans: tuple[tuple[int, int], ...]
    keep: tuple[str, ...]

    def covers(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps a protected span."""
        return any(s < end and start < e for s, e in self.spans)

    def lost(self, rewritten: str) -> list[str]:
        """The protected strings that ``rewritten`` no longer contains."""
        return [k for k in self.keep if k not in rewritten]


def golden_strings(sample: Sample) -> list[str]:
    """Every scalar golden argument value (and acceptable alternative) as text, longest first."""
    out: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list | tuple):
            for x in v:
                walk(x)
        elif isinstance(v, bool) or v is None:
            return
        elif isinstance(v, int | float | str):
            s = str(v).strip()
            if s:
                out.add(s)

    for g in sample.golden_answers:
        walk(g.parameters)
        if g.acceptable:
            walk(g.acceptable)
    return sorted(out, key=lambda s: (-len(s), s))


def protect(text: str, extra: Iterable[str] = ()) -> Protection:
    """Spans and keep-strings of ``text``; ``extra`` adds values (golden arguments) to keep if present."""
    spans: list[tuple[int, int]] = []
    for pat in _PATTERNS:
        spans.extend(m.span() for m in pat.finditer(text) if m.end() > m.start())
    for m in _CAPWORD.finditer(text):
        if m.group() in _CLAIMS or _SENTENCE_START.search(text[: m.start()]):
            continue
        spans.append(m.span())
    for value in extra:
        if len(value) < 2 and not value.isdigit():
            continue
        start = text.find(value)
        while start >= 0:
            spans.append((start, start + len(value)))
            start = text.find(value, start + 1)
    merged = _merge(spans)
    keep = tuple(dict.fromkeys(text[s:e].strip() for s, e in merged if text[s:e].strip()))
    return Protection(tuple(merged), keep)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out
