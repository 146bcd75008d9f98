"""``pipe stats``: paper 002's Tables 24 / 25 columns for our environments, exact where analytically known."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.envs import make_env
from robustcall.interface import MAPS, paper_row
from robustcall.report import pipe_env_table
from robustcall.run import add_trajectories, env_stats

runner = CliRunner()


def test_functions_are_the_maps_originals_and_match_the_papers_rows() -> None:
    want = {"maze": 4, "textcraft": 3, "babyai": 8, "sciworld": 26, "wordle": 1, "dbbench": 2, "bfcl_multi_turn": 128}
    assert {env: len(set(MAPS[env].originals)) for env in want} == want
    for env, n in want.items():
        row = paper_row(env)
        assert (row is None) == (env == "bfcl_multi_turn")
        assert row is None or row.functions == str(n)  # Tables 24 / 25 count the same originals
    maze = paper_row("maze")
    assert maze is not None and (maze.table, maze.trajectories, maze.rounds) == ("Table 25", "215", "4.2558")


def test_maze_prompt_lengths_differ_by_the_renamed_names_exactly() -> None:
    st = env_stats("maze")
    assert (st.functions, st.tasks, st.tools_per_task) == (4, 25, 4.0)
    # each action name appears once in the first request (its tool spec): move_up -> go_north (+1),
    # move_down -> go_south (-1), move_left -> go_west (-2), move_right -> go_east (-3); z1..z4: -5 -7 -7 -8
    assert st.prompt_chars["synonym"] - st.prompt_chars["origin"] == -5
    assert st.prompt_chars["symbol"] - st.prompt_chars["origin"] == -27
    assert st.prompt_words["synonym"] == st.prompt_words["origin"]


def test_wordle_prompt_names_guess_twice(shared_data: Path) -> None:
    st = env_stats("wordle", shared_data / "wordle", limit=5)
    assert (st.functions, st.tasks, st.tools_per_task) == (1, 5, 1.0)
    # guess -> submit_word (+6 characters), guess -> z1 (-3), twice per request
    assert st.prompt_chars["synonym"] - st.prompt_chars["origin"] == 12
    assert st.prompt_chars["symbol"] - st.prompt_chars["origin"] == -6


def _expert_steps(task: str) -> int:
    env = make_env("maze")
    env.reset(task)
    n = 0
    while (call := env.expert_action()) is not None:
        n += 1
        if env.step(call).done:
            break
    return n


def test_trajectory_columns_come_from_a_run(tmp_path: Path) -> None:
    run = tmp_path / "expert"
    res = runner.invoke(app, ["pipe", "run", "--env", "maze", "--model", "scripted:expert", "--limit", "3",
                              "--out", str(run)])  # fmt: skip
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["pipe", "stats", "--env", "maze", "--trajectories", str(run), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    tasks = make_env("maze").task_ids()[:3]
    rounds = sum(_expert_steps(t) for t in tasks) / 3
    row = (tmp_path / "pipe_envs.csv").read_text().splitlines()[1].split(",")
    assert row[:6] == ["maze", "3", f"{rounds:.4f}", "4", "25", "4.00"]
    assert row[-1] == "Table 25 MAZE: 215 / 4.2558 / 4"


def test_trajectory_columns_say_what_they_need_without_runs() -> None:
    st = env_stats("maze", limit=2)
    add_trajectories([st], [])
    row = pipe_env_table([st]).rows[0]
    assert row[:4] == ["maze", "needs trajectories", "needs trajectories", "4"]


def test_unknown_environment_and_missing_run_are_one_line_errors(tmp_path: Path) -> None:
    res = runner.invoke(app, ["pipe", "stats", "--env", "nowhere"])
    assert res.exit_code == 1 and res.output.startswith("error: nowhere: unknown environment 'nowhere'")
    res = runner.invoke(app, ["pipe", "stats", "--env", "maze", "--trajectories", str(tmp_path)])
    assert res.exit_code == 1 and "not a `robustcall pipe run` folder" in res.output
