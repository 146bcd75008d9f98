"""BabyAI (PyPI ``minigrid``, its BabyAI levels; AgentGym's BabyAI): follow a grid-world instruction
("go to the red ball", "open the blue door", "pick up a key") from a partial, egocentric view given as text.

Actions: the eight of Table 22 (paper 002), named with ``_`` for spaces. Four are the game's own
moves: ``turn_left``, ``turn_right``, ``move_forward``, ``toggle`` (open / close / unlock what is in
front). Four are AgentGym's compound actions on an object the last observation lists (``red ball 1``;
the number tells same-looking objects apart): ``go_to(object)`` walks to the cell in front of it and
faces it (shortest path over the cells the agent can walk), ``pick_up(object)`` goes to it and picks it
up, ``go_through(door)`` goes to an open door and steps through it, ``toggle_and_go_through(door)``
goes to a door, opens it and steps through. A compound action runs the game's moves one by one and
stops at the first one that fails or ends the episode.

Observation (after AgentGym's): the objects in view with their offsets ("a red ball 1: 2 steps
forward and 1 step left"), what is directly in front, and what the agent carries.

Tasks: ``babyai-<level>-<k>`` is the level (``BabyAI-<level>-v0``) reset with seed k; the task list
(``size`` tasks, default 90: Table 8's BabyAI test set size) takes the levels round-robin like AgentGym's
server (task i: level ``i mod L``, seed ``i div L``), so the first N tasks spread over the levels. The levels
(``LEVELS``) are those the eight actions can solve (no ``drop``: Table 22 has none, so PutNext and the
levels whose solution drops a key are left out). Score: the game's reward as AgentGym reports it
(``1 − 0.9 · moves / move limit`` on success, else 0); success: the game says the mission is done.

Expert (``_babyai_expert``, whose ``BabyAIEnv`` is the registered environment): a shortest plan in calls
from the game's full state, found by breadth-first search, kept while the agent follows it and searched
again when the agent did something else. It solves all 90 default tasks within 12 calls (mean 2.2); the old
expert (minigrid's ``BabyAIBot``, exploring room by room) needed up to 75.
"""

from __future__ import annotations

from typing import Any

from robustcall.core import ToolCall, ToolSpec
from robustcall.envs._protocol import EnvReset, EnvStep

LEVELS = (
    "GoToRedBallGrey",
    "GoToRedBall",
    "GoToRedBallNoDists",
    "GoToObj",
    "GoToLocal",
    "GoToDoor",
    "GoToObjDoor",
    "OpenDoor",
    "OpenDoorColor",
    "OpenDoorLoc",
    "OpenRedDoor",
    "OpenTwoDoors",
    "Open",
    "PickupLoc",
    "PickupDist",
    "ActionObjDoor",
    "UnlockLocal",
    "Unlock",
    "OneRoomS8",
    "FindObjS5",
)
"""Levels whose every task (seeds 0-4) the expert solves with Table 22's actions; see docs/pipe.md for
those left out."""
TEST_SIZE = 90
"""Table 8's BabyAI test set size."""
_OBJECT = {"type": "string", "description": "An object as the last observation lists it, e.g. 'red ball 1'."}
_DOOR = {"type": "string", "description": "A door as the last observation lists it, e.g. 'blue door 1'."}
ACTIONS: tuple[tuple[str, dict[str, Any] | None, str], ...] = (
    # Table 22's order (symbols z1..z8)
    ("toggle_and_go_through", _DOOR, "Go to a door, open it and walk through it."),
    ("turn_right", None, "Turn 90 degrees to the right."),
    ("turn_left", None, "Turn 90 degrees to the left."),
    ("move_forward", None, "Move one step forward."),
    ("go_to", _OBJECT, "Walk to an object in view and face it."),
    ("pick_up", _OBJECT, "Go to an object in view and pick it up."),
    ("go_through", _DOOR, "Go to an open door and walk through it."),
    ("toggle", None, "Open, close or unlock (with the right key) the door or box in front of you."),
)
_NAMES = [a[0] for a in ACTIONS]
INSTRUCTION = (
    "You are an agent in a grid world of rooms, doors, keys, balls and boxes. You see the cells in front of "
    "and beside you (7 x 7, walls block the view). Objects are named by colour, type and a number, as the "
    "observation lists them. Your goal: {mission}."
)
_DIRS = ((1, 0), (0, 1), (-1, 0), (0, -1))  # minigrid's agent_dir: 0 east, 1 south, 2 west, 3 north


def _steps(n: int) -> str:
    return f"{n} step{'s' if n != 1 else ''}"


class BabyAIGame:
    """The Env protocol over BabyAI levels, without the expert (``BabyAIEnv`` in ``_babyai_expert.py``
    adds it: the expert's search plays the game through this class)."""

    name = "babyai"
    EXPERT_MAX_CALLS = 30
    """The longest plan the expert looks for: the default step limit of ``pipe run``."""

    def __init__(self, levels: tuple[str, ...] = LEVELS, size: int = TEST_SIZE) -> None:
        import minigrid  # noqa: F401 - registers the BabyAI levels with gymnasium

        picked = [(levels[i % len(levels)], i // len(levels)) for i in range(size)]
        self._ids = {f"babyai-{lv}-{k}": (lv, k) for lv, k in picked}
        self._envs: dict[str, Any] = {}
        self._env: Any = None
        self._visible: dict[str, tuple[int, int]] = {}
        self._plan: list[ToolCall] | None = None
        """The rest of the expert's plan from the game's state, once searched."""
        self._solved = False
        self._reward = 0.0
        self._done = False

    def task_ids(self) -> list[str]:
        return list(self._ids)

    def tools(self) -> list[ToolSpec]:
        out = []
        for name, arg, desc in ACTIONS:
            key = "door" if arg is _DOOR else "object"
            props = {key: arg} if arg is not None else {}
            params = {"type": "object", "properties": props, "required": list(props)}
            out.append(ToolSpec(name=name, description=desc, parameters=params))
        return out

    # the game --------------------------------------------------------------------------------
    @property
    def _game(self) -> Any:
        if self._env is None:
            raise RuntimeError("call reset() first")
        return self._env.unwrapped

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        import gymnasium as gym

        if task_id not in self._ids:
            raise KeyError(f"unknown BabyAI task {task_id!r}")
        level, k = self._ids[task_id]
        if level not in self._envs:
            self._envs[level] = gym.make(f"BabyAI-{level}-v0")
        self._env = self._envs[level]
        self._env.reset(seed=k)
        self._solved, self._done, self._reward, self._plan = False, False, 0.0, None
        return EnvReset(INSTRUCTION.format(mission=self._game.mission), self._describe(), self.tools())

    def _move(self, action: int) -> bool:
        """One game move; ``False`` once the episode is over."""
        _, reward, terminated, truncated, _ = self._env.step(action)
        if terminated and reward > 0:
            self._solved, self._reward = True, float(reward)
        self._done = bool(terminated or truncated)
        return not self._done

    def _describe(self) -> str:
        game = self._game
        grid, vis = game.gen_obs_grid()
        size = grid.width
        seen: list[tuple[int, int, str, tuple[int, int]]] = []
        for i in range(size):
            for j in range(size):
                cell = grid.get(i, j)
                if not vis[i, j] or cell is None or cell.type in ("wall", "empty", "floor"):
                    continue
                if (i, j) == (size // 2, size - 1):
                    continue  # the carried object, drawn at the agent's cell
                fwd, right = size - 1 - j, i - size // 2
                seen.append((abs(fwd) + abs(right), fwd, f"{cell.color} {cell.type}", (fwd, right)))
        seen.sort(key=lambda s: (s[0], -s[1], s[3][1], s[2]))
        counts: dict[str, int] = {}
        lines, self._visible = [], {}
        dx, dy = _DIRS[game.agent_dir]
        ax, ay = game.agent_pos
        for _, _, kind, (fwd, right) in seen:
            counts[kind] = counts.get(kind, 0) + 1
            label = f"{kind} {counts[kind]}"
            # world cell: forward along the facing direction, right = facing rotated clockwise
            self._visible[label] = (ax + dx * fwd - dy * right, ay + dy * fwd + dx * right)
            where = [f"{_steps(fwd)} forward"] if fwd else []
            where += [f"{_steps(abs(right))} {'right' if right > 0 else 'left'}"] if right else []
            state = self._door_state(self._visible[label])
            lines.append(f"a {label}{state}: {' and '.join(where)}")
        front = game.grid.get(*game.front_pos)
        ahead = "nothing" if front is None else f"a {front.color} {front.type}" if front.type != "wall" else "a wall"
        carrying = f"a {game.carrying.color} {game.carrying.type}" if game.carrying else "nothing"
        objects = "; ".join(lines) if lines else "nothing but walls"
        return f"You see: {objects}. Directly in front of you: {ahead}. You carry {carrying}."

    def _door_state(self, pos: tuple[int, int]) -> str:
        cell = self._game.grid.get(*pos)
        if cell is None or cell.type != "door":
            return ""
        return " (locked)" if cell.is_locked else " (open)" if cell.is_open else " (closed)"

    # compound actions ------------------------------------------------------------------------
    def _walkable(self, pos: tuple[int, int]) -> bool:
        cell = self._game.grid.get(*pos)
        return cell is None or cell.can_overlap()

    def _path_to(self, target: tuple[int, int]) -> list[int] | None:
        """Game moves (left 0, right 1, forward 2) that end next to ``target`` facing it (BFS over
        position and direction)."""
        from collections import deque

        game = self._game
        start = (tuple(game.agent_pos), int(game.agent_dir))
        back: dict[tuple[tuple[int, int], int], tuple[tuple[tuple[int, int], int], int] | None] = {start: None}
        queue = deque([start])
        while queue:
            (pos, d) = state = queue.popleft()
            dx, dy = _DIRS[d]
            if (pos[0] + dx, pos[1] + dy) == target:
                moves: list[int] = []
                cur = state
                while back[cur] is not None:
                    prev, move = back[cur]  # type: ignore[misc]
                    moves.append(move)
                    cur = prev
                return moves[::-1]
            ahead = (pos[0] + dx, pos[1] + dy)
            nexts = [((pos, (d - 1) % 4), 0), ((pos, (d + 1) % 4), 1)]
            if self._walkable(ahead):
                nexts.append(((ahead, d), 2))
            for nxt, move in nexts:
                if nxt not in back:
                    back[nxt] = (state, move)
                    queue.append(nxt)
        return None

    def _go_to(self, label: str) -> str | None:
        """Walk to a listed object; an error text, or ``None`` when the agent now faces it."""
        if label not in self._visible:
            listed = ", ".join(self._visible) or "nothing"
            return f"There is no {label!r} in view (in view: {listed})."
        path = self._path_to(self._visible[label])
        if path is None:
            return f"You cannot reach the {label} from here."
        for move in path:
            if not self._move(move):
                return None
        return None

    def step(self, call: ToolCall) -> EnvStep:
        if self._env is None:
            raise RuntimeError("call reset() first")
        if self._done:
            return EnvStep("The episode is over.", done=True, error=True)
        name = call.name
        if name not in _NAMES:
            return EnvStep(f"Invalid action {name!r}. Valid actions: {', '.join(_NAMES)}.", error=True)
        a = self._game.actions
        primitive = {"turn_left": a.left, "turn_right": a.right, "move_forward": a.forward, "toggle": a.toggle}
        error: str | None = None
        if name in primitive:
            self._move(primitive[name])
        else:
            arg = call.arguments.get("door" if name in ("go_through", "toggle_and_go_through") else "object")
            if not isinstance(arg, str) or not arg.strip():
                return EnvStep(f"{name} needs the name of an object in view, e.g. 'red ball 1'.", error=True)
            label = " ".join(arg.strip().lower().split()).removeprefix("the ")
            error = self._go_to(label)
            if error is None and not self._done:
                error = self._finish(name, label)
        # the plan holds while the agent follows it: the game is deterministic
        self._plan = self._plan[1:] if self._plan and self._plan[0] == call else None
        text = self._describe()
        if self._solved:
            text = f"{text} Mission accomplished."
        return EnvStep(text if error is None else f"{error} {text}", done=self._done, error=error is not None)

    def _finish(self, name: str, label: str) -> str | None:
        a = self._game.actions
        front = self._game.grid.get(*self._game.front_pos)
        if name == "go_to":
            return None
        if name == "pick_up":
            if front is None or not front.can_pickup():
                return f"You cannot pick up the {label}."
            if self._game.carrying is not None:
                return "You already carry something."
            self._move(a.pickup)
            return None
        if front is None or front.type != "door":
            return f"The {label} is not a door."
        if name == "toggle_and_go_through" and not front.is_open:
            self._move(a.toggle)
            if not front.is_open:
                return f"The {label} does not open (locked?)."
        if not front.is_open:
            return f"The {label} is closed."
        for _ in range(2):  # onto the door, then beyond it
            if self._done or not self._move(a.forward):
                break
        return None

    def score(self) -> float:
        """The game's reward, as AgentGym reports it: 1 − 0.9 · (moves / the level's move limit) when
        the mission is accomplished, else 0 (every game move of a compound action counts)."""
        return self._reward

    def solved(self) -> bool:
        return self._solved
