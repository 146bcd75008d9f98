"""Model names on the board: which are refused outright, and which count as the same name.

Two names are the same name when they look the same: their keys are equal. The key is ICU's
NFKC_Casefold (compatibility forms such as full-width letters folded, case folded, default-ignorable
characters such as U+200B ZERO WIDTH SPACE and U+00AD SOFT HYPHEN removed), then the confusable
skeleton of Unicode TR39 (Cyrillic "о" and Latin "o", U+2010 HYPHEN and "-", "rn" and "m" share
one), folded again. Both steps come from ICU (PyICU), which tracks the Unicode data files; no
table is kept here. The name itself is stored and shown as given.

Names holding a control character or an invisible format character (Unicode category Cf:
bidirectional controls such as U+202E RIGHT-TO-LEFT OVERRIDE, zero-width characters, soft hyphens)
are refused outright: a browser shows ``"\u202ekot-mitciv"`` as "victim-tok", which no key catches.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import icu  # type: ignore[import-untyped]

MAX_NAME_CHARS = 200

BLANK_GLYPHS = frozenset("\u2800\u3164\uffa0\u115f\u1160\U0001d159")
"""Graphic characters drawn as empty space that are neither white space nor default-ignorable in
the Unicode data (so neither ICU's folding nor the ``White_Space`` property catches them): U+2800
BRAILLE PATTERN BLANK, the Hangul fillers U+3164, U+FFA0, U+115F, U+1160, and U+1D159 MUSICAL
SYMBOL NULL NOTEHEAD."""


@lru_cache(maxsize=1)
def _tools() -> tuple[object, object]:
    return icu.Normalizer2.getNFKCCasefoldInstance(), icu.SpoofChecker()


def renders_blank(ch: str) -> bool:
    """Whether ``ch`` is drawn as empty space: white space of any width (Unicode ``White_Space``,
    categories Zs / Zl / Zp) or one of :data:`BLANK_GLYPHS`."""
    return (
        ch in BLANK_GLYPHS
        or unicodedata.category(ch) in ("Zs", "Zl", "Zp")
        or icu.Char.hasBinaryProperty(ch, icu.UProperty.WHITE_SPACE)
    )


def _blanks_as_one_space(text: str) -> str:
    """Every blank-rendering character as a space, a run of them as one, none at either end."""
    return " ".join("".join(" " if renders_blank(ch) else ch for ch in text).split())


def _without_marks(text: str) -> str:
    """``text`` (decomposed, as TR39 skeletons are) without its combining marks (categories Mn, Mc,
    Me): a mark on an owned name's letter does not make another name."""
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("M"))


def name_key(name: str) -> str:
    """What a name is compared by (module docstring); equal keys look alike."""
    fold, spoof = _tools()
    folded = _blanks_as_one_space(fold.normalize(name))  # type: ignore[attr-defined]
    skeleton = _without_marks(spoof.getSkeleton(0, folded))  # type: ignore[attr-defined]
    key: str = _blanks_as_one_space(fold.normalize(skeleton))  # type: ignore[attr-defined]
    return key


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a model name on the board (``None``: it can)."""
    if not name or len(name) > MAX_NAME_CHARS:
        return f"rejected: a model name of 1 to {MAX_NAME_CHARS} characters is required"
    if any(unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") for ch in name):
        return "rejected: a model name cannot contain control characters (NUL, line breaks, tabs)"
    invisible = next((ch for ch in name if unicodedata.category(ch) == "Cf"), None)
    if invisible is not None:  # a right-to-left override shows "\u202ekot-mitciv" as "victim-tok"
        return (
            f"rejected: a model name cannot contain invisible format characters (U+{ord(invisible):04X} "
            f"{unicodedata.name(invisible, 'FORMAT CHARACTER')}; bidirectional controls, zero-width characters, "
            "soft hyphens)"
        )
    if not name_key(name).strip():
        return "rejected: a model name needs a visible character"
    return None
