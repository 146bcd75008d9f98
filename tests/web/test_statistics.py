"""`score`, `report` and the leaderboard print the same statistics for the same predictions."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from robustcall.metrics import DELTA_COMPONENTS, Summary
from robustcall.report import load_run
from robustcall.score import score_run
from robustcall.web import create_app


def test_one_statistics_function_for_score_report_and_leaderboard(lb_data: dict[str, Path], tmp_path: Path) -> None:
    run_dir = lb_data["first_tool"].parent
    with TestClient(create_app(lb_data["bench"], f"sqlite:///{tmp_path / 'lb.db'}")) as client:
        sid = client.post("/api/submissions?model=first-tool", content=lb_data["first_tool"].read_bytes()).json()["id"]
        board = Summary.model_validate(client.get(f"/api/submissions/{sid}").json()["summary"])
        page = client.get(f"/submissions/{sid}").text
    _, scored = score_run(run_dir)
    report = load_run(run_dir, resamples=10_000, seed=0).stats
    # B = 10,000 and per-sample resampling everywhere (the leaderboard and `score` used 1,000)
    assert board.bootstrap_resamples == scored.bootstrap_resamples == report.resamples == 10_000
    assert board.resampling == scored.resampling == report.resampling == "per-sample"
    for s in (board, scored):
        assert (s.clean.accuracy, s.clean.ci95) == (report.clean.value, report.clean.ci95)
        assert (s.perturbed.accuracy, s.perturbed.ci95) == (report.pert_acc.value, report.pert_acc.ci95)
        assert s.delta == {c: report.delta[c] for c in DELTA_COMPONENTS if c in s.delta}
        for code, cell in s.by_type.items():
            assert (cell.accuracy, cell.ci95) == (report.accuracy[code].value, report.accuracy[code].ci95)
    assert set(board.delta) == {"observation", "action", "reward", "transition"}
    # the submission page shows each component's Δ as Table 2 computes it
    action = board.delta["action"].value
    assert action is not None and f"{action:+.3f}" in page  # a fraction, as in Table 2
