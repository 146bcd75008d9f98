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
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

from robustcall.core import TAXONOMY, InputError, load_config_file
from robustcall.metrics import heat_text
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


PAGE_WIDTH_PX = 1150
"""Widest a figure is shown on report.html (its content column); wider PNGs are drawn at a lower dpi
so that the page never shrinks them and their text stays at its point size."""


def _png(fig: Figure, dpi: float = 130) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def drop_heatmap(runs: list[RunResult]) -> bytes:
    """Figure 4: model × perturbation drop from Clean (a fraction, as in Table 2), grouped by component.

    Cells read ``.12`` / ``-.05`` (``0`` when the drop rounds to zero: never ``-0``) at 9 pt, and
    the figure is drawn no wider than the report page shows it."""
    types = [t for t in TAXONOMY if any(t.code in r.stats.drop for r in runs)]
    grid = np.array(
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
    ).reshape(len(runs), len(types))
    label_in = 0.09 * max((len(r.name) for r in runs), default=8) + 0.4
    width_in = 0.5 * max(len(types), 1) + label_in + 1.2
    fig, ax = plt.subplots(figsize=(width_in, 0.42 * len(runs) + 2.4))
    limit = max(0.05, float(np.nanmax(np.abs(grid)))) if np.isfinite(grid).any() else 0.05
    image = ax.imshow(grid, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if np.isfinite(grid[i, j]):
                ax.text(
                    j,
                    i,
                    heat_text(float(grid[i, j])),
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if abs(grid[i, j]) > 0.6 * limit else "black",
                )
    ax.set_xticks(range(len(types)), [t.display for t in types], rotation=60, ha="right", fontsize=9)
    ax.set_yticks(range(len(runs)), [r.name for r in runs], fontsize=9)
    # component separators and labels above the columns
    start = 0
    for comp, title in COMPONENT_TITLES.items():
        width = sum(1 for t in types if t.component == comp)
        if width:
            if start:
                ax.axvline(start - 0.5, color="black", linewidth=1.2)
            ax.text(start + width / 2 - 0.5, -0.6, title, ha="center", va="bottom", fontsize=10, fontweight="bold")
            start += width
    bar = fig.colorbar(image, ax=ax, fraction=0.03, pad=0.02)
    bar.set_label("drop from Clean (fraction)", fontsize=9)
    ax.set_title("Drop from Clean per perturbation (fraction of samples; red = worse)", pad=30, fontsize=11)
    return _png(fig, dpi=min(130.0, PAGE_WIDTH_PX / (width_in + 0.8)))


def _size_axis(ax: Axes, sizes: list[float]) -> None:
    """A log size axis with a labelled tick at every model size shown (and no unlabelled ones)."""
    ax.set_xscale("log")
    ticks = sorted(set(sizes))
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    if len(ticks) > 6:
        ax.tick_params(axis="x", labelrotation=45)
    low, high = min(ticks), max(ticks)
    ax.set_xlim(low / 1.6, high * 1.6)
    ax.set_xlabel("model size (billions of parameters)")


def _sized(runs: list[RunResult], sizes: dict[str, float]) -> list[tuple[RunResult, float]]:
    return [(r, sizes[r.name]) for r in runs if r.name in sizes]


def retention_vs_size(runs: list[RunResult], sizes: dict[str, float]) -> bytes | None:
    """Figure 2 as PNG (``None`` when no run has both a size and a retention)."""
    fig = retention_figure(runs, sizes)
    return None if fig is None else _png(fig)


def retention_figure(runs: list[RunResult], sizes: dict[str, float]) -> Figure | None:
    """Figure 2: retention on Observation, Action and Reward against size, with a log-linear trend;
    every point labelled with its run's name, a labelled tick at every size."""
    points = [(r, s) for r, s in _sized(runs, sizes) if r.stats.retention.value is not None]
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    xs = np.array([s for _, s in points])
    ys = np.array([r.stats.retention.value for r, _ in points], dtype=float)
    errs = np.array([r.stats.retention.ci95 or 0.0 for r, _ in points])
    ax.errorbar(xs, ys, yerr=errs, fmt="o", color="#1f77b4", ecolor="#9ecae1", capsize=3)
    seen: dict[float, int] = {}
    for (r, s), y in zip(points, ys, strict=True):
        k = seen[s] = seen.get(s, -1) + 1  # runs of one size: labels stacked, not on top of each other
        ax.annotate(r.name, (s, y), textcoords="offset points", xytext=(6, 4 - 11 * k), fontsize=8)
    if len(points) >= 2 and len(set(xs)) >= 2:
        slope, intercept = np.polyfit(np.log10(xs), ys, 1)
        grid = np.logspace(math.log10(xs.min()), math.log10(xs.max()), 50)
        ax.plot(grid, slope * np.log10(grid) + intercept, "--", color="gray", linewidth=1, label="log-linear trend")
        ax.legend(fontsize=8)
    _size_axis(ax, [s for _, s in points])
    ax.set_ylabel("retention = 1 − mean(Δ_Obs, Δ_Act, Δ_Rew) / Clean")
    ax.set_title("Robustness retention vs model size", fontsize=10)
    ax.grid(alpha=0.3)
    return fig


def drops_vs_size(runs: list[RunResult], sizes: dict[str, float]) -> bytes | None:
    """Figure 3: per-component drop (Δ_X) against size."""
    points = sorted(_sized(runs, sizes), key=lambda p: p[1])
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for comp in COMPONENT_TITLES:
        pts = [(s, r.stats.delta[comp].value) for r, s in points if r.stats.delta[comp].value is not None]
        if pts:
            ax.plot([p[0] for p in pts], [float(p[1]) for p in pts], "o-", label=DELTA_HEADERS[comp].rstrip(" ↓"))  # type: ignore[arg-type]
    ax.axhline(0, color="black", linewidth=0.8)
    _size_axis(ax, [s for _, s in points])
    ax.set_ylabel("drop from Clean (fraction)")
    ax.set_title("Per-component drop vs model size", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)
