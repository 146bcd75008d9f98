"""Inline SVG bar charts for self-contained pages: no script, no font or image to fetch."""

from __future__ import annotations

import html
from dataclasses import dataclass

COMPONENT_COLOURS = {
    "clean": "#555555",
    "observation": "#1f77b4",
    "action": "#ff7f0e",
    "reward": "#2ca02c",
    "transition": "#9467bd",
}
"""One colour per POMDP component (and Clean), shared by every card figure."""


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    """``None``: drawn as ``—`` (undefined, e.g. no episode met a fault)."""
    half: float | None = None
    """Half-width of the 95% interval, drawn as a whisker."""
    colour: str = "#1f77b4"
    strong: bool = False
    """Drawn bold (the card's own model among reference rows)."""


def hbars(bars: list[Bar], *, low: float, high: float, axis: str, label_width: int = 220, width: int = 720) -> str:
    """A horizontal bar chart from ``low`` to ``high`` (bars start at 0), one row per bar, values
    printed at the bar's end."""
    row, top, plot = 20, 8, width - label_width - 120
    height = top + row * len(bars) + 34

    def x(v: float) -> float:
        v = min(max(v, low), high)
        return label_width + plot * (v - low) / (high - low)

    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' role='img' aria-label='{html.escape(axis)}' "
        f"viewBox='0 0 {width} {height}' width='{width}' height='{height}' font-size='12' "
        "font-family='system-ui,sans-serif'>"
    ]
    zero = x(0.0)
    for i, b in enumerate(bars):
        y = top + i * row
        weight = " font-weight='bold'" if b.strong else ""
        out.append(f"<text x='{label_width - 6}' y='{y + 14}' text-anchor='end'{weight}>{html.escape(b.label)}</text>")
        if b.value is None:
            out.append(f"<text x='{zero + 4:.1f}' y='{y + 14}' fill='#888'>—</text>")
            continue
        left, right = sorted((zero, x(b.value)))
        stroke = " stroke='#000'" if b.strong else ""
        out.append(
            f"<rect x='{left:.1f}' y='{y + 3}' width='{max(right - left, 0.5):.1f}' height='{row - 6}' "
            f"fill='{b.colour}'{stroke}/>"
        )
        end = x(b.value)
        if b.half:
            lo, hi = x(b.value - b.half), x(b.value + b.half)
            mid = y + row / 2
            out.append(
                f"<path d='M{lo:.1f} {mid:.1f}H{hi:.1f}M{lo:.1f} {mid - 4:.1f}V{mid + 4:.1f}"
                f"M{hi:.1f} {mid - 4:.1f}V{mid + 4:.1f}' stroke='#222' fill='none'/>"
            )
            end = max(end, hi)
        text = f"{b.value:.3f}" + (f" ± {b.half:.3f}" if b.half else "")
        out.append(f"<text x='{end + 4:.1f}' y='{y + 14}' fill='#333'{weight}>{text}</text>")
    base = top + row * len(bars)
    out.append(f"<line x1='{zero:.1f}' y1='{top}' x2='{zero:.1f}' y2='{base}' stroke='#000'/>")
    for t in _ticks(low, high):
        out.append(
            f"<line x1='{x(t):.1f}' y1='{base}' x2='{x(t):.1f}' y2='{base + 4}' stroke='#000'/>"
            f"<text x='{x(t):.1f}' y='{base + 16}' text-anchor='middle'>{t:g}</text>"
        )
    out.append(
        f"<text x='{label_width + plot / 2:.1f}' y='{base + 30}' text-anchor='middle'>{html.escape(axis)}</text></svg>"
    )
    return "".join(out)


def _ticks(low: float, high: float) -> list[float]:
    step = 0.25 if high - low > 1 else (0.2 if high - low > 0.5 else 0.1)
    first = round(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step + 1e-9) + 1)]
