"""The figures of an MCP run, each from ``metrics`` (nothing is computed here but the grouping): task
success per condition, and against the clean condition with a paired bootstrap interval and exact
test (RobustBench-TC's Δ, and retention); RASR / RR / EIA / UFR and Table 6's failure modes under
faults (``fault_metrics``); legacy calls (PIPE's Table 9, ``interface.episode_counts``) and PIPE's
Δ = (s1 + s2) / 2 − s0 under renames; distractor calls under perturbations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from robustcall.core import Trajectory
from robustcall.interface import episode_counts
from robustcall.metrics import adjust, fault_metrics, interface_reliance, paired_row, pipe_delta

CLEAN = "clean"


def _success(trajs: Sequence[Trajectory]) -> dict[str, bool]:
    return {t.task_id: bool(t.success) for t in trajs if t.success is not None}


def condition_rows(runs: Mapping[str, Sequence[Trajectory]], *, seed: int = 0) -> list[dict[str, Any]]:
    """One row per condition (clean first): episodes, infra errors, success, Δ vs clean with its
    interval and Holm-adjusted p, retention, and the condition's own figures."""
    clean = _success(runs.get(CLEAN, []))
    rows: list[dict[str, Any]] = []
    paired = []
    for name, trajs in runs.items():
        ok = _success(trajs)
        row: dict[str, Any] = {
            "condition": name,
            "episodes": len(trajs),
            "infra": sum(t.success is None for t in trajs),
            "success": sum(ok.values()) / len(ok) if ok else None,
        }
        if name != CLEAN and clean:
            both = sorted(set(ok) & set(clean))
            units = np.array([[clean[k], 1.0, ok[k], 1.0] for k in both], dtype=float).reshape(-1, 4)
            paired.append(paired_row(name, name, units, family="mcp", seed=seed))
        if name.startswith("faults-"):
            fm = fault_metrics(trajs)
            row.update({"rasr": fm.success_rate, "rr": fm.recovery_rate, "eia": fm.eia, "ufr": fm.ufr,
                        "faults": fm.faults, "modes": fm.modes})  # fmt: skip
        if name.startswith("rename-"):
            counts = [episode_counts(t) for t in trajs if t.success is not None and t.config.get("interface_map")]
            row["legacy_calls"] = sum(c.legacy for c in counts)
        if name.startswith("perturb-"):
            row["distractor_calls"] = sum(int(t.config.get("distractor_calls", 0)) for t in trajs)
        if any("injection_followed" in t.config for t in trajs):
            row["injection_followed"] = sum(bool(t.config.get("injection_followed")) for t in trajs)
        rows.append(row)
    by_name = {p.key: p for p in adjust(paired)}
    for row in rows:
        p = by_name.get(row["condition"])
        if p is not None:
            kept = p.candidate / p.baseline if p.baseline and p.candidate is not None else None
            row.update({"delta": p.delta, "ci95": p.ci95, "p_holm": p.p_holm, "retention": kept})
    dual = [runs.get(f"rename-dual{k}", []) for k in (1, 2)]
    if all(dual):
        per_order = [[episode_counts(t) for t in trajs if t.success is not None] for trajs in dual]
        pairs = [[(float(c.n_ori), float(c.n_syn)) for c in order] for order in per_order]
        if all(pairs):
            ir = interface_reliance(pairs[0], pairs[1])
            for r in rows:
                if r["condition"].startswith("rename-dual"):
                    r["ir"] = ir
    names = {r["condition"]: r["success"] for r in rows}
    if all(names.get(k) is not None for k in (CLEAN, "rename-synonym", "rename-symbol")):
        for r in rows:
            if r["condition"] == CLEAN:
                r["pipe_delta"] = pipe_delta(names[CLEAN], names["rename-synonym"], names["rename-symbol"])
    return rows


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    if isinstance(v, tuple):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    cols = ["condition", "episodes", "infra", "success", "delta", "ci95", "p_holm", "retention", "rasr", "rr", "eia",
            "ufr", "legacy_calls", "ir", "distractor_calls", "injection_followed"]  # fmt: skip
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_fmt(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"
