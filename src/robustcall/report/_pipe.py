"""PIPE tables from trajectories: Origin / Perturb 1 / Perturb 2 / Δ, legacy calls, IR."""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean

from robustcall.core import Trajectory
from robustcall.interface import episode_counts
from robustcall.metrics import (
    ALPHAS,
    COMBINE_LABELS,
    Combine,
    combined_interface_reliance,
    interface_reliance,
    naive_interface_reliance,
    pipe_delta,
)
from robustcall.report._table import Table


def _by(trajs: list[Trajectory]) -> dict[tuple[str, str, str], list[Trajectory]]:
    """Per (model, env, level): the newest record of every episode id (a resumed run re-runs episodes
    that ended on an endpoint failure), leaving out those that still did (``infra``: no verdict)."""
    latest: dict[tuple[str, str], Trajectory] = {}
    for t in trajs:
        latest[(t.model, t.id)] = t
    out: dict[tuple[str, str, str], list[Trajectory]] = defaultdict(list)
    for t in latest.values():
        if t.termination != "infra":
            out[(t.model, t.config["env"], t.config["level"])].append(t)
    return out


def _rate(trajs: list[Trajectory]) -> float | None:
    scored = [t for t in trajs if t.success is not None]
    return fmean(1.0 if t.success else 0.0 for t in scored) if scored else None


def _f(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


COMBINE_TITLES: dict[Combine, str] = {"eq3": "eq. 3", "counts": "§6 averaged counts"}


def _order_counts(dual: list[Trajectory], order: int) -> dict[str, tuple[int, int]]:
    out = {}
    for t in dual:
        if t.config.get("order") == order:
            c = episode_counts(t)
            out[t.task_id] = (c.n_ori, c.n_syn)
    return out


def pipe_tables(trajs: list[Trajectory], combine: Combine = "eq3") -> list[Table]:
    """The success, legacy-call and IR tables; ``combine``: how IR joins the two dual orders."""
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
            o1, o2 = _order_counts(dual, 1), _order_counts(dual, 2)
            both = list(o1.values()) + list(o2.values())
            row = [model, env, str(len(o1)), str(len(o2))]
            for a in ALPHAS:
                one = interface_reliance(both, None, a) if not (o1 and o2) else None
                ir = one if one is not None else combined_interface_reliance(o1, o2, a, combine)
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
            "Legacy calls per episode under strict perturbation (Table 9: deprecated or hallucinated)",
            ["Model", "Env", "Level", "Episodes", "Legacy calls / episode", "Episodes with any"],
            legacy,
            [
                "A legacy call names an original action the perturbed interface hides (deprecated) or no action "
                "of the environment at all (hallucinated)."
            ],
        ),
        Table(
            "pipe_ir",
            f"Interface Reliance, counterbalanced dual interface ({COMBINE_TITLES[combine]}; "
            "> 1 prefers original names)",
            ["Model", "Env", "Order-1 eps", "Order-2 eps", *(f"IR α={a:g}" for a in ALPHAS), "naive IR α=1"],
            reliance,
            [f"Orders combined by {COMBINE_LABELS[combine]}. With one order only: eq. 1 over its episodes."],
        ),
    ]


def curve_rows(
    points: list[tuple[str, list[Trajectory]]],
) -> list[tuple[str, float | None, float | None, float | None, float | None]]:
    """Per checkpoint: Origin, Perturb 1, Perturb 2 success and IR (α = 1, both dual orders)."""
    rows = []
    for name, trajs in points:
        by_level = {lv: [t for t in trajs if t.config["level"] == lv] for lv in ("origin", "synonym", "symbol", "dual")}
        o1, o2 = _order_counts(by_level["dual"], 1), _order_counts(by_level["dual"], 2)
        ir = combined_interface_reliance(o1, o2, 1.0, "eq3") if o1 and o2 else None
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
