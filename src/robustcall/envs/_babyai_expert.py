"""The BabyAI expert: a shortest plan in tool calls, found by breadth-first search over the game's states.

The search knows the whole game (where every key, door and object is), like the oracle that wrote the
paper's expert trajectories; it plays candidate calls through ``BabyAIGame.step`` itself, on a copy of the
game, so a plan found here does in the game exactly what it did in the search. A state is what the eight
actions change: where the agent stands and faces, what it carries, which doors are open or locked, and how
far the mission's instruction has got (``open the red door, then ...``). Not tried, as they cannot shorten a
plan: closing a door, opening a box (it vanishes), picking up what is neither a key nor named in the mission
(no action puts it down), walking to a door but not through it, a failed call. States that differ only in
which doors are open count once (the first reached), which keeps the hardest default task to a few thousand
states. Over the 90 default tasks the longest plan is 12 calls (docs/pipe.md).
"""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

from robustcall.core import ToolCall
from robustcall.envs._babyai import BabyAIGame

MAX_STATES = 20_000
"""States the search may visit before giving up (the hardest default task needs a few thousand)."""
_FIXED = frozenset({"env", "desc", "desc_move", "desc_fixed", "instr_a", "instr_b", "strict"})
"""An instruction's attributes that never change during an episode; the rest is its progress."""


def _instr_nodes(instr: Any) -> list[Any]:
    subs = [getattr(instr, name, None) for name in ("instr_a", "instr_b")]
    return [instr, *(node for sub in subs if sub is not None for node in _instr_nodes(sub))]


class _Sim(BabyAIGame):
    def _describe(self) -> str:
        return ""  # the search reads what is in view once per state (``_Game.load``), not after every call


class _Game:
    """A copy of the game that can be put into any state the search reaches."""

    def __init__(self, env: BabyAIGame) -> None:
        self.sim = _Sim(levels=(), size=0)
        self.sim._env = copy.deepcopy(env._env.unwrapped)  # no wrappers: their checks are for the agent's game
        self.sim._env.gen_obs = lambda: {}  # nor the agent's image of the view, for every game move played here
        game = self.sim._game
        cells = [(i, j, game.grid.get(i, j)) for j in range(game.grid.height) for i in range(game.grid.width)]
        self.things = [((i, j), c) for i, j, c in cells if c is not None and c.can_pickup()]
        if game.carrying is not None:
            self.things.append(((-1, -1), game.carrying))
        self.doors = [c for _, _, c in cells if c is not None and c.type == "door"]
        self.nodes = _instr_nodes(game.instrs)
        self.wanted = [w for node in self.nodes if hasattr(node, "desc") for w in node.desc.obj_set]
        self.step_count = game.step_count  # kept, so that the search never reaches the move limit

    def save(self) -> tuple[Any, ...]:
        game = self.sim._game
        carried = next((k for k, (_, c) in enumerate(self.things) if c is game.carrying), None)
        progress = tuple(
            tuple((k, self._ref(v)) for k, v in sorted(vars(node).items()) if k not in _FIXED) for node in self.nodes
        )
        doors = tuple((d.is_open, d.is_locked) for d in self.doors)
        return (tuple(int(v) for v in game.agent_pos), int(game.agent_dir), carried, doors, progress)

    def _ref(self, value: Any) -> Any:
        """An instruction's remembered object (``preCarrying``) by its index, so that states compare."""
        return next((("thing", k) for k, (_, c) in enumerate(self.things) if c is value), value)

    def load(self, state: tuple[Any, ...], view: dict[str, tuple[int, int]] | None = None) -> None:
        """Put the game into ``state``; ``view``: what is in view there, when already known."""
        pos, d, carried, doors, progress = state
        game = self.sim._game
        for k, (where, thing) in enumerate(self.things):
            if where != (-1, -1):
                game.grid.set(*where, None if k == carried else thing)
                thing.cur_pos = (-1, -1) if k == carried else where
        game.carrying = None if carried is None else self.things[carried][1]
        for door, (is_open, is_locked) in zip(self.doors, doors, strict=True):
            door.is_open, door.is_locked = is_open, is_locked
        for node, saved in zip(self.nodes, progress, strict=True):
            for k, v in saved:
                setattr(node, k, self.things[v[1]][1] if isinstance(v, tuple) else v)
        game.agent_pos, game.agent_dir, game.step_count = pos, d, self.step_count
        self.sim._done, self.sim._solved = False, False
        if view is None:
            BabyAIGame._describe(self.sim)  # the objects in view from here, as the agent would be shown them
        else:
            self.sim._visible = view

    def calls(self) -> list[ToolCall]:
        """The calls worth trying from the loaded state: a door's way through, a key's or a wanted object's
        pick-up, each object's ``go_to``, then the moves."""
        game = self.sim._game
        out: list[ToolCall] = []
        for label, pos in self.sim._visible.items():
            thing = game.grid.get(*pos)
            if thing is None:
                continue
            if thing.type == "door":  # going to a door is the start of going through it
                name = "go_through" if thing.is_open else "toggle_and_go_through"
                out.append(ToolCall(name=name, arguments={"door": label}))
                continue
            out.append(ToolCall(name="go_to", arguments={"object": label}))
            if game.carrying is None and (thing.type == "key" or any(thing is w for w in self.wanted)):
                out.append(ToolCall(name="pick_up", arguments={"object": label}))
        front = game.grid.get(*game.front_pos)
        if front is not None and front.type == "door" and not front.is_open:
            out.append(ToolCall(name="toggle"))
        if front is None or front.can_overlap():
            out.append(ToolCall(name="move_forward"))
        return [*out, ToolCall(name="turn_left"), ToolCall(name="turn_right")]


def _key(state: tuple[Any, ...]) -> tuple[Any, ...]:
    """States that differ only in which doors are open count as one: the first reached is kept."""
    pos, d, carried, _, progress = state
    return pos, d, carried, progress


def shortest_plan(env: BabyAIGame, max_calls: int) -> list[ToolCall] | None:
    """The fewest calls (at most ``max_calls``) that accomplish the mission from the game's current state,
    or ``None`` when none is found (say, the agent carries an object it cannot put down)."""
    game = _Game(env)
    start = game.save()
    back: dict[tuple[Any, ...], tuple[tuple[Any, ...], ToolCall] | None] = {start: None}
    queue: deque[tuple[tuple[Any, ...], int]] = deque([(start, 0)])
    seen = {_key(start)}
    while queue and len(back) < MAX_STATES:
        state, depth = queue.popleft()
        if depth >= max_calls:
            break
        game.load(state)
        view = dict(game.sim._visible)
        for call in game.calls():
            game.load(state, view)
            out = game.sim.step(call)
            if game.sim._solved:
                plan = [call]
                while (link := back[state]) is not None:
                    state, taken = link
                    plan.append(taken)
                return plan[::-1]
            if out.error or out.done:
                continue
            after = game.save()
            if _key(after) not in seen:
                seen.add(_key(after))
                back[after] = (state, call)
                queue.append((after, depth + 1))
    return None


class BabyAIEnv(BabyAIGame):
    """The BabyAI environment with its expert (the one ``--env babyai`` builds)."""

    def expert_action(self) -> ToolCall | None:
        """The next call of a shortest plan (in calls) from the game's state; the plan is kept while the agent
        follows it and searched again when the agent did something else."""
        if self._env is None or self._done:
            return None
        if self._plan is None:
            self._plan = shortest_plan(self, self.EXPERT_MAX_CALLS)
        return self._plan[0] if self._plan else None
