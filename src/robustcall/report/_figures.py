"""Figures 2-4 of the paper with matplotlib (Agg): drop heatmap, retention and drops against model size."""

from __future__ import annotations

import io
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from robustcall.core import TAXONOMY, InputError, load_config_file
from robustcall.report._runs import RunResult
from robustcall.report._tables import COMPONENT_TITLES, DELTA_HEADERS


def load_sizes(path: Path) -> dict[str, float]:
    """A model manifest: a YAML or JSON mapping of run (model) name -> parameters in billions."""
    raw = load_config_file(path)
    if not isinstance(raw, dict):
        raise InputError(f"{path}: expected a mapping of model name -> size in billions of parameters")
    sizes: dict[str, float] = {}
    for name, size in raw.items():
        if not isinstance(size, int | float) or size <= 0:
            raise InputError(f"{path}: size of {name!r} must be a positive number of billions, got {size!r}")
        sizes[str(name)] = float(size)
    return sizes


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def drop_heatmap(runs: list[RunResult]) -> bytes:
    """Figure 4: model × perturbation drop from Clean (percentage points), grouped by component."""
    types = [t for t in TAXONOMY if any(t.code in r.stats.drop for r in runs)]
    grid = (
        np.array(
            [
                [
                    (
                        r.stats.drop[t.code].value
                        if t.code in r.stats.drop and r.stats.drop[t.code].value is not None
                        else np.nan
                    )
                    for t in types
                ]
                for r in runs
            ],
            dtype=float,
        )
        * 100
    )
    fig, ax = plt.subplots(figsize=(max(6.0, 0.55 * len(types) + 2.5), max(2.2, 0.45 * len(runs) + 1.6)))
    limit = max(5.0, float(np.nanmax(np.abs(grid)))) if np.isfinite(grid).any() else 5.0
    image = ax.imshow(grid, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if np.isfinite(grid[i, j]):
                ax.text(
                    j,
                    i,
                    f"{grid[i, j]:.0f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if abs(grid[i, j]) > 0.6 * limit else "black",
                )
    ax.set_xticks(range(len(types)), [t.display for t in types], rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(runs)), [r.name for r in runs], fontsize=8)
    # component separators and labels above the columns
    start = 0
    for comp, title in COMPONENT_TITLES.items():
        width = sum(1 for t in types if t.component == comp)
        if width:
            if start:
                ax.axvline(start - 0.5, color="black", linewidth=1.2)
            ax.text(start + width / 2 - 0.5, -0.6, title, ha="center", va="bottom", fontsize=9, fontweight="bold")
            start += width
    fig.colorbar(image, ax=ax, fraction=0.03, pad=0.02, label="drop from Clean (pp)")
    ax.set_title("Drop from Clean per perturbation (pp; red = worse)", pad=30, fontsize=10)
    return _png(fig)


def _size_axis(ax: Axes) -> None:
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("model size (billions of parameters)")


def _sized(runs: list[RunResult], sizes: dict[str, float]) -> list[tuple[RunResult, float]]:
    return [(r, sizes[r.name]) for r in runs if r.name in sizes]


def retention_vs_size(runs: list[RunResult], sizes: dict[str, float]) -> bytes | None:
    """Figure 2: retention on Observation, Action and Reward against size, with a log-linear trend."""
    points = [(r, s) for r, s in _sized(runs, sizes) if r.stats.retention.value is not None]
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    xs = np.array([s for _, s in points])
    ys = np.array([r.stats.retention.value for r, _ in points], dtype=float)
    errs = np.array([r.stats.retention.ci95 or 0.0 for r, _ in points])
    ax.errorbar(xs, ys, yerr=errs, fmt="o", color="#1f77b4", ecolor="#9ecae1", capsize=3)
    for (r, s), y in zip(points, ys, strict=True):
        ax.annotate(r.name, (s, y), textcoords="offset points", xytext=(5, 4), fontsize=7)
    if len(points) >= 2 and len(set(xs)) >= 2:
        slope, intercept = np.polyfit(np.log10(xs), ys, 1)
        grid = np.logspace(math.log10(xs.min()), math.log10(xs.max()), 50)
        ax.plot(grid, slope * np.log10(grid) + intercept, "--", color="gray", linewidth=1, label="log-linear trend")
        ax.legend(fontsize=8)
    _size_axis(ax)
    ax.set_ylabel("retention = 1 − mean(Δ_Obs, Δ_Act, Δ_Rew) / Clean")
    ax.set_title("Robustness retention vs model size", fontsize=10)
    ax.grid(alpha=0.3)
    return _png(fig)


def drops_vs_size(runs: list[RunResult], sizes: dict[str, float]) -> bytes | None:
    """Figure 3: per-component drop (Δ_X) against size."""
    points = sorted(_sized(runs, sizes), key=lambda p: p[1])
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for comp in COMPONENT_TITLES:
        pts = [(s, r.stats.delta[comp].value) for r, s in points if r.stats.delta[comp].value is not None]
        if pts:
            ax.plot([p[0] for p in pts], [100 * float(p[1]) for p in pts], "o-", label=DELTA_HEADERS[comp].rstrip(" ↓"))  # type: ignore[arg-type]
    ax.axhline(0, color="black", linewidth=0.8)
    _size_axis(ax)
    ax.set_ylabel("drop from Clean (pp)")
    ax.set_title("Per-component drop vs model size", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)
