"""Offline keyboard typos: adjacent QWERTY keys, swapped letters, dropped letters, doubled letters
and common misspellings, 2-4 per text, never inside a protected span."""

from __future__ import annotations

import random
import re

from robustcall.perturb._protect import Protection

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS: dict[str, str] = {}
for _r, _row in enumerate(_ROWS):
    for _c, _ch in enumerate(_row):
        near = [_row[i] for i in (_c - 1, _c + 1) if 0 <= i < len(_row)]
        for _dr in (-1, 1):
            if 0 <= _r + _dr < len(_ROWS):
                other = _ROWS[_r + _dr]
                near.extend(other[i] for i in (_c - 1, _c, _c + 1) if 0 <= i < len(other))
        _NEIGHBOURS[_ch] = "".join(near)

MISSPELLINGS: dict[str, str] = {
    "the": "teh",
    "receive": "recieve",
    "because": "becuase",
    "which": "whcih",
    "their": "thier",
    "with": "wiht",
    "would": "woudl",
    "about": "abotu",
    "from": "form",
    "information": "infromation",
    "weather": "wether",
    "definitely": "definately",
    "separate": "seperate",
    "address": "adress",
    "tomorrow": "tommorow",
    "calendar": "calender",
    "necessary": "neccessary",
    "and": "adn",
    "what": "waht",
    "please": "pleas",
    "available": "availible",
    "schedule": "schedual",
    "appointment": "appointmnet",
    "restaurant": "restaraunt",
    "different": "diffrent",
    "account": "acount",
    "recommend": "reccomend",
    "library": "libary",
    "really": "realy",
    "just": "jsut",
    "you": "yuo",
    "that": "taht",
    "this": "thsi",
    "want": "wnat",
    "know": "konw",
}

_WORD = re.compile(r"[A-Za-z]{3,}")


def _one_typo(word: str, rng: random.Random) -> str:
    lower = word.lower()
    if lower in MISSPELLINGS and rng.random() < 0.5:
        typo = MISSPELLINGS[lower]
        return typo.capitalize() if word[0].isupper() else typo
    kind = rng.choice(("adjacent", "swap", "drop", "double"))
    i = rng.randrange(1, len(word))  # keep the first letter: humans rarely miss it
    if kind == "adjacent":
        ch = word[i]
        near = _NEIGHBOURS.get(ch.lower(), "")
        if near:
            sub = rng.choice(near)
            return word[:i] + (sub.upper() if ch.isupper() else sub) + word[i + 1 :]
    if kind == "swap" and i < len(word) - 1 and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop" and len(word) > 3:
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]  # double


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _cjk_typos(text: str, protection: Protection, rng: random.Random) -> str:
    """Typing slips for text with no Latin word to edit (a Chinese or Korean query): 1-2 characters
    doubled (a key pressed twice through the input method) or swapped with the next one, at pairs
    of characters outside the protected spans that do not overlap."""
    spots = [
        i
        for i in range(len(text) - 1)
        if _CJK.match(text[i]) and _CJK.match(text[i + 1]) and not protection.covers(i, i + 2)
    ]
    want = rng.randint(1, 2)
    chosen: list[int] = []
    for i in rng.sample(spots, len(spots)):
        if len(chosen) == want:
            break
        if all(abs(i - j) > 1 for j in chosen):
            chosen.append(i)
    out = text
    for i in sorted(chosen, reverse=True):
        a, b = out[i], out[i + 1]
        out = out[:i] + (b + a if a != b and rng.random() < 0.5 else a + a + b) + out[i + 2 :]
    return out


def add_typos(text: str, protection: Protection, rng: random.Random) -> str:
    """``text`` with 2-4 typos (fewer when fewer words are editable), each in a different word;
    text without a Latin word gets :func:`_cjk_typos`."""
    words = [m for m in _WORD.finditer(text) if not protection.covers(m.start(), m.end())]
    if not words:
        return _cjk_typos(text, protection, rng)
    k = min(rng.randint(2, 4), len(words))
    chosen = sorted(rng.sample(words, k), key=lambda m: m.start())
    out: list[str] = []
    pos = 0
    for m in chosen:
        out.append(text[pos : m.start()])
        typo = m.group()
        for _ in range(4):
            typo = _one_typo(m.group(), rng)
            if typo != m.group():
                break
        out.append(typo)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)
