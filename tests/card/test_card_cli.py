"""``robustcall card``'s mistakes end in one or two lines and the documented exit status."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app


def _card(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["card", *args])
    return res.exit_code, res.output


def test_an_unknown_budget_is_a_usage_error(tmp_path: Path) -> None:
    code, out = _card("--budget", "huge", "--model", "scripted:oracle", "--out", str(tmp_path / "c"))
    assert code == 2 and "--budget must be one of quick, paper" in out and "Traceback" not in out


def test_the_paper_budget_without_its_data_says_what_to_give(tmp_path: Path) -> None:
    code, out = _card(
        "--budget",
        "paper",
        "--model",
        "scripted:oracle",
        "--env-model",
        "scripted:expert",
        "--out",
        str(tmp_path / "c"),
    )
    assert code == 1 and "Traceback" not in out
    assert "--data-dir" in out and len(out.strip().splitlines()) <= 2


def test_an_unknown_model_fails_before_anything_runs(tmp_path: Path) -> None:
    code, out = _card("--model", "scripted:nobody", "--out", str(tmp_path / "c"))
    assert code == 1 and "unknown scripted policy 'nobody'" in out and "Traceback" not in out
    assert not (tmp_path / "c").exists()


def test_a_card_whose_endpoint_fails_stops_before_the_episodes_with_exit_3(tmp_path: Path) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text("gone:\n  max_retries: 0\n")
    out = tmp_path / "c"
    args = ("--model", "openai/gone", "--base-url", "http://127.0.0.1:9/v1", "--settings", str(settings))
    code, text = _card(*args, "--stop-after", "0", "--out", str(out))
    assert code == 3 and "460 of 460 RobustBench-TC records ended in infrastructure errors" in text
    assert "Traceback" not in text and not (out / "pipe").exists() and not (out / "card.json").exists()
