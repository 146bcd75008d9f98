"""PIPE tables from trajectories: Origin / Perturb 1 / Perturb 2 / Δ, legacy calls, IR."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
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
    """Success rate of the episodes with a verdict."""
    scored = [t for t in trajs if t.success is not None]
    return fmean(1.0 if t.success else 0.0 for t in scored) if scored else None


def _score(trajs: list[Trajectory]) -> float | None:
    """The environment's score: mean r(τ) over the episodes with a verdict (§3.1, footnote 1: the reward
    where the environment has one, e.g. SciWorld's score / 100; the success rate elsewhere)."""
    scored = [t for t in trajs if t.success is not None]
    return fmean(t.score for t in scored) if scored else None


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
        levels = ("origin", "synonym", "symbol")
        s = {lv: _score(groups.get((model, env, lv), [])) for lv in levels}
        rate = [_f(_rate(groups.get((model, env, lv), []))) for lv in levels]
        delta = pipe_delta(s["origin"], s["synonym"], s["symbol"]) if None not in s.values() else None  # type: ignore[arg-type]
        success.append([model, env, _f(s["origin"]), _f(s["synonym"]), _f(s["symbol"]), _f(delta), *rate])
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
            row += [f"{naive_interface_reliance(both, a):.2f}" for a in ALPHAS]
            reliance.append(row)
    return [
        Table(
            "pipe_success",
            "Score (mean r(τ)) under the original and perturbed interfaces (Δ = (s1 + s2)/2 − s0); success rate beside",
            ["Model", "Env", "Origin s0", "Perturb 1 s1", "Perturb 2 s2", "Δ", "SR Origin", "SR P1", "SR P2"],
            success,
            [
                "s = mean r(τ) over the episodes (§3.1, footnote 1): the reward where the environment has one "
                "(SciWorld: score / 100; BabyAI: the game's reward), else success (1/0). SR: success rate."
            ],
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
            [
                "Model",
                "Env",
                "Order-1 eps",
                "Order-2 eps",
                *(f"IR α={a:g}" for a in ALPHAS),
                *(f"naive IR α={a:g}" for a in ALPHAS),
            ],
            reliance,
            [
                f"Orders combined by {COMBINE_LABELS[combine]}. With one order only: eq. 1 over its episodes.",
                "Naive IR (eq. 4, Table 11): the arithmetic mean of the per-episode ratios over both orders' episodes.",
            ],
        ),
    ]


CURVE_LEVELS = ("origin", "synonym", "symbol")
_CURVE_LABELS = {"origin": "Origin", "synonym": "Perturb 1", "symbol": "Perturb 2"}


@dataclass(frozen=True)
class CurvePoint:
    """One checkpoint of a training curve (Figures 4-5): score (mean r(τ)) and success rate per interface
    level, and IR (eq. 3, both dual orders) at each α of :data:`ALPHAS` (``None``: not run)."""

    name: str
    score: dict[str, float | None]
    success: dict[str, float | None]
    ir: dict[float, float | None]

    CSV_HEADER = (
        "checkpoint,"
        + ",".join(f"score_{lv}" for lv in CURVE_LEVELS)
        + ","
        + ",".join(f"success_{lv}" for lv in CURVE_LEVELS)
        + ","
        + ",".join(f"ir_alpha{a:g}" for a in ALPHAS)
    )

    def csv_row(self) -> str:
        values = [self.score[lv] for lv in CURVE_LEVELS] + [self.success[lv] for lv in CURVE_LEVELS]
        values += [self.ir[a] for a in ALPHAS]
        return ",".join([self.name, *("" if v is None else repr(v) for v in values)])


def curve_rows(points: list[tuple[str, list[Trajectory]]]) -> list[CurvePoint]:
    """Per checkpoint: score and success under Origin, Perturb 1, Perturb 2, and IR at α = 0.5, 1, 2."""
    rows = []
    for name, trajs in points:
        by_level = {lv: [t for t in trajs if t.config["level"] == lv] for lv in (*CURVE_LEVELS, "dual")}
        o1, o2 = _order_counts(by_level["dual"], 1), _order_counts(by_level["dual"], 2)
        ir = {a: combined_interface_reliance(o1, o2, a, "eq3") if o1 and o2 else None for a in ALPHAS}
        score = {lv: _score(by_level[lv]) for lv in CURVE_LEVELS}
        success = {lv: _rate(by_level[lv]) for lv in CURVE_LEVELS}
        rows.append(CurvePoint(name, score, success, ir))
    return rows


def curve_png(rows: list[CurvePoint], env: str) -> bytes:
    """Figure 5's two panels: score under the three interfaces (left) and IR at α = 0.5, 1, 2 (right),
    across checkpoints."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = list(range(len(rows)))
    nan = float("nan")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.0, 4.0))
    for lv in CURVE_LEVELS:
        ys = [r.score[lv] for r in rows]
        left.plot(xs, [y if y is not None else nan for y in ys], "o-", label=_CURVE_LABELS[lv])
    left.set_ylabel("score (mean r(τ))")
    left.set_ylim(-0.02, 1.02)
    for a in ALPHAS:
        ys = [r.ir[a] for r in rows]
        right.plot(xs, [y if y is not None else nan for y in ys], "s--", label=f"α = {a:g}")
    right.set_ylabel("Interface Reliance")
    for ax in (left, right):
        ax.set_xticks(xs, [r.name for r in rows])
        ax.set_xlabel("checkpoint")
        ax.legend(fontsize=8, loc="best")
    left.set_title(f"{env}: score per interface", fontsize=10)
    right.set_title(f"{env}: interface reliance", fontsize=10)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
