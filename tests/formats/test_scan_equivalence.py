"""The bracket scanner steps over text with regexes; it must find what a character loop finds."""

from __future__ import annotations

import random

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


def test_the_regex_scanner_agrees_with_a_character_loop() -> None:
    rng = random.Random(20)
    alphabet = "ab :,\n\\\"'()[]{}"
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        for start in range(len(text)):
            assert _scan_from(text, start) == _scan_loop(text, start), (text, start)
