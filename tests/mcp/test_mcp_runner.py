"""``mcp run`` over the shipped suite: the scripted expert's figures under every condition.

The live servers run once, on one task of each kind of server (``test_live_subset_...``); the whole
suite's analytic figures replay ``data/suite-recording`` (recorded by ``mcp run --tasks suite --model
scripted:expert --record``; when the suite changes, regenerate it with ``robustcall mcp run --tasks suite
--model scripted:expert --out /tmp/rec-run --record tests/mcp/data/suite-recording`` into an empty folder),
with 0 upstream calls.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from robustcall.core import read_trajectories
from robustcall.mcp import MCP_TYPES, load_tasks

DATA = Path(__file__).parent / "data"
RECORDING = DATA / "suite-recording"
BIN = Path(sys.executable).parent
SUITE = load_tasks(Path(__file__).resolve().parents[2] / "src" / "robustcall" / "mcp" / "suite" / "tasks.yaml")
N = len(SUITE.tasks)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "robustcall"), *args], capture_output=True, text=True, timeout=900)


def summary(out: Path) -> dict[str, dict[str, Any]]:
    return {r["condition"]: r for r in json.loads((out / "summary.json").read_text())}


def test_the_suite_has_thirty_tasks_over_four_kinds_of_server() -> None:
    assert N == 30
    assert {t.server for t in SUITE.tasks} == {"git", "sqlite", "time", "notes"}
    assert all(t.expert and t.target for t in SUITE.tasks)


def test_live_subset_one_task_per_server_records_and_replays(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.yaml"
    import yaml

    text = (Path(__file__).resolve().parents[2] / "src/robustcall/mcp/suite/tasks.yaml").read_text()
    data = yaml.safe_load(text)
    keep = {"git-stage-new-file", "sql-update-price", "time-utc-to-tokyo", "notes-copy"}
    data["tasks"] = [t for t in data["tasks"] if t["id"] in keep]
    tasks.write_text(yaml.safe_dump(data))
    live = cli("mcp", "run", "--tasks", str(tasks), "--model", "scripted:expert", "--out", str(tmp_path / "live"),
               "--record", str(tmp_path / "rec"))  # fmt: skip
    assert live.returncode == 0, live.stderr
    assert summary(tmp_path / "live")["clean"]["success"] == 1.0
    again = cli("mcp", "run", "--tasks", str(tasks), "--model", "scripted:expert", "--out", str(tmp_path / "rep"),
                "--replay", str(tmp_path / "rec"))  # fmt: skip
    assert again.returncode == 0, again.stderr
    verdicts = [{t.task_id: t.success for t in read_trajectories(tmp_path / run / "clean")} for run in ("live", "rep")]
    assert verdicts[0] == verdicts[1] and len(verdicts[0]) == 4
    replayed = read_trajectories(tmp_path / "rep" / "clean")
    assert all(t.config["upstream_calls"] >= 1 for t in replayed)  # answered from the recording ...
    assert not (tmp_path / "rep" / "work").exists()  # ... with no setup, no server, no task folder


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The expert over the whole suite, replayed, clean and under every tool perturbation, both
    renames and three fault profiles (one transient error, one anomaly, one renamed parameter, each at
    the first call)."""
    tmp = tmp_path_factory.mktemp("suite")
    profiles = []
    for name, faults in (("e503", "http_503"), ("anomaly", "empty_result"), ("drift", "param_renamed")):
        p = tmp / f"{name}.yaml"
        p.write_text(f"name: {name}\ndelta: 1.0\nat_calls: [0]\nsticky: true\nfaults: {{{faults}: 1}}\n")
        profiles += ["--profile", str(p)]
    out = tmp / "run"
    perturb = "tools,realistic_typos,query_paraphrase,ghost_tool,prompt_injection"
    done = cli("mcp", "run", "--tasks", "suite", "--model", "scripted:expert", "--out", str(out), "--replay",
               str(RECORDING), "--perturb", perturb, "--rename", "synonym", "--rename", "symbol",
               "--rename", "dual", *profiles)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_expert_is_perfect_clean_and_under_every_perturbation_and_rename(replayed: Path) -> None:
    rows = summary(replayed)
    perturbs = [f"perturb-{c}" for c in MCP_TYPES]
    for cond in ["clean", *perturbs, "rename-synonym", "rename-symbol"]:
        row = rows[cond]
        assert (row["episodes"], row["infra"], row["success"]) == (N, 0, 1.0), cond
        if cond != "clean":
            assert row["delta"] == 0.0 and row["retention"] == 1.0, cond
    assert all(rows[c]["distractor_calls"] == 0 for c in perturbs)
    # the injected instruction rode on every episode's first real result; the expert never obeys it
    assert rows["perturb-prompt_injection"]["injection_followed"] == 0
    injected = read_trajectories(replayed / "perturb-prompt_injection")
    assert all(t.config["injection"]["kind"] in ("stop", "call") for t in injected)
    assert all("IMPORTANT SYSTEM NOTICE" in next(s.observation for s in t.steps if s.action) for t in injected)
    assert rows["rename-synonym"]["legacy_calls"] == 0 and rows["rename-symbol"]["legacy_calls"] == 0
    assert rows["clean"]["pipe_delta"] == 0.0
    # dual: the expert calls the name listed first, the synonym in order 1 and the original in order 2,
    # so the two orders' log-ratios cancel: IR = 1
    assert rows["rename-dual1"]["success"] == rows["rename-dual2"]["success"] == 1.0
    assert rows["rename-dual1"]["ir"] == pytest.approx(1.0, abs=1e-12)


def test_memorise_always_calls_the_original_names_under_dual(tmp_path: Path) -> None:
    """``scripted:memorise`` calls the upstream's own names: with k calls an episode counts (k, 0), so
    IR = exp(mean log(k + 1)) in both orders (α = 1), and success stays 1.0 (both names run)."""
    done = cli("mcp", "run", "--tasks", "suite", "--model", "scripted:memorise", "--out", str(tmp_path / "o"),
               "--replay", str(RECORDING), "--rename", "dual")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = summary(tmp_path / "o")
    expected = math.exp(sum(math.log(len(t.expert) + 1) for t in SUITE.tasks) / N)
    assert rows["rename-dual1"]["ir"] == pytest.approx(expected, rel=1e-12)
    assert rows["rename-dual1"]["success"] == rows["rename-dual2"]["success"] == 1.0


def test_expert_under_faults_at_the_first_call(replayed: Path) -> None:
    rows = summary(replayed)
    transient, anomaly, drift = (rows[f"faults-{n}-d1"] for n in ("e503", "anomaly", "drift"))
    # a 503 at the first call: the expert retries it unchanged, and every task still succeeds
    assert (transient["success"], transient["rasr"], transient["infra"]) == (1.0, 1.0, 0)
    # the expert never names a fault in text, so under the papers' identify rule nothing counts as recovered
    assert transient["rr"] == 0.0 and transient["eia"] == 0.0
    # an anomaly corrupts what the expert reads, not what it does: every task still succeeds
    assert (anomaly["success"], anomaly["infra"]) == (1.0, 0)
    # drift replayed: the first call's parameter is renamed; the expert adapts and the upstream (the
    # recording) still sees the recorded call
    assert (drift["success"], drift["infra"]) == (1.0, 0)
    first = {
        t.task_id: (t.steps[0].fault or {}).get("fault_type") for t in read_trajectories(replayed / "faults-drift-d1")
    }
    # list_notes has no parameter to rename: the session makes one required instead
    assert first == {t.id: "param_required" if t.id == "notes-list" else "param_renamed" for t in SUITE.tasks}


def test_a_call_missing_from_the_recording_is_an_infra_error(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    rec.mkdir()
    first = SUITE.tasks[0].id
    src = (RECORDING / f"{first}.jsonl").read_text().splitlines()
    (rec / f"{first}.jsonl").write_text("\n".join(line for line in src if '"op": "call"' not in line))
    done = cli("mcp", "run", "--tasks", "suite", "--model", "scripted:expert", "--out", str(tmp_path / "o"),
               "--replay", str(rec), "--limit", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (traj,) = read_trajectories(tmp_path / "o" / "clean")
    assert traj.success is None and traj.termination == "infra" and "not in the recording" in str(traj.infra_error)


def test_memorise_under_a_strict_rename_only_makes_legacy_calls(tmp_path: Path) -> None:
    """``scripted:memorise`` calls the upstream's own names: under ``synonym`` every call is a legacy call
    (Table 5's "Invalid Action"), it never gets further and repeats until the step limit (10), no task is
    solved (the recording's verdict of the untouched state), and PIPE's Δ against clean is −1."""
    done = cli("mcp", "run", "--tasks", "suite", "--model", "scripted:memorise", "--out", str(tmp_path / "o"),
               "--replay", str(RECORDING), "--rename", "synonym")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = summary(tmp_path / "o")
    assert (rows["clean"]["success"], rows["clean"]["infra"]) == (1.0, 0)
    row = rows["rename-synonym"]
    assert (row["success"], row["infra"], row["legacy_calls"], row["delta"]) == (0.0, 0, 10 * N, -1.0)
