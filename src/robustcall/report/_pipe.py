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


def curve_rows(
    points: list[tuple[str, list[Trajectory]]],
) -> list[tuple[str, float | None, float | None, float | None, float | None]]:
    """Per checkpoint: Origin, Perturb 1, Perturb 2 success and IR (α = 1, both dual orders)."""
    rows = []
    for name, trajs in points:
        by_level = {lv: [t for t in trajs if t.config["level"] == lv] for lv in ("origin", "synonym", "symbol", "dual")}
        orders = [
            [(c.n_ori, c.n_syn) for c in (episode_counts(t) for t in by_level["dual"] if t.config.get("order") == o)]
            for o in (1, 2)
        ]
        ir = interface_reliance(orders[0], orders[1], 1.0) if orders[0] and orders[1] else None
        rows.append((name, _rate(by_level["origin"]), _rate(by_level["synonym"]), _rate(by_level["symbol"]), ir))
    return rows


def curve_png(rows: list[tuple[str, float | None, float | None, float | None, float | None]], env: str) -> bytes:
    """Success under the three interfaces (left axis) and IR (right axis) across checkpoints."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = list(range(len(rows)))
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    nan = float("nan")
    series = {"Origin": [r[1] for r in rows], "Perturb 1": [r[2] for r in rows], "Perturb 2": [r[3] for r in rows]}
    for label, ys in series.items():
        ax.plot(xs, [y if y is not None else nan for y in ys], "o-", label=label)
    ax.set_ylabel("task success")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xticks(xs, [r[0] for r in rows])
    ax.set_xlabel("checkpoint")
    twin = ax.twinx()
    twin.plot(xs, [r[4] if r[4] is not None else nan for r in rows], "s--", color="black", label="IR (α=1)")
    twin.set_ylabel("Interface Reliance (α = 1)")
    (h1, l1), (h2, l2) = ax.get_legend_handles_labels(), twin.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="best")
    ax.set_title(f"{env}: success and interface reliance across checkpoints", fontsize=10)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
