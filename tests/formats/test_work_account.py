"""One work account that every reader charges (issue 34): each reader's reading is metered here
independently of what it charges (its regexes, the JSON decoder and ``ast.parse`` are replaced by
counting proxies), and a reader that reads more than it charges fails the test. The readers are the
ones :data:`robustcall.formats._bounds.READERS` lists; removing any one reader's charge makes the
check fail (the second test), so the check can fail."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fuzz_inputs import PATHOLOGICAL

import robustcall.formats._bfcl as bfcl_mod
import robustcall.formats._bounds as bounds
import robustcall.formats._callreader as callreader
import robustcall.formats._flatreader as flatreader
import robustcall.formats._literalreader as literalreader
import robustcall.formats._parse as parse_mod
import robustcall.formats._pyvalues as pyvalues
import robustcall.formats._scan as scan
import robustcall.formats._tags as tags
from robustcall._native import not_compiled
from robustcall.formats import OUTPUT_FORMATS, parse_tool_calls

pytestmark = pytest.mark.skipif(
    not {f"robustcall.formats._{m}" for m in ("callreader", "flatreader", "literalreader", "pytokens", "scan")}
    <= set(not_compiled()),
    reason="the meters replace module globals, which compiled readers do not look up (ROBUSTCALL_PURE_PYTHON=1)",
)

_SLACK = 2.0
"""A reader may read at most this many times what it charges (plus :data:`_FLOOR`)."""
_FLOOR = 2_000


class _Meter:
    def __init__(self) -> None:
        self.read: dict[str, float] = {}

    def add(self, reader: str, chars: int) -> None:
        self.read[reader] = self.read.get(reader, 0.0) + chars


class _Pattern:
    """A compiled regex that counts the characters each call reads (up to its match's end, or to
    the end of what it was handed)."""

    def __init__(self, real: re.Pattern[str], meter: _Meter, reader: str, pos_reader: str | None = None) -> None:
        self.real, self.meter, self.reader, self.pos_reader = real, meter, reader, pos_reader

    def _who(self, pos: int | None) -> str:
        return self.pos_reader if pos is not None and self.pos_reader else self.reader

    def _args(self, string: str, pos: int | None, endpos: int | None) -> tuple[int, int]:
        return (pos or 0), (len(string) if endpos is None else endpos)

    def findall(self, string: str, pos: int | None = None, endpos: int | None = None) -> list[Any]:
        a, b = self._args(string, pos, endpos)
        self.meter.add(self._who(pos), b - a)
        return self.real.findall(string, a, b)

    def fullmatch(self, string: str, pos: int | None = None, endpos: int | None = None) -> Any:
        a, b = self._args(string, pos, endpos)
        self.meter.add(self._who(pos), b - a)
        return self.real.fullmatch(string, a, b)

    def search(self, string: str, pos: int | None = None, endpos: int | None = None) -> Any:
        a, b = self._args(string, pos, endpos)
        m = self.real.search(string, a, b)
        self.meter.add(self._who(pos), (m.end() if m is not None else b) - a)
        return m

    def match(self, string: str, pos: int | None = None, endpos: int | None = None) -> Any:
        a, b = self._args(string, pos, endpos)
        m = self.real.match(string, a, b)
        self.meter.add(self._who(pos), (m.end() if m is not None else 0) - a if m is not None else 1)
        return m

    def finditer(self, string: str, pos: int | None = None, endpos: int | None = None) -> Iterator[Any]:
        a, b = self._args(string, pos, endpos)
        who = self._who(pos)
        at = a
        for m in self.real.finditer(string, a, b):
            self.meter.add(who, m.end() - at)
            at = m.end()
            yield m
        self.meter.add(who, b - at)


class _Decoder:
    def __init__(self, meter: _Meter) -> None:
        self.meter = meter
        self.real = json.JSONDecoder()

    def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
        try:
            value, end = self.real.raw_decode(s, idx)
        except json.JSONDecodeError as exc:
            self.meter.add("json", exc.pos - idx)
            raise
        self.meter.add("json", end - idx)
        return value, end


class _Module:
    """A module whose attributes are the real one's, but for the metered ones."""

    def __init__(self, real: Any, **over: Any) -> None:
        self._real = real
        self.__dict__.update(over)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _metered(mp: pytest.MonkeyPatch) -> _Meter:
    """Replace every reader's reading primitives with counting ones; returns the meter."""
    meter = _Meter()

    def ast_parse(source: str, *args: Any, **kwargs: Any) -> Any:
        meter.add("ast", len(source))
        return ast.parse(source, *args, **kwargs)

    def json_loads(s: str, *args: Any, **kwargs: Any) -> Any:
        meter.add("json", len(s))
        return json.loads(s, *args, **kwargs)

    def re_compile(pattern: str, flags: int = 0) -> Any:
        return _Pattern(re.compile(pattern, flags), meter, "tags")

    mp.setattr(pyvalues, "ast", _Module(ast, parse=ast_parse))
    mp.setattr(scan, "json", _Module(json, loads=json_loads))
    mp.setattr(scan, "_DECODER", _Decoder(meter))
    mp.setattr(scan, "_SPANS", _Pattern(scan._SPANS, meter, "scan"))
    for reader in (callreader, literalreader):  # the token pattern, as each reader imported it
        mp.setattr(reader, "TOKENS", _Pattern(reader.TOKENS, meter, "tokens", pos_reader="literal"))
    mp.setattr(literalreader, "_ODD_OR_SURROGATE", _Pattern(literalreader._ODD_OR_SURROGATE, meter, "scan"))
    for name in ("_FLAT_GROUPS", "_FLAT", "_FLAT_UNITS"):
        mp.setattr(flatreader, name, _Pattern(getattr(flatreader, name), meter, "tokens"))
    mp.setattr(bfcl_mod, "_PY_TOKEN", _Pattern(bfcl_mod._PY_TOKEN, meter, "colons"))
    mp.setattr(tags, "_OPEN", _Pattern(tags._OPEN, meter, "tags"))
    mp.setattr(tags, "re", _Module(re, compile=re_compile))
    return meter


METERED = frozenset({"ast", "json", "scan", "literal", "tokens", "colons", "tags"})
"""The readers :func:`_metered` meters: every one of :data:`READERS`."""

PROBES = {
    "ast": "[f(a=" + "x+" * 3_000 + "1)]",
    "literal": "note {'a': [1, 2], 'b': 'x', 'c': None} " * 200,
    "tokens": "[" + ", ".join(["f(a=[1, {'b': 2}])"] * 300) + "]",
    "colons": "[f(" + ", ".join(f"a{i}: ({i}, 1)" for i in range(800)) + ")]",  # a tuple: no token reading
    "json": json.dumps([{"name": "f", "arguments": {"a": [1, 2, 3]}}] * 200) + " x",
    "scan": PATHOLOGICAL["quote_brackets"](10_000),
    "tags": PATHOLOGICAL["unclosed_tags"](10_000),
    "nested": "'" + "{" * 5_000 + "}" * 5_000,
    "nested_call": "It's f(k=" + "[" * 3_000 + "]" * 3_000 + ")",
    "flat": "[" + ", ".join(["f(a=1, b='x')"] * 300) + "]",
}
"""Texts that make each reader read at length, in every output format."""


def _overdrawn(meter: _Meter) -> list[tuple[str, str, str, float, float]]:
    """(probe, format, reader, read, charged) wherever a reader read more than it charged."""
    out = []
    for probe, text in PROBES.items():
        for fmt in OUTPUT_FORMATS:
            meter.read.clear()
            parse_tool_calls(text, fmt)
            spent = bounds.last_spent()
            for reader, read in meter.read.items():
                charged = spent.get(reader, 0.0)
                if read > _SLACK * charged + _FLOOR:
                    out.append((probe, fmt, reader, read, charged))
    return out


def test_the_metered_readers_are_the_account_s_readers() -> None:
    assert set(bounds.READERS) == METERED


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
def test_every_reader_charges_what_it_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    meter = _metered(monkeypatch)
    assert _overdrawn(meter) == []
    seen: set[str] = set()
    for text in PROBES.values():  # and every reader was made to read at length
        for fmt in OUTPUT_FORMATS:
            meter.read.clear()
            parse_tool_calls(text, fmt)
            seen |= {r for r, n in meter.read.items() if n > 2 * _FLOOR}
    assert seen == METERED


_CHARGING_MODULES = (bfcl_mod, callreader, flatreader, literalreader, parse_mod, pyvalues, scan, tags)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@pytest.mark.parametrize("removed", sorted(METERED))
def test_a_reader_whose_charge_is_removed_is_caught(monkeypatch: pytest.MonkeyPatch, removed: str) -> None:
    real = bounds.charge

    def charge_but(chars: float, reader: str) -> None:
        if reader != removed:
            real(chars, reader)

    for module in _CHARGING_MODULES:
        monkeypatch.setattr(module, "charge", charge_but)
    meter = _metered(monkeypatch)
    assert removed in {reader for _, _, reader, _, _ in _overdrawn(meter)}
