"""The BFCL multi-turn, TextCraft and DBBench environments under PIPE: the expert solves them under
every interface, the name memoriser scores 0 with every call a legacy call, dual-mode IR, no leaked
original names, and dispatch that refuses unknown names and never evaluates text."""

from __future__ import annotations

import asyncio
import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import ToolCall, Trajectory
from robustcall.envs import BfclMultiTurnEnv, DbBenchEnv, TextCraftEnv
from robustcall.formats import parse_tool_calls
from robustcall.interface import MAPS, InterfaceEnv, check_map, episode_counts, make_env
from robustcall.interface._maps import is_plain_word
from robustcall.metrics._pipe import interface_reliance
from robustcall.run import run_pipe

SHARED_DATA = (Path(__file__).resolve().parents[3] / "shared" / "data").resolve()  # as tests/conftest.py
DBBENCH = SHARED_DATA / "agentbench_dbbench"
ENVS = ["bfcl_multi_turn", "textcraft", "dbbench"]
MAX_STEPS = 10


def _data(env: str) -> Path | None:
    if env != "dbbench":
        return None
    if not (DBBENCH / "dev.jsonl").is_file():
        pytest.skip(f"{DBBENCH} not found")
    return DBBENCH


def _run(env: str, level: str, policy: str, out: Path, *, limit: int | None, max_steps: int, order: int = 1):  # type: ignore[no-untyped-def]
    return asyncio.run(
        run_pipe(env, level, f"scripted:{policy}", out, data=_data(env), order=order, limit=limit, max_steps=max_steps)  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("level", ["origin", "synonym", "symbol"])
def test_expert_solves_every_task_under_every_interface(env: str, level: str, tmp_path: Path) -> None:
    # every task: 200 BFCL multi-turn base tasks, 20 TextCraft goals, the 60 DBBench dev tasks
    trajs = _run(env, level, "expert", tmp_path, limit=None, max_steps=80)
    assert len(trajs) == len(make_env(env, _data(env)).task_ids())
    assert [t.id for t in trajs if not t.success] == []
    assert all(episode_counts(t).legacy == 0 for t in trajs)


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("level", ["synonym", "symbol"])
def test_name_memoriser_scores_zero_with_every_call_a_legacy_call(env: str, level: str, tmp_path: Path) -> None:
    trajs = _run(env, level, "memorise", tmp_path, limit=6, max_steps=MAX_STEPS)
    assert [t.score for t in trajs] == [0.0] * 6
    # the expert's first action is refused every time: each of the MAX_STEPS calls is a legacy call
    assert [episode_counts(t).legacy for t in trajs] == [MAX_STEPS] * 6
    first = trajs[0].steps[0]
    assert first.action is not None
    assert first.observation == (
        f"Invalid Action: {first.action.name} . Use {MAPS[env].names(level)[first.action.name]} instead."
    )


@pytest.mark.parametrize("env", ENVS)
def test_dual_interface_reliance_is_high_for_the_memoriser_and_one_for_the_reader(env: str, tmp_path: Path) -> None:
    def counts(policy: str, order: int) -> list[tuple[int, int]]:
        trajs = _run(env, "dual", policy, tmp_path / f"{policy}{order}", limit=3, max_steps=80, order=order)
        assert all(t.success for t in trajs)
        return [(episode_counts(t).n_ori, episode_counts(t).n_syn) for t in trajs]

    mem = {o: counts("memorise", o) for o in (1, 2)}
    assert all(n_ori > 0 and n_syn == 0 for n_ori, n_syn in mem[1] + mem[2])
    expected = math.exp(sum(math.log(n + 1) for n, _ in mem[1]) / 3)
    assert interface_reliance(mem[1], mem[2], 1.0) == pytest.approx(expected) and expected > 2
    reader = {o: counts("expert", o) for o in (1, 2)}
    assert all(n_ori == 0 for n_ori, _ in reader[1]) and all(n_syn == 0 for _, n_syn in reader[2])
    assert interface_reliance(reader[1], reader[2], 1.0) == pytest.approx(1.0)


def _shown_texts(t: Trajectory) -> list[str]:
    return [m.content for m in t.messages if m.role != "assistant"] + [s.observation for s in t.steps]


@pytest.mark.parametrize("env", ENVS)
@pytest.mark.parametrize("level", ["synonym", "symbol"])
def test_no_observation_leaks_an_original_name(env: str, level: str, tmp_path: Path) -> None:
    imap = MAPS[env]
    # BFCL keeps plain-word names (sort, add) in prose, where user turns quote literal content
    names = imap.text_names()
    assert env != "bfcl_multi_turn" or all(not is_plain_word(n) for n in names)
    originals = re.compile(r"\b(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")
    for policy in ("expert", "memorise"):
        for t in _run(env, level, policy, tmp_path / policy, limit=6, max_steps=40):
            leaked = [text for text in _shown_texts(t) if originals.search(text)]
            # a legacy call's refusal names the agent's own call; nothing else may
            assert all(text.startswith("Invalid Action: ") for text in leaked), leaked[:2]
    wrapped = InterfaceEnv(make_env(env, _data(env)), imap, level)  # type: ignore[arg-type]
    for task in wrapped.task_ids()[:20]:
        start = wrapped.reset(task)
        assert not set(imap.originals) & {x.name for x in start.tools}
        text = " ".join([start.instruction, start.observation, *(x.description for x in start.tools)])
        assert not originals.search(text), originals.search(text)


def test_maps_of_the_new_environments_are_consistent() -> None:
    from robustcall.envs._bfcl_wheel import API_CLASSES, function_docs

    for env in ENVS:
        check_map(MAPS[env])
    docs = [s.name for c in API_CLASSES for s in function_docs()[c]]
    assert MAPS["bfcl_multi_turn"].originals == docs and len(docs) == 128  # symbols z1..z128 in BFCL's order
    assert MAPS["bfcl_multi_turn"].names("symbol")["startEngine"] == "z128"
    assert MAPS["textcraft"].names("synonym") == {"get": "take", "inventory": "bag", "craft": "make"}  # Table 22
    assert MAPS["textcraft"].names("symbol") == {"get": "z1", "inventory": "z2", "craft": "z3"}


def test_each_map_names_its_source_as_the_module_docstring_says() -> None:
    # Table 21 (SciWorld), Table 22 (MAZE, TextCraft, BabyAI); BFCL, DBBench and Wordle are ours
    tables = {env: m.source.split(" (")[0] if m.source.startswith("Table") else "ours" for env, m in MAPS.items()}
    assert tables == {
        "maze": "Table 22",
        "textcraft": "Table 22",
        "babyai": "Table 22",
        "sciworld": "Table 21",
        "bfcl_multi_turn": "ours",
        "dbbench": "ours",
        "wordle": "ours",
    }


# ---- BFCL: fresh instances, dispatch, turns ----------------------------------------------------


def test_bfcl_turns_arrive_as_user_messages_and_the_episode_ends_after_the_last(tmp_path: Path) -> None:
    env = BfclMultiTurnEnv()
    (t,) = _run("bfcl_multi_turn", "origin", "expert", tmp_path, limit=1, max_steps=80)
    users = [m.content for m in t.messages if m.role == "user"]
    env.reset(t.task_id)
    assert (
        t.task_id == "multi_turn_base_0" and users[0].startswith(env.task.turns[0]) and users[1:] == env.task.turns[1:]
    )
    assert t.termination == "done" and t.success


def test_bfcl_episodes_get_fresh_instances_and_the_score_is_state_based() -> None:
    env = BfclMultiTurnEnv()
    env.reset("multi_turn_base_0")
    env.step(ToolCall(name="cd", arguments={"folder": "document"}))
    env.step(ToolCall(name="mkdir", arguments={"dir_name": "temp"}))
    assert env.answer("done") is not None
    assert env.turn_verdicts()[0] is False  # the move of turn 0 is missing: state differs from the ground truth
    env.reset("multi_turn_base_0")
    out = env.step(ToolCall(name="ls", arguments={}))
    assert "temp" not in out.observation and env.score() == 0.0  # a fresh file system; nothing done yet
    other = BfclMultiTurnEnv()
    other.reset("multi_turn_base_0")
    assert other._owners["ls"] is not env._owners["ls"]


def test_bfcl_dispatch_refuses_unknown_names_and_never_evaluates_text(tmp_path: Path) -> None:
    env = BfclMultiTurnEnv()
    env.reset("multi_turn_base_0")
    for name in ("_load_scenario", "__init__", "system", "post_tweet_x"):
        out = env.step(ToolCall(name=name, arguments={}))
        assert out.error and out.observation.startswith("Error during execution: no function named")
    excluded = env.task.excluded
    if excluded:
        assert env.step(ToolCall(name=excluded[0].split(".")[-1], arguments={})).error
    assert "unexpected argument" in env.step(ToolCall(name="ls", arguments={"path": "/"})).observation
    assert "must be of type" in env.step(ToolCall(name="cd", arguments={"folder": 3})).observation
    marker = tmp_path / "pwned"
    payload = f"__import__('os').system('touch {marker}')"
    env.step(ToolCall(name="cd", arguments={"folder": "document"}))
    env.step(ToolCall(name="touch", arguments={"file_name": "x.txt"}))
    env.step(ToolCall(name="echo", arguments={"content": payload, "file_name": "x.txt"}))
    shown = env.step(ToolCall(name="cat", arguments={"file_name": "x.txt"})).observation
    assert json.loads(shown) == {"file_content": payload}  # stored verbatim, a string
    assert not marker.exists()
    # model text is parsed, never run: a call expression as an argument stays its source text
    parsed = parse_tool_calls(f"[echo(content={payload}, file_name='y')]", "bfcl", env.tools())
    assert parsed.calls[0].arguments["content"] == payload
    env.step(parsed.calls[0])
    assert not marker.exists()


# ---- TextCraft and DBBench ---------------------------------------------------------------------


def test_textcraft_tasks_and_recipe_lists_are_deterministic() -> None:
    a, b = TextCraftEnv(), TextCraftEnv()
    assert a.task_ids() == b.task_ids() and len(a.task_ids()) == 100  # Table 8's TextCraft test set size
    assert [a.reset(t).observation for t in a.task_ids()[:5]] == [b.reset(t).observation for t in b.task_ids()[:5]]
    a.reset("textcraft-0")
    assert a.step(ToolCall(name="get", arguments={"count": 1, "item": "oak log\ninventory"})).error
    assert a.step(ToolCall(name="get", arguments={"count": "x", "item": "oak log"})).error
    assert a.step(ToolCall(name="inventory")).observation.startswith("Inventory: ")


def test_dbbench_scores_and_sql_sandbox() -> None:
    env = DbBenchEnv(_data("dbbench") or DBBENCH)
    query = next(t for t in env.task_ids() if env._tasks[t].kind not in ("INSERT", "UPDATE", "DELETE"))
    env.reset(query)
    assert env.step(ToolCall(name="execute_sql", arguments={"sql": "ATTACH DATABASE 'x.db' AS x"})).error
    loop = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"
    assert env.step(ToolCall(name="execute_sql", arguments={"sql": loop})).observation == "SQL error: interrupted"
    env.step(ToolCall(name="commit_final_answer", arguments={"answer": ["certainly wrong"]}))
    assert env.score() == 0.0
    update = next(t for t in env.task_ids() if env._tasks[t].kind == "UPDATE")
    env.reset(update)
    env.step(ToolCall(name="commit_final_answer", arguments={"answer": []}))
    assert env.score() == 0.0  # the table was not changed


def test_pipe_cli_runs_the_new_environments(tmp_path: Path) -> None:
    runner = CliRunner()
    for env in ENVS:
        data = ["--data", str(_data(env))] if env == "dbbench" else []
        args = ["pipe", "run", "--env", env, *data, "--level", "symbol", "--model", "scripted:expert"]
        r = runner.invoke(app, [*args, "--limit", "2", "--max-steps", "60", "--out", str(tmp_path / env)])
        assert r.exit_code == 0, r.output
        assert (tmp_path / env / "trajectories.jsonl").read_text().count("\n") == 2


@pytest.mark.realmodel
def test_local_model_runs_an_episode_in_each_new_environment(tmp_path: Path) -> None:
    from robustcall.models.local import check

    if not check().ready:
        pytest.skip("embedded local model not set up (robustcall model setup)")
    settings = tmp_path / "settings.yaml"
    settings.write_text("local:\n  max_tokens: 96\n")  # a step is one short call: bound its cost
    for env, level in (("textcraft", "synonym"), ("dbbench", "symbol")):
        trajs = asyncio.run(
            run_pipe(env, level, "local", tmp_path / env, data=_data(env), limit=1, max_steps=2, settings=settings)  # type: ignore[arg-type]
        )
        assert len(trajs) == 1 and trajs[0].steps and trajs[0].steps[0].raw_output
        assert trajs[0].termination in ("done", "step_limit", "no_action")
