"""PIPE's interface rewrite as an Env wrapper: the agent sees renamed actions, the environment
still runs its original ones.

Display side: tool names, tool descriptions, the instruction and every observation have the
original names replaced by the displayed ones (whole words only). Server side: a displayed name is
translated back before the wrapped environment runs the call.

- ``synonym`` / ``symbol`` (strict mode, the paper's main setting): an original name is not
  valid; the call is not run and the agent sees Table 5's message,
  ``Invalid Action: <original> . Use <displayed> instead.`` (a *legacy call*).
- ``dual``: both families are listed as valid and equivalent (``order`` 1: synonyms first, 2:
  originals first, Table 10) and both run. Every place that names an action presents both, in the
  order's sequence: the tool list holds one spec per name, each saying which name it equals, and in
  the instruction, the tool descriptions and every observation a mention of an original name becomes
  ``<first> (or <second>)`` (order 1: ``go_north (or move_up)``; order 2: ``move_up (or go_north)``).

Every call is classified (:meth:`NameView.classify`): its *family* (``original`` or ``alias``, ``None``
for a name in neither) and whether it is a *legacy call* in Table 9's sense, "hallucinated or
deprecated": an original name the strict interface hides (deprecated), or a name that is no action
of the environment under any name (hallucinated; every mode).
"""

from __future__ import annotations

import re
from typing import Literal

from robustcall.core import InputError, ToolCall, ToolSpec
from robustcall.envs import Env, EnvReset, EnvStep, UserTurns, is_solved
from robustcall.interface._maps import InterfaceMap, Level

Mode = Literal["origin", "synonym", "symbol", "dual"]
MODES: tuple[Mode, ...] = ("origin", "synonym", "symbol", "dual")


def invalid_action(original: str, shown: str) -> str:
    """Table 5's strict-mode observation for a legacy call."""
    return f"Invalid Action: {original} . Use {shown} instead."


class NameView:
    """The names an interface mode shows, and how a called name counts (legacy call, family)."""

    def __init__(self, imap: InterfaceMap, mode: Mode) -> None:
        if mode not in MODES:
            raise InputError(f"unknown interface mode {mode!r}; valid: {', '.join(MODES)}")
        self.map, self.mode = imap, mode
        level: Level = "synonym" if mode == "dual" else mode
        self.shown = imap.names(level)  # original -> displayed
        self.back = {v: k for k, v in self.shown.items()}

    def family(self, name: str) -> Literal["original", "alias"] | None:
        """Which name family a called name belongs to (dual mode's n_ori / n_syn); ``None``: neither."""
        if name in self.shown:
            return "original"
        if name in self.back:
            return "alias"
        return None

    def is_deprecated(self, name: str) -> bool:
        """Strict mode: ``name`` is an original name the displayed interface hides."""
        return self.mode in ("synonym", "symbol") and name in self.shown and name not in self.back

    def is_hallucinated(self, name: str) -> bool:
        """``name`` is no action of the environment, under any of its names."""
        return self.family(name) is None

    def is_legacy(self, name: str) -> bool:
        """Table 9's count: a deprecated (hidden original) or a hallucinated name."""
        return self.is_deprecated(name) or self.is_hallucinated(name)

    def original_name(self, name: str) -> str:
        """The environment's own name of the action displayed as ``name`` (``name`` when it is one)."""
        return self.back.get(name, name)

    def classify(self, name: str) -> tuple[bool, Literal["original", "alias"] | None]:
        """``(legacy, family)`` of a called name, as recorded on its ``Step``."""
        return self.is_legacy(name), self.family(name)


class InterfaceEnv(NameView):
    """``env`` behind the interface of ``mode`` (or both original and synonym names in ``dual``)."""

    def __init__(self, env: Env, imap: InterfaceMap, mode: Mode, order: Literal[1, 2] = 1) -> None:
        super().__init__(imap, mode)
        self.env, self.order = env, order
        self.name = env.name
        self._forms = imap.text_forms(dual=mode == "dual")
        words = sorted(self._forms, key=len, reverse=True)
        alternatives = "|".join(re.escape(o) for o in words)
        self._pattern = re.compile(r"\b(" + alternatives + r")\b" if words else r"(?!)")
        if order not in (1, 2):
            raise ValueError(f"dual-interface order must be 1 (synonyms first) or 2 (originals first), got {order}")

    # display side ------------------------------------------------------------------------------
    def pair(self, original: str) -> tuple[str, str]:
        """Dual mode: an action's two names in this order's sequence (order 1: synonym first)."""
        syn = self.shown.get(original, original)
        return (syn, original) if self.order == 1 else (original, syn)

    def _mention(self, form: str) -> str:
        original = self._forms[form]
        spaced = form != original  # the text spells the name with spaces: so does the rewrite

        def spell(name: str) -> str:
            return name.replace("_", " ") if spaced else name

        if self.mode == "dual":
            first, second = self.pair(original)
            return f"{spell(first)} (or {spell(second)})"
        return spell(self.shown[original])

    def rewrite(self, text: str) -> str:
        """``text`` with every original action name replaced by its displayed name; in dual mode by
        both names, ``<first> (or <second>)``, in the order's sequence."""
        if self.mode == "origin":
            return text
        return self._pattern.sub(lambda m: self._mention(m.group(1)), text)

    def _tools(self, tools: list[ToolSpec]) -> list[ToolSpec]:
        if self.mode != "dual":
            return [
                t.model_copy(
                    update={"name": self.shown.get(t.name, t.name), "description": self.rewrite(t.description)}
                )
                for t in tools
            ]
        out = []
        for t in tools:
            syn = self.shown.get(t.name, t.name)
            text = self.rewrite(t.description)
            ori_spec = t.model_copy(update={"description": f"{text} Equivalent to {syn}."})
            syn_spec = t.model_copy(update={"name": syn, "description": f"{text} Equivalent to {t.name}."})
            out += [syn_spec, ori_spec] if self.order == 1 else [ori_spec, syn_spec]
        return out

    # Env protocol ----------------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        return self.env.task_ids()

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        r = self.env.reset(task_id, seed)
        unmapped = [t.name for t in r.tools if t.name not in self.shown]
        if unmapped:
            raise ValueError(f"{self.name}: the interface map has no names for {', '.join(unmapped)}")
        return EnvReset(self.rewrite(r.instruction), self.rewrite(r.observation), self._tools(r.tools))

    def step(self, call: ToolCall) -> EnvStep:
        name = call.name
        if self.is_deprecated(name):
            return EnvStep(invalid_action(name, self.shown[name]), error=True)
        original = self.back.get(name, name)
        result = self.env.step(call.model_copy(update={"name": original}))
        return EnvStep(self.rewrite(result.observation), result.done, result.error)

    def answer(self, text: str) -> EnvStep | None:
        """The next user turn (rewritten), when the wrapped environment has several."""
        reply = self.env.answer(text) if isinstance(self.env, UserTurns) else None
        return None if reply is None else EnvStep(self.rewrite(reply.observation), reply.done, reply.error)

    def score(self) -> float:
        return self.env.score()

    def solved(self) -> bool:
        return is_solved(self.env)

    def expert_action(self) -> ToolCall | None:
        """The expert's next action in the displayed names (the dual mode's expert uses synonyms)."""
        action = self.env.expert_action()
        return None if action is None else action.model_copy(update={"name": self.shown.get(action.name, action.name)})
