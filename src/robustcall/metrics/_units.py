"""How accuracies and drops are written everywhere people read them (``score``, the report, the
leaderboard): as fractions in [0, 1], the paper's Table 2 convention, never percentages."""

from __future__ import annotations

UNIT_NOTE = "accuracies and drops are fractions in [0, 1] (Table 2's scale)"


def frac(value: float | None, ci: float | None = None, *, signed: bool = False) -> str:
    """``0.643 ± 0.065`` (``—`` when undefined; ``+0.120`` with ``signed``); ``-0.000`` never shows."""
    if value is None:
        return "—"
    value = round(value, 3) + 0.0  # + 0.0 turns -0.0 into 0.0
    text = f"{value:+.3f}" if signed else f"{value:.3f}"
    return f"{text} ± {ci:.3f}" if ci is not None else text


def heat_text(drop: float) -> str:
    """A heat-map cell: the drop as a fraction with two decimals and no leading zero (``.12``,
    ``-.05``, ``1.00``); anything that rounds to zero is ``0``, never ``-0`` or ``-.00``."""
    rounded = round(drop, 2)
    if rounded == 0:
        return "0"
    text = f"{rounded:.2f}"
    return text.replace("0.", ".", 1) if abs(rounded) < 1 else text
