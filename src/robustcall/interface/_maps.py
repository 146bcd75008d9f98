"""Interface maps: per environment, the original action names and their Perturb 1 (synonym) and
Perturb 2 (symbol) replacements.

Where an environment matches the paper's, the names are Table 22's (MAZE, TextCraft), written
with ``_`` for spaces because our actions are tool-call names (``move up`` -> ``move_up``). Other
environments carry their own documented synonym maps; symbols are ``z1, z2, …`` in the map's
fixed order. :func:`check_map` enforces that a map renames every action to distinct new names
that collide neither with each other nor with any original name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from robustcall.interface._bfcl_map import BFCL_SYNONYMS

Level = Literal["origin", "synonym", "symbol"]
LEVELS: tuple[Level, ...] = ("origin", "synonym", "symbol")


@dataclass(frozen=True)
class InterfaceMap:
    """Original name -> synonym, in a fixed order (the symbol of the i-th action is ``z{i+1}``)."""

    env: str
    synonyms: tuple[tuple[str, str], ...]
    source: str
    """Where the synonyms come from (a paper table, or 'ours' with the reason)."""
    rewrite_words: bool = True
    """Rewrite originals that are plain lowercase words (``sort``, ``add``) in free text too (instruction,
    observations, descriptions). Off where user text quotes literal content the score compares (BFCL):
    there only identifier-like names (``post_tweet``, ``lockDoors``) are rewritten in text, and plain
    words only in the tool list."""

    @property
    def originals(self) -> list[str]:
        return [o for o, _ in self.synonyms]

    def text_names(self) -> list[str]:
        """The originals that display-side rewriting replaces in free text."""
        return [o for o in self.originals if self.rewrite_words or not is_plain_word(o)]

    def names(self, level: Level) -> dict[str, str]:
        """Original -> displayed name at this level (identity at ``origin``)."""
        if level == "origin":
            return {o: o for o, _ in self.synonyms}
        if level == "synonym":
            return dict(self.synonyms)
        return {o: f"z{i + 1}" for i, (o, _) in enumerate(self.synonyms)}


def is_plain_word(name: str) -> bool:
    """``name`` reads as an ordinary lowercase word (``sort``), not an identifier (``post_tweet``)."""
    return re.fullmatch(r"[a-z]+", name) is not None


def check_map(m: InterfaceMap) -> None:
    """Raise ``ValueError`` unless every level renames every action to distinct, fresh names."""
    originals = m.originals
    if len(set(originals)) != len(originals):
        raise ValueError(f"{m.env}: duplicate original names")
    levels: tuple[Level, ...] = ("synonym", "symbol")
    for level in levels:
        shown = list(m.names(level).values())
        if len(set(shown)) != len(shown):
            raise ValueError(f"{m.env} {level}: two actions share a name")
        clash = set(shown) & set(originals)
        if clash:
            raise ValueError(f"{m.env} {level}: {sorted(clash)} is also an original name")


MAPS: dict[str, InterfaceMap] = {
    m.env: m
    for m in (
        InterfaceMap(
            "maze",
            (("move_up", "go_north"), ("move_down", "go_south"), ("move_left", "go_west"), ("move_right", "go_east")),
            "Table 22 (MAZE)",
        ),
        InterfaceMap(
            "textcraft",
            (("get", "take"), ("inventory", "bag"), ("craft", "make")),
            "Table 22 (TextCraft)",
        ),
        InterfaceMap(
            "bfcl_multi_turn",
            BFCL_SYNONYMS,
            "ours (interface/_bfcl_map.py): BFCL is not among Tables 21-28",
            rewrite_words=False,
        ),
        InterfaceMap(
            "dbbench",
            (("execute_sql", "run_query"), ("commit_final_answer", "submit_reply")),
            "ours after Table 28 (AgentBench DataBase: Operation -> Execute, Answer -> Reply); our tools are "
            "AgentBench's function-calling names",
        ),
        InterfaceMap(
            "wordle",
            (("guess", "submit_word"),),
            "ours: Table 22 renames Wordle's 'Action:' prefix; our Wordle has one tool, 'guess'",
        ),
    )
}
for _m in MAPS.values():
    check_map(_m)
