"""MAZE: walk a seeded grid maze from the top-left cell to the bottom-right one (AgentGym's MAZE task).

Actions (no arguments): ``move_up``, ``move_down``, ``move_left``, ``move_right``. Each task id
``maze-<size>-<k>`` is a perfect maze of ``size × size`` cells carved by a depth-first search whose
random stream is seeded by the task id, so every episode of a task is the same maze. The task list takes
the sizes in turn (4, 5, 6, 4, 5, ...): ``tasks`` of them, default 25, Table 8's MAZE test set size (every
one of them the expert solves in at most 28 moves, within the default step limit of 30).
"""

from __future__ import annotations

import random
from collections import deque

from robustcall.core import ToolCall, ToolSpec, seeded_rng
from robustcall.envs._protocol import EnvReset, EnvStep

MOVES = {"move_up": (-1, 0), "move_down": (1, 0), "move_left": (0, -1), "move_right": (0, 1)}
_DIRS = {"move_up": "up", "move_down": "down", "move_left": "left", "move_right": "right"}

Cell = tuple[int, int]
TEST_SIZE = 25
"""Table 8's MAZE test set size."""


def carve(size: int, rng: random.Random) -> dict[Cell, set[Cell]]:
    """Open passages of a perfect maze (randomised depth-first search)."""
    open_: dict[Cell, set[Cell]] = {(r, c): set() for r in range(size) for c in range(size)}
    stack, seen = [(0, 0)], {(0, 0)}
    while stack:
        r, c = stack[-1]
        nxt = [
            (r + dr, c + dc) for dr, dc in MOVES.values() if (r + dr, c + dc) in open_ and (r + dr, c + dc) not in seen
        ]
        if not nxt:
            stack.pop()
            continue
        cell = rng.choice(nxt)
        open_[(r, c)].add(cell)
        open_[cell].add((r, c))
        seen.add(cell)
        stack.append(cell)
    return open_


class MazeEnv:
    """The Env protocol over seeded mazes."""

    name = "maze"

    def __init__(self, sizes: tuple[int, ...] = (4, 5, 6), per_size: int = 9, tasks: int = TEST_SIZE) -> None:
        self._ids = [f"maze-{s}-{k}" for k in range(per_size) for s in sizes][:tasks]
        self._pos: Cell = (0, 0)
        self._goal: Cell = (0, 0)
        self._open: dict[Cell, set[Cell]] = {}

    def task_ids(self) -> list[str]:
        return list(self._ids)

    def tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                name=a,
                description=f"Move one cell {d} if no wall blocks the way.",
                parameters={"type": "object", "properties": {}},
            )
            for a, d in _DIRS.items()
        ]

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        if task_id not in self._ids:
            raise KeyError(f"unknown maze task {task_id!r}")
        size = int(task_id.split("-")[1])
        self._open = carve(size, seeded_rng(0, "maze", task_id))
        self._pos, self._goal = (0, 0), (size - 1, size - 1)
        instruction = (
            f"You are in a {size}x{size} maze at row 0, column 0 (rows grow downwards). "
            f"Reach the exit at row {size - 1}, column {size - 1}. Move one cell per action."
        )
        return EnvReset(instruction, self._describe(), self.tools())

    def _exits(self) -> list[str]:
        r, c = self._pos
        return [a for a, (dr, dc) in MOVES.items() if (r + dr, c + dc) in self._open[self._pos]]

    def _describe(self) -> str:
        r, c = self._pos
        ways = ", ".join(_DIRS[a] for a in self._exits())
        return f"You are at row {r}, column {c}. Open directions: {ways}."

    def step(self, call: ToolCall) -> EnvStep:
        if call.name not in MOVES:
            return EnvStep(f"Invalid action {call.name!r}. Valid actions: {', '.join(MOVES)}.", error=True)
        dr, dc = MOVES[call.name]
        target = (self._pos[0] + dr, self._pos[1] + dc)
        if target not in self._open[self._pos]:
            return EnvStep(f"A wall blocks the way {_DIRS[call.name]}. {self._describe()}", error=True)
        self._pos = target
        if self._pos == self._goal:
            return EnvStep(f"You reached the exit at row {target[0]}, column {target[1]}. Task complete.", done=True)
        return EnvStep(self._describe())

    def score(self) -> float:
        return 1.0 if self._pos == self._goal else 0.0

    def expert_action(self) -> ToolCall | None:
        """The first move of a shortest path to the exit (breadth-first search)."""
        if self._pos == self._goal:
            return None
        back: dict[Cell, Cell | None] = {self._goal: None}
        queue = deque([self._goal])
        while queue:
            cell = queue.popleft()
            for nxt in self._open[cell]:
                if nxt not in back:
                    back[nxt] = cell
                    queue.append(nxt)
        step = back[self._pos]
        assert step is not None
        move = (step[0] - self._pos[0], step[1] - self._pos[1])
        return ToolCall(name=next(a for a, d in MOVES.items() if d == move))
