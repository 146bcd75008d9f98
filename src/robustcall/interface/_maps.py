"""Interface maps: per environment, the original action names and their Perturb 1 (synonym) and
Perturb 2 (symbol) replacements.

Where an environment matches the paper's, the names are its tables': Table 21 (SciWorld) and Table 22
(MAZE, TextCraft, BabyAI), written with ``_`` for spaces because our actions are tool-call names
(``move up`` -> ``move_up``). BFCL multi-turn, DBBench and Wordle carry our own synonym maps, each
naming its reason in ``source``; symbols are ``z1, z2, …`` in the map's fixed order.
:func:`check_map` enforces that a map renames every action to distinct new names that collide
neither with each other nor with any original name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from robustcall.interface._bfcl_map import BFCL_SYNONYMS

SCIWORLD_SYNONYMS: tuple[tuple[str, str], ...] = (
    ("look_around", "survey"),
    ("look_at", "inspect"),
    ("look_in", "peek"),
    ("put_down", "drop_item"),
    ("pick_up", "grab"),
    ("focus_on", "target"),
    ("go_to", "navigate_to"),
    ("deactivate", "stop"),
    ("disconnect", "unlink"),
    ("activate", "start"),
    ("connect", "link"),
    ("inventory", "bag"),
    ("examine", "analyze"),
    ("move", "relocate"),
    ("open", "unseal"),
    ("close", "seal"),
    ("use", "utilize"),
    ("read", "peruse"),
    ("pour", "decant"),
    ("dunk", "immerse"),
    ("mix", "blend"),
    ("eat", "consume"),
    ("flush", "rinse"),
    ("wait1", "pause1"),
    ("wait", "pause"),
    ("task", "objective"),
)
"""Table 21 (SciWorld), in its order; ``pausel`` there is read as ``pause1`` (wait1 -> pause1)."""

BABYAI_SYNONYMS: tuple[tuple[str, str], ...] = (
    ("toggle_and_go_through", "open_and_enter"),
    ("turn_right", "rotate_right"),
    ("turn_left", "rotate_left"),
    ("move_forward", "advance"),
    ("go_to", "navigate_to"),
    ("pick_up", "grab"),
    ("go_through", "enter"),
    ("toggle", "switch"),
)
"""Table 22 (BabyAI), in its order."""

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
    dual_words: bool = False
    """Dual mode, where ``rewrite_words`` is off: plain-word originals in free text are still presented as the
    pair (``The door is now unseal (or open).``), so that both families are shown evenly. ScienceWorld's
    observations use its one-word actions as ordinary words ("The door is now open.", "You move to the
    kitchen.", "You decide to wait for 1 iterations."): left alone, an agent is shown ``open`` hundreds of
    times and ``unseal`` only in the tool list, and even a reader with no preference leans to the originals
    (IR 1.4-1.9 for ``scripted:random``). The strict levels keep these words (the prose stays readable)."""
    phrases: tuple[str, ...] = ()
    """Originals whose environment text spells them with spaces (``focus_on`` appears as "focus on" in
    ScienceWorld's task descriptions): that spelling is rewritten too, into the displayed name spelled
    the same way (``target``, ``drop item``, ``z6``)."""

    @property
    def originals(self) -> list[str]:
        return [o for o, _ in self.synonyms]

    def text_names(self, dual: bool = False) -> list[str]:
        """The originals that display-side rewriting replaces in free text (``dual``: in dual mode)."""
        words = self.rewrite_words or (dual and self.dual_words)
        return [o for o in self.originals if words or not is_plain_word(o)]

    def text_forms(self, dual: bool = False) -> dict[str, str]:
        """Every spelling that display-side rewriting replaces in free text -> its original name."""
        forms = {o: o for o in self.text_names(dual)}
        forms.update({o.replace("_", " "): o for o in self.phrases})
        return forms

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
            "sciworld",
            SCIWORLD_SYNONYMS,
            "Table 21 (SciWorld)",
            rewrite_words=False,
            dual_words=True,
            phrases=("look_around", "look_at", "look_in", "put_down", "pick_up", "focus_on", "go_to"),
        ),
        InterfaceMap(
            "babyai",
            BABYAI_SYNONYMS,
            "Table 22 (BabyAI)",
            phrases=(
                "toggle_and_go_through",
                "turn_right",
                "turn_left",
                "move_forward",
                "go_to",
                "pick_up",
                "go_through",
            ),
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
