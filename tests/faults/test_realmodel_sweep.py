"""A small, bounded δ sweep with the real embedded model (at most 6 requests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.metrics import fault_metrics
from robustcall.models.local import check
from robustcall.run import read_trajectories

pytestmark = [
    pytest.mark.realmodel,
    pytest.mark.skipif(not check().ready, reason="embedded model not set up: run `robustcall model setup`"),
    pytest.mark.timeout(500),
]


def test_local_model_delta_sweep(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = ["faults", "sweep", "--env", "shop_env:ShopEnv", "--model", "local", "--tasks", "lamp",
            "--deltas", "0,0.5,1", "--max-steps", "2", "--format", "json", "--out", str(out)]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    trajs = {t.config["delta"]: t for t in read_trajectories(out)}
    assert set(trajs) == {0.0, 0.5, 1.0} and all(t.termination != "infra" for t in trajs.values())
    assert not any(s.fault for s in trajs[0.0].steps)
    full = trajs[1.0]
    assert all(s.fault is not None for s in full.steps if s.action is not None)
    m = fault_metrics([full])
    # every call is faulted: nothing can recover (RR 0, or None when its only fault came on the last step)
    assert m.faults >= 1 and not m.recovery_rate
    assert "Table 3: RASR vs Fault Injection Rate" in res.output
