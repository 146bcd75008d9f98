"""ScienceWorld (PyPI ``scienceworld``, AgentGym's SciWorld): elementary-science tasks in a text
simulation of a house, run by the package's Java simulator (needs a Java 11+ runtime).

Actions: the 26 of Table 21 (paper 002), one tool each, named with ``_`` for spaces (``look around``
-> ``look_around``) and turned into the simulator's command text: ``pick_up(object)`` ->
``pick up <object>``, ``move(object, destination)`` -> ``move <object> to <destination>``,
``pour`` -> ``pour <object> in <destination>``, ``dunk`` -> ``dunk <object> in <container>`` (the
simulator's templates; its gold paths also write ``into``, which it reads alike),
``connect`` -> ``connect <object> to <target>``, ``use(object, target)`` -> ``use <object> on
<target>``; ``look_around``, ``inventory``, ``task``, ``wait`` (ten steps) and ``wait1`` (one) take
no argument.

Tasks: task ``sciworld-<name>-<k>`` is the k-th test variation of the simulator's task ``<name>``, without
simplifications. The task list (``size`` tasks, default 200: Table 8's SciWorld test set size) takes the
task types round-robin, variation 0 of each, then variation 1, ... (a type with fewer test variations drops
out), so the first N tasks of a run spread over the types. Four task types are left out
(``EXCLUDED``): their gold paths answer the simulator's "Ambiguous request: enter the number ..."
question with a bare number, which no Table 21 action can say. Score: the simulator's score / 100
(a failed task's negative score counts 0); solved at 100.

Expert: replays the simulator's gold action sequence for the task (computed once per task and
variation, kept for the process), the next action until the environment has run it. Gold commands
are read into calls by :func:`parse_command` (``drop X``, the simulator's other spelling of ``put
down X``, becomes ``put_down``).

One simulator (a JVM behind py4j) per live environment: an environment takes one from a pool when
built and gives it back when garbage-collected, so a fault run's fresh environment per episode does not
start a JVM each time; idle simulators are closed at exit. The JVM runs with one identity hash code for
all objects (``JVM_OPTIONS``), which makes the simulator repeatable: same task and actions, same
observations and score, on every load and in every process. Steps call the simulator's server object
directly (``step`` / ``getScore`` / ``getCompleted``): the package's ``step`` also lists every valid
action each time, which costs ~0.1 s a step and is not needed.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import weakref
from typing import Any

from robustcall.core import ToolCall, ToolSpec
from robustcall.envs._protocol import EnvReset, EnvStep

EXCLUDED = ("grow-fruit", "grow-plant", "mendelian-genetics-known-plant", "mendelian-genetics-unknown-plant")

_OBJ = {"type": "string", "description": "An object as the observation names it, e.g. 'metal pot'."}
_NONE: tuple[str, ...] = ()
_ONE = ("object",)
ACTIONS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    # (tool name, command verb, arguments, description); Table 21's order (symbols z1..z26)
    ("look_around", "look around", _NONE, "Describe the room you are in."),
    ("look_at", "look at", _ONE, "Describe an object in detail."),
    ("look_in", "look in", _ONE, "Describe a container's contents."),
    ("put_down", "put down", _ONE, "Drop an object from the inventory."),
    ("pick_up", "pick up", _ONE, "Move an object to the inventory."),
    ("focus_on", "focus on", _ONE, "Signal that an object is the one the task is about (use with care)."),
    ("go_to", "go to", ("location",), "Move to a neighbouring location (through an open door)."),
    ("deactivate", "deactivate", _ONE, "Switch a device off."),
    ("disconnect", "disconnect", _ONE, "Disconnect an electrical component."),
    ("activate", "activate", _ONE, "Switch a device on."),
    ("connect", "connect", ("object", "target"), "Connect two electrical components."),
    ("inventory", "inventory", _NONE, "List what you carry."),
    ("examine", "examine", _ONE, "Describe an object in detail."),
    ("move", "move", ("object", "destination"), "Move an object into a container or place."),
    ("open", "open", _ONE, "Open a container or door."),
    ("close", "close", _ONE, "Close a container or door."),
    ("use", "use", ("object", "target"), "Use a device or item on something."),
    ("read", "read", _ONE, "Read a note, book or recipe."),
    ("pour", "pour", ("object", "destination"), "Pour a liquid into a container."),
    ("dunk", "dunk", ("object", "container"), "Dunk an object into a container."),
    ("mix", "mix", _ONE, "Chemically mix the contents of a container."),
    ("eat", "eat", _ONE, "Eat food."),
    ("flush", "flush", _ONE, "Flush a toilet."),
    ("wait1", "wait1", _NONE, "Do nothing for one step."),
    ("wait", "wait", _NONE, "Do nothing for ten steps."),
    ("task", "task", _NONE, "Show the task description again."),
)
_SEP = {"connect": " to ", "move": " to ", "pour": " in ", "dunk": " in ", "use": " on "}
_ALIASES = {"drop": "put_down"}
"""Gold-path verbs the simulator reads as one of Table 21's actions."""
_BY_NAME = {a[0]: a for a in ACTIONS}
INSTRUCTION = (
    "You are an agent in ScienceWorld, a text simulation of a house with rooms, containers, devices, "
    "substances, plants and animals. Act one action at a time; each observation tells you what happened. "
    "Objects are named as the observations name them."
)

# ---- the simulator pool ------------------------------------------------------------------------
_IDLE: list[Any] = []


JVM_OPTIONS = "-XX:+UnlockExperimentalVMOptions -XX:hashCode=2"
"""Every object's identity hash code is 1 in the simulator's JVM. The simulator keeps each container's
contents in a hash set of objects that do not define ``hashCode``, so the order in which objects are
updated each tick (heat reaching a pot, then its contents melting) followed the JVM's identity hashes,
which differ from load to load and process to process: the same actions scored differently (boil,
variation 1: 0.78 or 1.0) and the gold path itself changed. With one hash code for all, the order is the
order objects were added, the same on every load."""


def _acquire() -> Any:
    if _IDLE:
        return _IDLE.pop()
    from scienceworld import ScienceWorldEnv  # type: ignore[import-untyped]

    # the package starts ``java`` with no options of ours; the JVM reads this variable at start
    before = os.environ.get("JAVA_TOOL_OPTIONS")
    os.environ["JAVA_TOOL_OPTIONS"] = f"{before} {JVM_OPTIONS}" if before else JVM_OPTIONS
    try:
        return ScienceWorldEnv("", envStepLimit=1_000_000)
    finally:
        if before is None:
            del os.environ["JAVA_TOOL_OPTIONS"]
        else:
            os.environ["JAVA_TOOL_OPTIONS"] = before


def _release(sim: Any) -> None:
    _IDLE.append(sim)


@atexit.register
def _close_idle() -> None:
    while _IDLE:
        with contextlib.suppress(Exception):  # a JVM that is already gone
            _IDLE.pop().close()


_GOLD: dict[tuple[str, int], list[str]] = {}
_VARIATIONS: dict[str, list[int]] = {}
TEST_SIZE = 200
"""Table 8's SciWorld test set size."""


def _test_variations(sim: Any, name: str) -> list[int]:
    """The simulator's test variations of task ``name`` (read once per process: a load takes ~0.7 s)."""
    if name not in _VARIATIONS:
        sim.load(name, 0, "")
        _VARIATIONS[name] = [int(v) for v in sim.get_variations_test()]
    return _VARIATIONS[name]


def command(call: ToolCall) -> str | None:
    """The simulator's command text for a call, or ``None`` when the call is malformed."""
    spec = _BY_NAME.get(call.name)
    if spec is None:
        return None
    _, verb, params, _ = spec
    values = []
    for p in params:
        v = call.arguments.get(p)
        if not isinstance(v, str) or not v.strip() or "\n" in v:
            return None
        values.append(v.strip())
    if not values:
        return verb
    if len(values) == 1:
        return f"{verb} {values[0]}"
    return f"{verb} {values[0]}{_SEP[call.name]}{values[1]}"


def parse_command(text: str) -> ToolCall | None:
    """A gold command as a call (for two-argument actions, split at the first separator; the command
    text the call renders is the same, or the simulator's ``in`` for a gold ``into``)."""
    verbs = [(a[1], a[0]) for a in ACTIONS] + list(_ALIASES.items())
    for verb, name in sorted(verbs, key=lambda v: -len(v[0])):
        params = _BY_NAME[name][2]
        if text == verb and not params:
            return ToolCall(name=name)
        if not params or not text.startswith(verb + " "):
            continue
        rest = text[len(verb) + 1 :]
        if len(params) == 1:
            return ToolCall(name=name, arguments={params[0]: rest})
        seps = (" into ", " in ") if _SEP[name] == " in " else (_SEP[name],)
        sep = next((x for x in seps if x in rest), None)
        if sep is None:
            continue
        first, _, second = rest.partition(sep)
        return ToolCall(name=name, arguments={params[0]: first, params[1]: second})
    return None


class SciWorldEnv:
    """The Env protocol over ScienceWorld tasks."""

    name = "sciworld"

    def __init__(self, tasks: tuple[str, ...] | None = None, size: int = TEST_SIZE) -> None:
        self._sim: Any = _acquire()
        weakref.finalize(self, _release, self._sim)
        names = [str(n) for n in self._sim.get_task_names() if str(n) not in EXCLUDED]
        if tasks is not None:
            unknown = sorted(set(tasks) - set(names))
            if unknown:
                raise ValueError(f"unknown ScienceWorld task(s) {', '.join(unknown)}; known: {', '.join(names)}")
            names = [n for n in names if n in tasks]
        counts = {n: len(_test_variations(self._sim, n)) for n in names}
        order = [(n, k) for k in range(max(counts.values(), default=0)) for n in names if k < counts[n]]
        self._ids = {f"sciworld-{n}-{k}": (n, k) for n, k in order[:size]}
        self._key: tuple[str, int] | None = None
        self._cursor = 0
        self._score = 0
        self._done = False

    def task_ids(self) -> list[str]:
        return list(self._ids)

    def tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                name=name,
                description=desc,
                parameters={"type": "object", "properties": {p: _OBJ for p in params}, "required": list(params)},
            )
            for name, _, params, desc in ACTIONS
        ]

    def reset(self, task_id: str, seed: int = 0) -> EnvReset:
        if task_id not in self._ids:
            raise KeyError(f"unknown ScienceWorld task {task_id!r}")
        name, k = self._ids[task_id]
        variation = _test_variations(self._sim, name)[k]
        key = (name, variation)
        if key not in _GOLD:
            self._sim.load(name, variation, "", generateGoldPath=True)
            _GOLD[key] = [str(a) for a in self._sim.get_gold_action_sequence()]
        else:
            self._sim.load(name, variation, "")
        self._key, self._cursor, self._score, self._done = key, 0, 0, False
        task = str(self._sim.get_task_description())
        return EnvReset(f"{INSTRUCTION}\n\n{task}", str(self._sim.look()), self.tools())

    def step(self, call: ToolCall) -> EnvStep:
        if self._key is None:
            raise RuntimeError("call reset() first")
        if self._done:
            return EnvStep("The task is over.", done=True, error=True)
        if call.name not in _BY_NAME:
            return EnvStep(f"Invalid action {call.name!r}: use one of the listed actions.", error=True)
        text = command(call)
        if text is None:
            params = ", ".join(_BY_NAME[call.name][2])
            return EnvStep(f"{call.name} needs {params or 'no arguments'} (one-line text).", error=True)
        observation = str(self._sim.server.step(text))
        self._score = round(100 * float(self._sim.server.getScore()))
        self._done = bool(self._sim.server.getCompleted()) or self._score < 0
        gold = _GOLD[self._key]
        if self._cursor < len(gold) and call == parse_command(gold[self._cursor]):
            self._cursor += 1
        failed = observation.startswith(("No known action matches", "Unknown action"))
        return EnvStep(observation, done=self._done, error=failed)

    def score(self) -> float:
        return min(1.0, max(0.0, self._score / 100))

    def expert_action(self) -> ToolCall | None:
        if self._key is None or self._done:
            return None
        gold = _GOLD[self._key]
        return parse_command(gold[self._cursor]) if self._cursor < len(gold) else None
