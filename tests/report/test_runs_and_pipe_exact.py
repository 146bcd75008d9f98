"""Loading runs for a report (names, aliases, baseline), the files ``write_report`` writes, and the PIPE tables,
on hand-built inputs with values worked out by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from robustcall.core import InputError, Trajectory, Verdict
from robustcall.metrics import GhostCounts
from robustcall.report import load_run, load_runs, load_sizes, write_report
from robustcall.report._pipe import CurvePoint, curve_rows, pipe_tables
from robustcall.report._write import find_run, resolve_baseline, resolve_sizes


def verdict(source: str, code: str, correct: bool | None, component: str) -> Verdict:
    return Verdict(
        id=source if code == "clean" else f"{source}__{code}",
        benchmark="b",
        type=code,
        component=component,
        correct=correct,
        score=float(bool(correct)),
        error_mode=None if correct is not False else "wrong",
    )


def make_run(root: Path, folder: str, model: str | None, verdicts: list[Verdict], summary: Any = None) -> Path:
    path = root / folder
    path.mkdir()
    if model is not None:
        (path / "run.json").write_text(json.dumps({"model": model}))
    (path / "scores.jsonl").write_text("".join(x.model_dump_json() + "\n" for x in verdicts))
    if summary is not None:
        (path / "summary.json").write_text(summary)
    return path


# Clean 2/4, Typo 3/4, MisDesc 1/2, one Typo record an infra error
VERDICTS = [
    *(verdict(f"s{i}", "clean", i < 2, "clean") for i in range(4)),
    *(verdict(f"s{i}", "realistic_typos", i != 0, "observation") for i in range(4)),
    verdict("s4", "realistic_typos", None, "observation"),
    verdict("s0", "CD", True, "reward"),
    verdict("s1", "CD", False, "reward"),
]


def test_run_names_aliases_and_baseline(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", "openai:gpt-x@http://127.0.0.1:1/v1", VERDICTS)
    b = make_run(tmp_path, "b", "local", VERDICTS[:4])
    c = make_run(tmp_path, "c", "local", VERDICTS[:4])
    d = make_run(tmp_path, "d", None, VERDICTS[:4])
    runs = load_runs([a, b, c, d], resamples=0, seed=0)
    assert [r.name for r in runs] == ["gpt-x", "local (b)", "local (c)", "d"]
    assert find_run("gpt-x", runs) is runs[0]
    assert find_run("c", runs) is runs[2]  # by folder name
    assert find_run(str(b), runs) is runs[1]  # by path
    assert find_run("nobody", runs) is None
    with pytest.raises(InputError, match="names several runs"):
        find_run("local", runs)
    assert resolve_baseline("a", runs) == "gpt-x" and resolve_baseline(None, runs) is None
    with pytest.raises(InputError, match="--baseline 'zz' is none of the runs"):
        resolve_baseline("zz", runs)


def test_load_run_statistics_and_ghost_calls(tmp_path: Path) -> None:
    ghost = GhostCounts(calls=7, near_miss=1, invented=1)
    path = make_run(tmp_path, "r", "m", VERDICTS, summary=json.dumps({"ghost_calls": ghost.model_dump()}))
    r = load_run(path, resamples=0, seed=0)
    assert r.ghost_calls is None  # not a summary this version can read: the column shows —
    r = load_run(path, resamples=0, seed=0, name="given")
    assert r.name == "given" and len(r.verdicts) == 11
    assert (r.stats.clean.value, r.stats.pert_acc.value) == pytest.approx((0.5, 4 / 6))
    assert r.stats.delta["observation"].value == pytest.approx(0.5 - 3 / 4)
    assert r.stats.delta["reward"].value == 0.0 and r.stats.infra_errors == 1
    assert r.error_modes == {"clean": {"wrong": 1.0}, "observation": {"wrong": 1.0}, "reward": {"wrong": 1.0}}
    assert r.beyond is None


def test_write_report_files(tmp_path: Path) -> None:
    a = make_run(tmp_path, "a", "alpha", VERDICTS)
    b = make_run(tmp_path, "b", "beta", [*VERDICTS[:4], *(verdict(f"s{i}", "CD", True, "reward") for i in range(2))])
    out = tmp_path / "out"
    files = write_report([a, b], out, resamples=0, baseline="alpha", paper=False)
    # alpha: Pert. Acc. 4/6 = 0.667, Δ_Obs = 0.5 − 0.75, Δ_Rew = 0.5 − 0.5; retention undefined (no Action)
    # beta: Pert. Acc. 2/2 (first row), Δ_Rew = 0.5 − 1.0
    assert (out / "table2.csv").read_text() == (
        "Model,Clean ↑,Pert. Acc. ↑,Δ_Obs ↓,Δ_Act ↓,Δ_Rew ↓,Δ_Trn ↓,Retention ↑\n"
        "beta,0.500,1.000,—,—,-0.500,—,—\n"
        "alpha (baseline),0.500,0.667,-0.250,—,0.000,—,—\n"
    )
    assert (out / "per_type_reward.csv").read_text() == (
        "Model,Clean,MisDesc\nalpha,0.500,0.500 (+0.000)\nbeta,0.500,1.000 (+0.500)\n"
    )
    names = sorted(p.name for p in files.tables)
    assert names == sorted(
        f"{stem}.{ext}"
        for stem in ("table2", "per_type_observation", "per_type_reward", "error_modes", "tokens", "tokens_per_type")
        for ext in ("md", "csv", "tex")
    )
    assert files.notes == ["Figures 2 and 3 (against model size) need --sizes: not drawn"]
    summary = json.loads(files.summary.read_text())
    assert summary["beta"]["clean"] == {"value": 0.5, "ci95": None} and summary["alpha"]["infra_errors"] == 1
    assert "<li><b>alpha</b>: " in files.html.read_text()


MAP = [["go", "move"], ["take", "grab"]]


def episode(
    model: str,
    level: str,
    calls: list[str],
    success: bool | None,
    order: int | None = None,
    task: str = "a",
    score: float | None = None,
) -> Trajectory:
    config: dict[str, Any] = {"env": "toy", "level": level, "interface_map": MAP}
    if order is not None:
        config["order"] = order
    steps = [{"index": i, "action": {"name": c, "arguments": {}}} for i, c in enumerate(calls)]
    return Trajectory.model_validate(
        {
            "id": f"{level}/{task}/{order}/{calls}",
            "env": "toy",
            "task_id": task,
            "model": model,
            "config": config,
            "steps": steps,
            "success": success,
            "score": (1.0 if success else 0.0) if score is None else score,
            "termination": "infra" if success is None else "done",
        }
    )


PIPE = [
    episode("m", "origin", ["go"], True, task="a"),
    episode("m", "origin", ["go"], False, task="b"),
    episode("m", "origin", ["go"], None, task="c"),  # an infra error: out of the rate
    episode("m", "synonym", ["move", "go"], True),  # go is hidden under synonyms: one legacy call
    episode("m", "synonym", ["move"], True),
    episode("m", "symbol", ["z1", "fly"], False),  # fly is no action at all: hallucinated, legacy
    episode("m", "dual", ["go", "go", "move"], True, order=1),  # (n_ori, n_syn) = (2, 1)
    episode("m", "dual", ["grab"], True, order=2),  # (0, 1)
]


def test_pipe_tables() -> None:
    success, legacy, reliance = pipe_tables(PIPE)
    # s0 = 1/2, s1 = 2/2, s2 = 0/1, Δ = (1 + 0) / 2 − 0.5 = 0
    assert success.rows == [["m", "toy", "0.500", "1.000", "0.000", "0.000", "0.500", "1.000", "0.000"]]
    assert legacy.rows == [["m", "toy", "synonym", "2", "0.50", "1"], ["m", "toy", "symbol", "1", "1.00", "1"]]
    # eq. 3: IR = exp((log((2 + α)/(1 + α)) + log(α/(1 + α))) / 2); naive over both episodes at α = 1: (1.5 + 0.5) / 2
    expected = [math.sqrt((2 + a) / (1 + a) * a / (1 + a)) for a in (0.5, 1.0, 2.0)]
    assert [f"{x:.2f}" for x in expected] == ["0.75", "0.87", "0.94"]
    # naive (eq. 4) at α = 0.5, 1, 2 over both episodes: (2.5/1.5 + 0.5/1.5) / 2, (1.5 + 0.5) / 2, (4/3 + 2/3) / 2
    assert reliance.rows == [["m", "toy", "1", "1", "0.75", "0.87", "0.94", "1.00", "1.00", "1.00"]]
    # §6's averaged counts: task a averages to (1, 1), a ratio of 1 at every α
    assert pipe_tables(PIPE, "counts")[2].rows == [["m", "toy", "1", "1", *["1.00"] * 6]]
    # one order only: eq. 1 over its episodes; Table 11's naive IR at every α: (2 + α) / (1 + α) for one episode
    one = pipe_tables([PIPE[6]])[2]
    assert one.rows == [["m", "toy", "1", "0", "1.67", "1.50", "1.33", "1.67", "1.50", "1.33"]]
    assert one.header[-3:] == ["naive IR α=0.5", "naive IR α=1", "naive IR α=2"]


def test_pipe_score_is_the_mean_reward_with_success_rate_beside_it() -> None:
    """§3.1, footnote 1: where the environment has a reward (SciWorld's 0-100 score, BabyAI's reward) the
    score is mean r(τ): an unsolved SciWorld episode at 42/100 counts 0.42, a solved BabyAI one its reward."""
    eps = [
        episode("m", "origin", ["go"], False, task="a", score=0.42),
        episode("m", "origin", ["go"], True, task="b", score=0.91),
        episode("m", "synonym", ["move"], False, task="a", score=0.0),
        episode("m", "symbol", ["z1"], True, task="a", score=1.0),
    ]
    (success, *_) = pipe_tables(eps)
    # s0 = (0.42 + 0.91) / 2 = 0.665, s1 = 0, s2 = 1, Δ = 0.5 − 0.665; success rates 1/2, 0, 1
    assert success.rows == [["m", "toy", "0.665", "0.000", "1.000", "-0.165", "0.500", "0.000", "1.000"]]


def test_curve_rows() -> None:
    rows = curve_rows([("ckpt-1", PIPE), ("ckpt-0", PIPE[:3])])
    assert rows[0].name == "ckpt-1" and rows[0].score == {"origin": 0.5, "synonym": 1.0, "symbol": 0.0}
    assert rows[0].success == rows[0].score
    # Figure 5: IR at α = 0.5, 1, 2 (eq. 3 over the two orders)
    expected = {a: math.sqrt((2 + a) / (1 + a) * a / (1 + a)) for a in (0.5, 1.0, 2.0)}
    assert rows[0].ir == pytest.approx(expected)
    assert rows[1].score == {"origin": 0.5, "synonym": None, "symbol": None}
    assert rows[1].ir == {0.5: None, 1.0: None, 2.0: None}
    header = "checkpoint,score_origin,score_synonym,score_symbol,success_origin,success_synonym,success_symbol,"
    assert header + "ir_alpha0.5,ir_alpha1,ir_alpha2" == CurvePoint.CSV_HEADER
    assert rows[1].csv_row() == "ckpt-0,0.5,,,0.5,,,,,"


def test_sizes_file_and_what_it_leaves_out(tmp_path: Path) -> None:
    sizes = tmp_path / "sizes.yaml"
    sizes.write_text("alpha: 3\nb: 1.5\nnobody: 7\n")
    assert load_sizes(sizes) == {"alpha": 3.0, "b": 1.5, "nobody": 7.0}
    a = make_run(tmp_path, "a", "alpha", VERDICTS)
    b = make_run(tmp_path, "b", "beta", VERDICTS)
    c = make_run(tmp_path, "c", "gamma", VERDICTS)
    runs = load_runs([a, b, c], resamples=0, seed=0)
    by_name, notes = resolve_sizes(load_sizes(sizes), runs, "sizes.yaml")
    assert by_name == {"alpha": 3.0, "beta": 1.5}  # "b" is beta's folder
    assert notes == [
        "sizes.yaml: 'nobody' match no run (runs: alpha (folder a); beta (folder b); gamma (folder c))",
        "Figures 2 and 3 leave out runs with no size in sizes.yaml: gamma",
    ]
    bad = tmp_path / "bad.yaml"
    bad.write_text("alpha: -3\n")
    with pytest.raises(InputError, match="size of 'alpha' must be a positive number of billions, got -3"):
        load_sizes(bad)
    bad.write_text("- alpha\n")
    with pytest.raises(InputError, match="expected a mapping of model name -> size"):
        load_sizes(bad)
