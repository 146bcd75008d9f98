"""PIPE's dual-alias mode presents both families everywhere, IR's two ways of joining the orders,
legacy calls that include hallucinated names, and environments of your own (`--env pkg.mod:Class`)."""

from __future__ import annotations

import asyncio
import json
import math
import re
import shutil
import statistics
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import ToolCall
from robustcall.interface import MAPS, InterfaceEnv, episode_counts, make_env
from robustcall.metrics._pipe import averaged_counts, combined_interface_reliance, interface_reliance
from robustcall.models._api import ModelRequest
from robustcall.models._scripted import POLICIES, policy
from robustcall.run import run_pipe

SHARED_DATA = (Path(__file__).resolve().parents[3] / "shared" / "data").resolve()  # as tests/conftest.py
DATA = {"dbbench": SHARED_DATA / "agentbench_dbbench", "wordle": SHARED_DATA / "wordle"}
ENVS = ["maze", "textcraft", "dbbench", "bfcl_multi_turn", "wordle", "babyai", "sciworld"]


def _data(env: str) -> Path | None:
    if env not in DATA:
        return None
    if not DATA[env].is_dir():
        pytest.skip(f"{DATA[env]} not found")
    return DATA[env]


def _mentions(text: str, name: str, spaced: bool = False) -> int:
    """Whole-word mentions of ``name``; with ``spaced`` also spelled with spaces (``focus on``)."""
    spellings = sorted({re.escape(name), re.escape(name.replace("_", " ") if spaced else name)}, key=len, reverse=True)
    return len(re.findall(r"(?<![\w])(?:" + "|".join(spellings) + r")(?![\w])", text))


# ---- 1. dual mode: both families in the instruction, tool list and observations --------------


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("order", [1, 2])
def test_dual_mode_names_both_families_wherever_an_action_is_named(env: str, order: int) -> None:
    imap = MAPS[env]
    wrapped = InterfaceEnv(make_env(env, _data(env)), imap, "dual", order)  # type: ignore[arg-type]
    texts = []
    for task in wrapped.task_ids()[:5]:
        start = wrapped.reset(task)
        # a spec's description ends by naming the other family's spec: "... Equivalent to <name>."
        texts += [start.instruction, start.observation]
        texts += [t.description.rsplit(" Equivalent to ", 1)[0] for t in start.tools]
        names = [t.name for t in start.tools]
        for t in start.tools:  # each action twice, the order's family first
            if t.name in imap.originals:
                first, second = wrapped.pair(t.name)
                assert names.index(first) == names.index(second) - 1
        action = wrapped.env.expert_action()
        assert action is not None
        texts.append(wrapped.step(ToolCall(name="no_such_action", arguments={})).observation)  # lists valid actions
    text = "\n".join(texts)
    for original in imap.text_names():
        syn = imap.names("synonym")[original]
        first, second = (syn, original) if order == 1 else (original, syn)
        pairs = text.count(f"{first} (or {second})")
        if original in imap.phrases:  # the text spells it with spaces
            pairs += text.count(f"{first} (or {second})".replace("_", " "))
        # every mention of either name is the pair "<first> (or <second>)"
        spaced = original in imap.phrases
        assert _mentions(text, original, spaced) == _mentions(text, syn, spaced) == pairs
    if env in ("dbbench", "textcraft"):  # their instructions name the actions: now in both families
        assert " (or " in wrapped.reset(wrapped.task_ids()[0]).instruction


NO_PREFERENCE_PLAN = {  # env -> (tasks, run seeds): 2 orders x tasks x seeds >= 100 episodes
    "maze": (25, (0, 1)),
    "wordle": (25, (0, 1)),
    "textcraft": (50, (0,)),
    "dbbench": (50, (0,)),
    "bfcl_multi_turn": (50, (0,)),
    "babyai": (50, (0,)),
    "sciworld": (50, (0,)),
}


@pytest.mark.parametrize("env", ENVS)
def test_a_reader_without_preference_has_interface_reliance_one_in_every_environment(env: str, tmp_path: Path) -> None:
    """``scripted:random`` names each action by a draw weighted by the name's mentions in all it was shown.
    With both families presented evenly each call is a fair coin between them, so E[log ratio] = 0 per
    episode: over at least 100 episodes (both orders) IR must lie within 2 standard errors of 1. A prompt
    that shows one family more often fails it (SciWorld's observations used to say "open", "move", "wait"
    hundreds of times without "unseal", "relocate", "pause": IR 1.4-1.9)."""
    if env == "sciworld":
        pytest.importorskip("scienceworld")
        if shutil.which("java") is None:
            pytest.skip("sciworld needs java (apt-get install openjdk-17-jre-headless)")
    limit, seeds = NO_PREFERENCE_PLAN[env]
    logs, runs = [], []
    for seed in seeds:
        for order in (1, 2):
            out = tmp_path / f"{seed}-{order}"
            trajs = asyncio.run(
                run_pipe(env, "dual", "scripted:random", out, data=_data(env), order=order,  # type: ignore[arg-type]
                         limit=limit, max_steps=200, seed=seed)
            )  # fmt: skip
            assert all(episode_counts(t).legacy == 0 for t in trajs)  # both names work
            counts = {t.task_id: (episode_counts(t).n_ori, episode_counts(t).n_syn) for t in trajs}
            runs.append(counts)
            logs += [math.log((o + 1) / (s + 1)) for o, s in counts.values()]
    assert len(logs) >= 100 and sum(o + s for c in runs for o, s in c.values()) > 0
    mean, se = statistics.fmean(logs), statistics.stdev(logs) / math.sqrt(len(logs))
    ir = combined_interface_reliance(runs[0], runs[1], 1.0)  # one seed's two orders: eq. 3 is their mean log
    assert math.log(ir) == pytest.approx(statistics.fmean(logs[: 2 * limit]))
    assert abs(mean) <= 2 * se, (env, math.exp(mean), se)


def test_the_random_reader_follows_the_mentions() -> None:
    from robustcall.core import EvalConfig, Message, Sample, SourceInfo, ToolSpec
    from robustcall.models._scripted import mentions

    sample = Sample(
        id="s", benchmark="maze", category="multi_turn", source=SourceInfo(original_id="s", benchmark="maze"),
        conversation=[], tools=[], golden_answers=[], eval_config=EvalConfig(method="exact", output_format="json"),
    )  # fmt: skip
    req = ModelRequest(
        messages=[Message(role="user", content="Use go_north (or move_up); move_up_fast is another word.")],
        tools=[ToolSpec(name="move_up", description="Move up. Equivalent to go_north.")],
        sample=sample,
    )
    assert (mentions(req, "move_up"), mentions(req, "go_north")) == (2, 2)


# ---- 2. joining the two orders -------------------------------------------------------------------


def test_eq3_and_section6_combinations_exact_values() -> None:
    o1, o2 = {"t": (3, 0)}, {"t": (0, 1)}
    # eq. 3: exp((log 4 + log 1/2) / 2) = sqrt 2; §6: counts (1.5, 0.5) -> 2.5 / 1.5 = 5/3
    assert combined_interface_reliance(o1, o2, 1.0) == pytest.approx(math.sqrt(2))
    assert combined_interface_reliance(o1, o2, 1.0, "counts") == pytest.approx(5 / 3)
    # Appendix G's example run in both orders alike: both combinations give its eq. 1 value sqrt(0.5 * 21)
    g = {"a": (0, 1), "b": (20, 0)}
    assert combined_interface_reliance(g, g, 1.0) == pytest.approx(math.sqrt(10.5))
    assert combined_interface_reliance(g, g, 1.0, "counts") == pytest.approx(math.sqrt(10.5))
    # tasks are matched by id; a task run in one order only is left out of the averaged counts
    assert averaged_counts({"a": (2, 0), "x": (9, 9)}, {"a": (0, 4)}) == [(1.0, 2.0)]
    assert interface_reliance(averaged_counts({"a": (2, 0)}, {"a": (0, 4)}), None, 2.0) == pytest.approx(3 / 4)
    with pytest.raises(ValueError):
        combined_interface_reliance(o1, o2, 1.0, "median")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        averaged_counts({"a": (1, 0)}, {"b": (0, 1)})


def test_pipe_report_says_which_combination_its_ir_table_uses(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["pipe", "run", "--env", "maze", "--level", "dual", "--model", "scripted:memorise", "--limit", "2"]
    assert runner.invoke(app, [*args, "--out", str(tmp_path / "dual")]).exit_code == 0
    default = runner.invoke(app, ["pipe", "report", str(tmp_path / "dual")])
    assert default.exit_code == 0, default.output
    assert "(eq. 3; > 1 prefers original names)" in default.output and "Orders combined by eq. 3" in default.output
    other = runner.invoke(app, ["pipe", "report", str(tmp_path / "dual"), "--ir-combine", "counts"])
    assert other.exit_code == 0 and "§6 averaged counts" in other.output
    bad = runner.invoke(app, ["pipe", "report", str(tmp_path / "dual"), "--ir-combine", "mean"])
    assert bad.exit_code != 0


# ---- 3. legacy calls: deprecated or hallucinated; Step.legacy / Step.family ----------------------

_SCRIPT = ["fly_north", "move_down", "go_south", "z2"]


@policy("pipe_test_names")
def _names(req: ModelRequest) -> list[ToolCall] | str:
    """Calls a hallucinated name, an original, a synonym and a symbol, then stops."""
    return [ToolCall(name=_SCRIPT[req.pass_index])] if req.pass_index < len(_SCRIPT) else "done"


@pytest.mark.parametrize(
    ("level", "legacy", "family", "executed"),
    [
        # fly_north: hallucinated in every mode; move_down hidden under synonym/symbol (deprecated)
        ("origin", [True, False, True, True], [None, "original", None, None], [None, "move_down", None, None]),
        ("synonym", [True, True, False, True], [None, "original", "alias", None], [None, None, "move_down", None]),
        ("symbol", [True, True, True, False], [None, "original", None, "alias"], [None, None, None, "move_down"]),
        ("dual", [True, False, False, True], [None, "original", "alias", None], [None, "move_down", "move_down", None]),
    ],
)
def test_every_step_records_legacy_and_family(
    level: str, legacy: list[bool], family: list[str | None], executed: list[str | None], tmp_path: Path
) -> None:
    assert "pipe_test_names" in POLICIES
    (t,) = asyncio.run(run_pipe("maze", level, "scripted:pipe_test_names", tmp_path, limit=1, max_steps=6))  # type: ignore[arg-type]
    steps = [s for s in t.steps if s.action is not None]
    assert [s.legacy for s in steps] == legacy
    assert [s.family for s in steps] == family
    # a hallucinated name reaches the environment (which refuses it) only under its own name
    ran = [s.executed.name if s.executed is not None and s.executed.name.startswith("move") else None for s in steps]
    assert ran == executed
    c = episode_counts(t)
    assert c.legacy == sum(legacy) == c.deprecated + c.hallucinated
    assert c.hallucinated == sum(f is None for f in family)


# ---- 4. --env package.module:Class for PIPE ------------------------------------------------------

_OWN_ENV = """
from robustcall.envs import MazeEnv


class SmallMaze(MazeEnv):
    name = "small_maze"
    synonyms = (("move_up", "climb"), ("move_down", "descend"), ("move_left", "port"), ("move_right", "starboard"))

    def __init__(self):
        super().__init__(sizes=(3,), per_size=2)


class NoMap(SmallMaze):
    synonyms = None
"""


def test_pipe_runs_an_environment_of_your_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "own_env_pipe.py").write_text(_OWN_ENV)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    base = ["pipe", "run", "--model", "scripted:expert", "--level", "synonym"]
    r = runner.invoke(app, [*base, "--env", "own_env_pipe:SmallMaze", "--out", "own"])
    assert r.exit_code == 0, r.output
    assert "2/2 episodes solved" in r.output
    line = json.loads((tmp_path / "own" / "trajectories.jsonl").read_text().splitlines()[0])
    assert line["config"]["interface_map"][0] == ["move_up", "climb"]
    assert {s["action"]["name"] for s in line["steps"]} <= {"climb", "descend", "port", "starboard"}
    (tmp_path / "map.json").write_text(
        json.dumps({"move_up": "u", "move_down": "d", "move_left": "l", "move_right": "r"})
    )
    r = runner.invoke(app, [*base, "--env", "own_env_pipe:NoMap", "--map", "map.json", "--out", "mapped"])
    assert r.exit_code == 0, r.output
    rep = runner.invoke(app, ["pipe", "report", "own", "mapped"])
    assert rep.exit_code == 0 and "| scripted:expert | own_env_pipe:NoMap | — | 1.000 |" in rep.output
    r = runner.invoke(app, [*base, "--env", "own_env_pipe:NoMap", "--out", "nomap"])
    assert r.exit_code == 1 and "has no interface map" in r.output and "Traceback" not in r.output  # input error
    r = runner.invoke(app, [*base, "--env", "nowhere:Nothing", "--out", "x"])
    assert r.exit_code == 1 and "cannot load environment" in r.output


def test_pipe_report_reads_the_newest_record_and_leaves_out_infra_episodes(tmp_path: Path) -> None:
    from robustcall.report._pipe import pipe_tables

    (t,) = asyncio.run(run_pipe("maze", "dual", "scripted:memorise", tmp_path, limit=1, max_steps=30))
    failed = t.model_copy(update={"steps": [], "success": None, "termination": "infra"})
    ir = {tb.name: tb for tb in pipe_tables([failed, t])}["pipe_ir"].rows
    assert ir == {tb.name: tb for tb in pipe_tables([t])}["pipe_ir"].rows  # the re-run replaces the failure
    assert {tb.name: tb for tb in pipe_tables([t, failed])}["pipe_ir"].rows == []  # still failed: no verdict
