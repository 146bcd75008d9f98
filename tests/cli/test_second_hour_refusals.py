"""Refusals a user meets in their second hour: each one line, non-zero, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app


def _invoke(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.output


def test_a_card_of_a_request_policy_without_an_episode_model_is_refused(tmp_path: Path) -> None:
    code, out = _invoke("card", "--model", "scripted:oracle", "--out", str(tmp_path / "c"))
    assert code == 1 and "Traceback" not in out and len(out.strip().splitlines()) == 1
    assert "--model scripted:oracle is a request policy" in out and "--env-model (scripted:expert" in out
    assert not (tmp_path / "c").exists()


def test_a_request_policy_card_may_name_its_episode_model(tmp_path: Path) -> None:
    # the refusal is only about the default: an explicit environment policy is what docs/card.md shows
    from robustcall.cli.card_cmd import refuse_request_policy_episodes

    refuse_request_policy_episodes("scripted:oracle", "scripted:expert")
    refuse_request_policy_episodes("scripted:never_call", None)  # answers episodes in words too
    refuse_request_policy_episodes("scripted:expert", None)  # an environment policy
    refuse_request_policy_episodes("local", None)


def test_top_up_from_a_pool_file_that_does_not_exist_without_a_generator_is_refused(tmp_path: Path) -> None:
    pool, out = tmp_path / "pool.json", tmp_path / "out.jsonl"
    code, text = _invoke(
        "rm", "build-bench", "--pool", str(pool), "--queries", "20", "--size", "15", "--top-up", "-o", str(out)
    )
    assert code == 1 and "Traceback" not in text and len(text.strip().splitlines()) == 1
    assert f"the pool file {pool} does not exist and no --generator was given" in text
    assert not out.exists()
