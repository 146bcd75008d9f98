from __future__ import annotations

import json
from pathlib import Path

from policies import diagnose_and_retry, misdiagnose_and_retry, retry_once, run_episode
from shop_env import ShopEnv
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import ToolCall, write_jsonl
from robustcall.faults import TAXONOMY_TYPES, FaultProfile, FaultyEnv
from robustcall.faults._sft import recovery_examples
from robustcall.metrics import ERROR_TYPE_OF, RECOVERY_RULE, RR_RULES, diagnose_type
from robustcall.metrics._fault_report import fault_report
from robustcall.report._fault_tables import fault_table1, fault_table2, fault_table6, report_markdown


def _profile(code: str, *, sticky: bool = True) -> FaultProfile:
    return FaultProfile(name=code, delta=1.0, faults={code: 1}, at_calls=[0], sticky=sticky)


def test_recovery_sft_records_per_fault_type() -> None:
    kinds = {}
    for code in TAXONOMY_TYPES:
        traj = run_episode(FaultyEnv(ShopEnv(), _profile(code)), "lamp", retry_once)
        (ex,) = recovery_examples(traj, ShopEnv(), _profile(code), "tool_call")
        kinds[code] = ex.recovery
        msgs = ex.messages
        assert [m["role"] for m in msgs[:4]] == ["system", "user", "assistant", "tool"]
        assert msgs[3]["content"] == traj.steps[0].observation  # o_injected ends the prompt
        assert msgs[-1]["role"] == "assistant" and set(msgs[-1]) == {"role", "content"}
        assert diagnose_type(msgs[-1]["content"]) == ERROR_TYPE_OF[code]  # the target names the error type
        json.dumps(ex.model_dump())
        if ex.recovery != "give_up":
            body = msgs[-1]["content"].split("<tool_call>\n")[1].split("\n</tool_call>")[0]
            call = ToolCall.model_validate(json.loads(body))
            if code == "param_renamed":
                assert call == ToolCall(name="search", arguments={"query_v2": "lamp"})
            elif code == "param_required":
                assert call == ToolCall(name="search", arguments={"query": "lamp", "api_version": "2"})
            else:
                assert call == ToolCall(name="search", arguments={"query": "lamp"})
    assert kinds == {
        **dict.fromkeys(["http_429", "http_500", "http_503", "timeout"], "retry"),
        **dict.fromkeys(
            ["empty_result", "malformed_body", "implausible_value", "wrong_type", "plausible_wrong"], "verify"
        ),
        **dict.fromkeys(["http_404", "http_401", "http_403", "tool_deprecated"], "give_up"),
        **dict.fromkeys(["param_renamed", "param_required"], "adapt"),
    }


def test_recovery_sft_under_the_default_per_call_profile_retries_permanent_execution_errors() -> None:
    for code in ("http_404", "http_401", "http_403"):
        prof = _profile(code, sticky=False)
        traj = run_episode(FaultyEnv(ShopEnv(), prof), "lamp", retry_once)
        (ex,) = recovery_examples(traj, ShopEnv(), prof, "tool_call")
        assert ex.recovery == "retry", code  # nothing blocks the retry: the next call is a fresh draw


def test_report_tables_from_trajectories() -> None:
    clean = [
        run_episode(FaultyEnv(ShopEnv(), _profile("http_500").with_delta(0.0)), t, retry_once) for t in ("lamp", "mug")
    ]
    faulted = [
        t.model_copy(update={"config": {**t.config, "delta": 0.3}})
        for t in (run_episode(FaultyEnv(ShopEnv(), _profile(c)), "lamp", retry_once) for c in TAXONOMY_TYPES)
    ]
    rep = fault_report([*clean, *faulted], rr_rule="retry", steps_rule="all")
    # the default rule: "That call did not work" identifies nothing, so no fault is recovered
    named = fault_table1(fault_report([*clean, *faulted])).markdown()
    assert "| scripted | 100.0 | 60.0 | 0.0 | 0.0 | 0.0 | 0.0 | 53.8 | 15 | 15 |" in named
    t1 = fault_table1(rep).markdown()
    assert "| scripted | 100.0 | 60.0 | 60.0 | 0.0 | 0.0 | 60.0 | 53.8 | 15 | 15 |" in t1  # 21 of 39 calls faulted
    assert (
        RR_RULES["retry"] in t1 and "RR per task (ours)" in t1 and RECOVERY_RULE in named
    )  # the rule under the table; both readings
    assert "| scripted | 57.1 (n=7) | 100.0 (n=5) | 0.0 (n=3) |" in fault_table2(rep).markdown()
    t6 = fault_table6(rep).markdown()
    # "That call did not work ... I cannot complete the task" names no class: not a Graceful Failure
    assert "| Graceful Failure | 0 | 0.0% | 0.0% |" in t6 and "| Recovered | 9 | 60.0% | — |" in t6
    assert "| Other (no Table 6 mode) | 6 | 40.0% | 100.0% |" in t6
    md = report_markdown(rep)
    # steps: search + buy without faults; fault, retry, then buy or give up: 3 with one
    assert "| scripted | 2.0 | 3.0 | 50.0% | 2 / 15 |" in md


def test_faults_report_cli(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    trajs = [run_episode(FaultyEnv(ShopEnv(), _profile("http_500").with_delta(0.0)), "lamp", retry_once)]
    trajs += [run_episode(FaultyEnv(ShopEnv(), _profile(c)), "lamp", retry_once) for c in ("timeout", "http_404")]
    write_jsonl(run_dir / "trajectories.jsonl", trajs)
    argv = ["faults", "report", str(run_dir), "--delta", "1", "--out", str(tmp_path / "rep")]
    result = CliRunner().invoke(app, [*argv, "--rr-rule", "retry"])
    assert result.exit_code == 0, result.output
    assert "| scripted | 100.0 | 50.0 | 50.0 | 0.0 | 0.0 | 50.0 | 60.0 | 2 | 2 |" in result.output
    assert "R_i rule: retry (--rr-rule retry)" in result.output
    result = CliRunner().invoke(app, argv)
    assert "| scripted | 100.0 | 50.0 | 0.0 | 0.0 | 0.0 | 0.0 | 60.0 | 2 | 2 |" in result.output
    assert "R_i rule: identify (default)" in result.output and "| Baseline | scripted | 50.0 |" in result.output
    for bad in (["--rr-rule", "luck"], ["--steps", "some"], ["--method", "a", "--method", "b"]):
        refused = CliRunner().invoke(app, [*argv, *bad])
        assert refused.exit_code == 2 and "Traceback" not in refused.output, bad
    assert "hitting the step limit does not count" in result.output
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["table_delta"] == 1.0
    assert (tmp_path / "rep" / "faults_table6.tex").read_text().startswith("\\begin{table}")
    bad = CliRunner().invoke(app, ["faults", "report", str(tmp_path / "nope")])
    assert bad.exit_code != 0 and "not a fault-injection run directory" in bad.output


def test_faults_report_puts_several_runs_side_by_side_as_table_4(tmp_path: Path) -> None:
    """Issue 35 item 4: Baseline / CoT / fine-tuned rows from several runs, in the order given."""
    codes = ("timeout", "http_500", "empty_result", "http_404")

    def run(policy: object, name: str, prompt: str) -> Path:
        trajs = [run_episode(FaultyEnv(ShopEnv(), _profile(c)), "lamp", policy, model=name) for c in codes]  # type: ignore[arg-type]
        trajs = [
            t.model_copy(update={"id": f"{t.id}/{i}", "config": {**t.config, "prompt": prompt}})
            for i, t in enumerate(trajs)
        ]
        out = tmp_path / f"{name}-{prompt}"
        out.mkdir()
        write_jsonl(out / "trajectories.jsonl", trajs)
        return out

    base = run(retry_once, "tl", "default")  # names nothing: RR 0 (identify), EIA 0
    cot = run(diagnose_and_retry, "tl", "cot")  # names every error: 3 retried transient faults, the 404 stops
    tuned = run(misdiagnose_and_retry, "tl-ft", "default")  # rate limit for a timeout (class), empty for a 500
    argv = ["faults", "report", str(base), str(cot), str(tuned), "--delta", "1"]
    out = CliRunner().invoke(
        app, [*argv, "--method", "Baseline", "--method", "+ CoT", "--method", "+ Adv. Fine-Tuning"]
    )
    assert out.exit_code == 0, out.output
    # RASR 3/4 everywhere; RR: 0, 3/4, 2/4 (timeout and empty result named in class); UFR 0; EIA 0, 1, 0
    assert "| Baseline | tl | 75.0 | 0.0 | 0.0 | 0.0 |" in out.output
    assert "| + CoT | tl + cot | 75.0 (+0.0) | 75.0 (+75.0) | 0.0 (+0.0) | 100.0 (+100.0) |" in out.output
    assert "| + Adv. Fine-Tuning | tl-ft | 75.0 (+0.0) | 50.0 (+50.0) | 0.0 (+0.0) | 0.0 (+0.0) |" in out.output
    default = CliRunner().invoke(app, argv).output  # labels by default: the first run is the baseline
    assert (
        "| Baseline | tl |" in default
        and "| + CoT Prompting | tl + cot |" in default
        and "| + tl-ft | tl-ft |" in default
    )
