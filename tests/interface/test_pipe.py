"""PIPE: IR formulas and Appendix G, map consistency, solvability under every interface, strict and
dual counts for scripted policies with exactly known values, no leaked original names."""

from __future__ import annotations

import asyncio
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.interface import MAPS, InterfaceEnv, InterfaceMap, check_map, episode_counts, make_env
from robustcall.metrics._pipe import interface_reliance, ir_log, naive_interface_reliance, pipe_delta
from robustcall.run import run_pipe

MAX_STEPS = 30  # the expert needs up to 28 moves in the default mazes


def test_appendix_g_worked_example() -> None:
    tasks = [(0, 1), (20, 0)]  # GPT-3.5-turbo on BabyAI, alpha = 1
    assert naive_interface_reliance(tasks, 1.0) == 10.75
    assert interface_reliance(tasks, None, 1.0) == pytest.approx(math.sqrt(0.5 * 21))


def test_eq3_averages_the_two_orders_in_log_space() -> None:
    o1, o2 = [(3, 0), (0, 2)], [(5, 1)]
    expected = math.exp((ir_log(o1, 2.0) + ir_log(o2, 2.0)) / 2)
    assert interface_reliance(o1, o2, 2.0) == pytest.approx(expected)
    assert ir_log(o1, 2.0) == pytest.approx((math.log(5 / 2) + math.log(2 / 4)) / 2)
    assert interface_reliance([(4, 4)], [(0, 0)], 0.5) == 1.0
    assert pipe_delta(0.8, 0.6, 0.2) == pytest.approx(-0.4)
    with pytest.raises(ValueError):
        ir_log([(1, 1)], 0.0)


def test_maps_are_consistent() -> None:
    for m in MAPS.values():
        check_map(m)
        assert list(m.names("symbol").values()) == [f"z{i + 1}" for i in range(len(m.synonyms))]
    with pytest.raises(ValueError, match="also an original name"):
        check_map(InterfaceMap("x", (("go", "move"), ("move", "walk")), "test"))
    with pytest.raises(ValueError, match="share a name"):
        check_map(InterfaceMap("x", (("a", "b"), ("c", "b")), "test"))
    assert MAPS["maze"].names("synonym")["move_up"] == "go_north"  # Table 22


def _envs(shared_data: Path | None) -> list[str]:
    return ["maze", "wordle"] if shared_data is not None else ["maze"]


@pytest.fixture
def data() -> Path | None:
    SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"  # as tests/conftest.py

    wordle = SHARED_DATA / "wordle"
    return wordle if wordle.is_dir() else None


def _run(env: str, level: str, policy: str, out: Path, data: Path | None, order: int = 1):  # type: ignore[no-untyped-def]
    return asyncio.run(
        run_pipe(env, level, f"scripted:{policy}", out, data=data, order=order, limit=4, max_steps=MAX_STEPS)  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("env", ["maze", "wordle"])
@pytest.mark.parametrize("level", ["origin", "synonym", "symbol"])
def test_expert_solves_every_task_under_every_interface(
    env: str, level: str, tmp_path: Path, data: Path | None
) -> None:
    if env == "wordle" and data is None:
        pytest.skip("../shared/data/wordle not found")
    trajs = _run(env, level, "expert", tmp_path, data)
    assert len(trajs) == 4 and all(t.success for t in trajs)
    assert all(episode_counts(t).legacy == 0 for t in trajs)


@pytest.mark.parametrize("level", ["synonym", "symbol"])
def test_name_memoriser_fails_strict_mode_with_every_call_a_legacy_call(level: str, tmp_path: Path) -> None:
    trajs = _run("maze", level, "memorise", tmp_path, None)
    assert [t.success for t in trajs] == [False] * 4
    # the expert's first move is refused every time, so every one of the MAX_STEPS calls is legacy
    assert [episode_counts(t).legacy for t in trajs] == [MAX_STEPS] * 4
    first = trajs[0].steps[0]
    assert (
        first.observation
        == f"Invalid Action: {first.action.name} . Use {MAPS['maze'].names(level)[first.action.name]} instead."
    )  # type: ignore[union-attr]


def test_dual_interface_reliance_is_high_for_the_memoriser_and_one_for_the_reader(tmp_path: Path) -> None:
    env = make_env("maze")
    lengths = []
    for task in sorted(env.task_ids()[:4]):  # shortest-path lengths: the expert's episode lengths (runs sort by id)
        env.reset(task)
        n = 0
        while (a := env.expert_action()) is not None:
            env.step(a)
            n += 1
        lengths.append(n)
    mem = {o: _run("maze", "dual", "memorise", tmp_path / f"m{o}", None, o) for o in (1, 2)}
    counts = {o: [(episode_counts(t).n_ori, episode_counts(t).n_syn) for t in mem[o]] for o in (1, 2)}
    assert counts[1] == counts[2] == [(n, 0) for n in lengths]
    ir = interface_reliance(counts[1], counts[2], 1.0)
    assert ir == pytest.approx(math.exp(sum(math.log(n + 1) for n in lengths) / 4)) and ir > 5
    reader = {o: _run("maze", "dual", "expert", tmp_path / f"r{o}", None, o) for o in (1, 2)}
    rc = {o: [(episode_counts(t).n_ori, episode_counts(t).n_syn) for t in reader[o]] for o in (1, 2)}
    assert rc[1] == [(0, n) for n in lengths] and rc[2] == [(n, 0) for n in lengths]
    assert interface_reliance(rc[1], rc[2], 1.0) == pytest.approx(1.0)


@pytest.mark.parametrize("level", ["synonym", "symbol"])
def test_no_observation_leaks_an_original_name(level: str, tmp_path: Path) -> None:
    originals = re.compile(r"\b(" + "|".join(MAPS["maze"].originals) + r")\b")
    for policy in ("expert", "memorise"):
        for t in _run("maze", level, policy, tmp_path / policy, None):
            shown = [m.content for m in t.messages if m.role != "assistant"] + [s.observation for s in t.steps]
            leaked = [text for text in shown if originals.search(text)]
            # a legacy call's refusal names the agent's own call; nothing else may
            assert all(text.startswith("Invalid Action: ") for text in leaked), leaked[:2]
    env = InterfaceEnv(make_env("maze"), MAPS["maze"], level)  # type: ignore[arg-type]
    start = env.reset(env.task_ids()[0])
    text = " ".join([start.instruction, start.observation, *(f"{x.name} {x.description}" for x in start.tools)])
    assert not originals.search(text)


def test_pipe_cli_run_and_report(tmp_path: Path) -> None:
    runner = CliRunner()
    for level, policy in (("origin", "expert"), ("synonym", "expert"), ("symbol", "memorise"), ("dual", "memorise")):
        r = runner.invoke(
            app,
            [
                "pipe",
                "run",
                "--env",
                "maze",
                "--level",
                level,
                "--model",
                f"scripted:{policy}",
                "--limit",
                "2",
                "--max-steps",
                "30",
                "--out",
                str(tmp_path / level),
            ],
        )
        assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        [
            "pipe",
            "report",
            *(str(tmp_path / lv) for lv in ("origin", "synonym", "symbol", "dual")),
            "--out",
            str(tmp_path / "tables"),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "| scripted:expert | maze | 1.000 | 1.000 | — | — | 1.000 | 1.000 | — |" in r.output
    assert "| scripted:memorise | maze | symbol | 2 | 30.00 | 2 |" in r.output
    assert (tmp_path / "tables" / "pipe_ir.tex").is_file()


def test_pipe_curve_over_checkpoints(tmp_path: Path) -> None:
    r = CliRunner().invoke(
        app,
        ["pipe", "curve", "--env", "maze", "--checkpoint", "early=scripted:memorise",
         "--checkpoint", "late=scripted:expert", "--limit", "2", "--out", str(tmp_path)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    lines = (tmp_path / "curve.csv").read_text().splitlines()
    assert lines[0].endswith(",ir_alpha0.5,ir_alpha1,ir_alpha2")
    early = lines[1].split(",")
    assert early[:7] == ["early", "1.0", "0.0", "0.0", "1.0", "0.0", "0.0"]
    ir = [float(x) for x in early[7:]]  # Figure 5: IR at α = 0.5, 1, 2; a smaller α gives a larger IR
    assert ir[0] > ir[1] > ir[2] > 5
    late = lines[2].split(",")
    assert late[0] == "late" and [float(x) for x in late[1:]] == pytest.approx([1.0] * 9)
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.realmodel
def test_local_model_runs_a_few_episodes_per_level(tmp_path: Path) -> None:
    from robustcall.models.local import check

    if not check().ready:
        pytest.skip("embedded local model not set up (robustcall model setup)")
    settings = tmp_path / "settings.yaml"
    settings.write_text("local:\n  max_tokens: 96\n")  # a step is one short call: bound its cost
    for level in ("origin", "synonym", "symbol", "dual"):
        trajs = asyncio.run(
            run_pipe("maze", level, "local", tmp_path / level, limit=1, max_steps=2, order=1, settings=settings)  # type: ignore[arg-type]
        )
        assert len(trajs) == 1 and trajs[0].termination in ("done", "step_limit", "no_action")
        assert trajs[0].steps and trajs[0].steps[0].raw_output  # the model answered through the server


TABLE_18 = (
    "You are given few useful crafting recipes to craft items in Minecraft. Crafting commands are of the format "
    '"craft [target object] using [input ingredients]".\n'
    "Every round I will give you an observation, you have to respond an action based on the state and instruction. "
    "You can get an object (ingredients) from the inventory or the environment, look-up the game inventory by "
    "inventory, or craft (target) using any of the crafting commands.\n"
    "Reminder: (1) Always specify the quantity when using get and craft. (2) For get, do not specify whether the "
    "item comes from inventory or environment. (3) Use ONLY provided crafting commands; if a command uses a "
    "generic ingredient like planks, you may use a specific type (e.g., dark oak planks)."
)
TABLE_19 = (
    "You are given few useful crafting recipes to make items in Minecraft. Crafting commands are of the format "
    '"make [target object] using [input ingredients]".\n'
    "Every round I will give you an observation, you have to respond an action based on the state and instruction. "
    "You can take an object (ingredients) from the bag or the environment, look-up the game bag by bag, or make "
    "(target) using any of the crafting commands.\n"
    "Reminder: (1) Always specify the quantity when using take and make. (2) For take, do not specify whether the "
    "item comes from bag or environment. (3) Use ONLY provided crafting commands; if a command uses a generic "
    "ingredient like planks, you may use a specific type (e.g., dark oak planks)."
)
TABLE_20 = (
    "You are given few useful crafting recipes to z3 items in Minecraft. Crafting commands are of the format "
    '"z3 [target object] using [input ingredients]".\n'
    "Every round I will give you an observation, you have to respond an action based on the state and instruction. "
    "You can z1 an object (ingredients) from the z2 or the environment, look-up the game z2 by z2, or z3 (target) "
    "using any of the crafting commands.\n"
    "Reminder: (1) Always specify the quantity when using z1 and z3. (2) For z1, do not specify whether the item "
    "comes from z2 or environment. (3) Use ONLY provided crafting commands; if a command uses a generic ingredient "
    "like planks, you may use a specific type (e.g., dark oak planks)."
)


@pytest.mark.parametrize(("level", "expected"), [("origin", TABLE_18), ("synonym", TABLE_19), ("symbol", TABLE_20)])
def test_textcraft_prompts_are_tables_18_to_20(level: str, expected: str) -> None:
    """Tables 18-20 word for word (but the output-schema paragraph, which the run's --format gives)."""
    env = InterfaceEnv(make_env("textcraft"), MAPS["textcraft"], level)  # type: ignore[arg-type]
    assert env.reset(env.task_ids()[0]).instruction == expected
