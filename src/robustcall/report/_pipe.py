"""PIPE tables from trajectories: Origin / Perturb 1 / Perturb 2 / Δ, legacy calls, IR."""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean

from robustcall.core import Trajectory
from robustcall.interface import episode_counts
from robustcall.metrics._pipe import ALPHAS, interface_reliance, naive_interface_reliance, pipe_delta
from robustcall.report._table import Table


def _by(trajs: list[Trajectory]) -> dict[tuple[str, str, str], list[Trajectory]]:
    out: dict[tuple[str, str, str], list[Trajectory]] = defaultdict(list)
    for t in trajs:
        out[(t.model, t.config["env"], t.config["level"])].append(t)
    return out


def _rate(trajs: list[Trajectory]) -> float | None:
    scored = [t for t in trajs if t.success is not None]
    return fmean(1.0 if t.success else 0.0 for t in scored) if scored else None


def _f(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def pipe_tables(trajs: list[Trajectory]) -> list[Table]:
    groups = _by(trajs)
    pairs = sorted({(m, e) for m, e, _ in groups})
    success, legacy, reliance = [], [], []
    for model, env in pairs:
        s = {lv: _rate(groups.get((model, env, lv), [])) for lv in ("origin", "synonym", "symbol")}
        delta = pipe_delta(s["origin"], s["synonym"], s["symbol"]) if None not in s.values() else None  # type: ignore[arg-type]
        success.append([model, env, _f(s["origin"]), _f(s["synonym"]), _f(s["symbol"]), _f(delta)])
        for lv in ("synonym", "symbol"):
            eps = groups.get((model, env, lv), [])
            if eps:
                calls = [episode_counts(t).legacy for t in eps]
                legacy.append([model, env, lv, str(len(eps)), f"{fmean(calls):.2f}", str(sum(c > 0 for c in calls))])
        dual = groups.get((model, env, "dual"), [])
        if dual:
            orders = {o: [episode_counts(t) for t in dual if t.config.get("order") == o] for o in (1, 2)}
            c1 = [(c.n_ori, c.n_syn) for c in orders[1]]
            c2 = [(c.n_ori, c.n_syn) for c in orders[2]]
            both = c1 + c2
            row = [model, env, str(len(c1)), str(len(c2))]
            for a in ALPHAS:
                ir = interface_reliance(c1, c2, a) if c1 and c2 else interface_reliance(both, None, a)
                row.append(f"{ir:.2f}")
            row.append(f"{naive_interface_reliance(both, 1.0):.2f}")
            reliance.append(row)
    return [
        Table(
            "pipe_success",
            "Task success under the original and perturbed interfaces (Δ = (s1 + s2)/2 − s0)",
            ["Model", "Env", "Origin s0", "Perturb 1 s1", "Perturb 2 s2", "Δ"],
            success,
        ),
        Table(
            "pipe_legacy",
            "Legacy calls per episode under strict perturbation (Table 9)",
            ["Model", "Env", "Level", "Episodes", "Legacy calls / episode", "Episodes with any"],
            legacy,
        ),
        Table(
            "pipe_ir",
            "Interface Reliance, counterbalanced dual interface (eq. 3; > 1 prefers original names)",
            ["Model", "Env", "Order-1 eps", "Order-2 eps", *(f"IR α={a:g}" for a in ALPHAS), "naive IR α=1"],
            reliance,
            ["IR = exp((IRLOG_1 + IRLOG_2) / 2), IRLOG = mean over episodes of log((n_ori + α) / (n_syn + α))."],
        ),
    ]
