"""The bracket scanner steps over text with regexes; it must find what a character loop finds."""

from __future__ import annotations

import random

import pytest

from robustcall.formats._scan import _scan_from

_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _skip_string_loop(text: str, i: int) -> int:
    q = text[i]
    i += 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == q:
            return i + 1
        if c == "\n":
            return i
        i += 1
    return len(text)


def _scan_loop(text: str, start: int) -> dict[int, int]:
    ends: dict[int, int] = {}
    stack: list[int] = []
    want: list[str] = []
    i = start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_string_loop(text, i)
            continue
        if c in _CLOSE:
            stack.append(i)
            want.append(_CLOSE[c])
        elif c in ")]}" and stack:
            if c != want[-1]:
                for j in stack:
                    ends[j] = -1
                stack.clear()
                want.clear()
            else:
                ends[stack.pop()] = i + 1
                want.pop()
        i += 1
    for j in stack:
        ends[j] = -1
    return ends


def _random_texts(seed: int, n: int, shortest: int) -> list[str]:
    """``n`` texts of ``shortest`` to 40 characters of brackets, quotes, escapes and line breaks."""
    rng = random.Random(seed)
    alphabet = "ab :,\n\\\"'()[]{}"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(shortest, 40))) for _ in range(n)]


def test_the_regex_scanner_agrees_with_a_character_loop() -> None:
    for text in _random_texts(20, 4000, 1):
        for start in range(len(text)):
            assert _scan_from(text, start) == _scan_loop(text, start), (text, start)


def _json_values_one_by_one(text: str) -> list[object]:
    """json_values as it read before it skipped runs of unclosed openers: every opener in turn."""
    from robustcall.formats._scan import _OPEN, balanced, decode_object

    out: list[object] = []
    i = 0
    while (m := _OPEN.search(text, i)) is not None:
        j = m.start()
        got = decode_object(text, j) if balanced(text, j) is not None else None
        if got is None:
            i = j + 1
            continue
        out.append(got[0])
        i = got[1]
    return out


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")  # literals of junk
def test_json_values_skips_only_openers_that_do_not_close() -> None:
    from robustcall.formats._scan import json_values

    rng = random.Random(30)
    units = ['{"a": 1}', "[1, 2]", "{", "[", "}", "]", '"', "'", "\\", "\n", "x", " ", '"[1]"', "'{'", "[[", "{{"]
    for _ in range(400):
        text = "".join(rng.choice(units) for _ in range(rng.randrange(500, 900)))  # long: the skipping path
        assert len(text) > 512
        expected = _json_values_one_by_one(text)
        assert json_values(text) == expected, text


def test_json_values_reads_what_hides_in_a_string_after_unclosed_openers() -> None:
    from robustcall.formats._scan import json_values

    for text in (
        "[" * 300 + ' "[1]" ' + "{" * 300,  # a value inside what the first scan took for a string
        "{" * 300 + '\'x {"a": 1} y\n' + "[" * 300 + "[2]",  # ... and one that closes after the run
        "[" * 600 + "x" + "[3]" + "[" * 10,
    ):
        assert json_values(text) == _json_values_one_by_one(text), text[:80]
        assert json_values(text)  # each has a value to find


def _depth_loop(text: str) -> int:
    """text_depth as a character loop (strings as the scan reads them; a closer below 0 ignored)."""
    depth = best = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_string_loop(text, i)
            continue
        if c in "([{":
            depth += 1
            best = max(best, depth)
        elif c in ")]}":
            depth = max(0, depth - 1)
        i += 1
    return best


def test_text_depth_agrees_with_a_character_loop() -> None:
    from robustcall.formats._scan import text_depth

    for text in _random_texts(34, 20_000, 0):
        assert text_depth(text) == _depth_loop(text), text
    for text in ("[" * 300 + "]" * 300, "'" + "{" * 300, "(" * 150 + "'x\n" + "[" * 120, ")]}" * 50 + "[[["):
        assert text_depth(text) == _depth_loop(text), text[:40]


def test_json_values_after_every_scan_is_made() -> None:
    """Quotes that hide runs of openers from each scan use up the scans (``_MAX_PASSES``); the
    openers after that are skipped by what the scans found, and the values still come out."""
    from robustcall.formats._scan import _MAX_PASSES, _table, json_values

    text = "".join("'" + "[" * 60 + "\n" + '{"a": ' + str(k) + "}" + "{" * 40 for k in range(2 * _MAX_PASSES))
    assert len(text) > 512
    assert json_values(text) == _json_values_one_by_one(text)
    assert len(_table(text).passes) == _MAX_PASSES
