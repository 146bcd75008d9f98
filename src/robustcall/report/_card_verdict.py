"""The card page's first line: the verdict a reader takes away before any figure."""

from __future__ import annotations

from robustcall.report._card_model import Card


def _n(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}".replace("-", "−")


def card_verdict(card: Card) -> str:
    """One line: weakest component and type, retention, rank range, the PIPE and fault headlines, and the
    RobustBench-TC run's tokens (and cost, with prices) where its server counted them."""
    rb = card.robustbench
    parts: list[str] = []
    deltas = [(c, e.value) for c, e in rb.component_delta.items() if e.value is not None]
    if deltas:
        comp, d = max(deltas, key=lambda cv: cv[1])  # the first of equals: the component order
        parts.append(f"weakest component {comp.capitalize()} (Δ {_n(d)})")
    drops = [(t, t.drop.value) for t in rb.types if t.drop.value is not None]
    if drops:
        row, d = max(drops, key=lambda td: td[1])
        parts.append(f"weakest type {row.display} (drop {_n(d)})")
    head = ", ".join(parts) or "no component measured"
    p = rb.reference
    rank = f"rank {p.rank_low}–{p.rank_high} of {p.of}" if p.rank_low != p.rank_high else f"rank {p.rank} of {p.of}"
    line = [head, f"retention {_n(rb.retention.value)}", f"{rank} beside the paper's models"]
    if card.pipe:
        line.append("PIPE Δ " + ", ".join(f"{env} {_n(e.delta)}" for env, e in card.pipe.items()))
    rates = [(r.display, r.pooled.success_rate, r.pooled.ufr) for r in card.faults]
    measured = [(name, s) for name, s, _ in rates if s is not None]
    if measured:
        name, s = min(measured, key=lambda ns: ns[1])
        ufr = max((u for _, _, u in rates if u is not None), default=None)
        line.append(f"faults at δ = {card.fault_delta:g}: lowest RASR {_n(s)} ({name}), UFR up to {_n(ufr)}")
    tokens = card.tokens.total if card.tokens is not None else None
    if tokens is not None and tokens.with_usage:
        cost = f", ${tokens.cost_usd:.2f}" if tokens.cost_usd is not None else ""
        line.append(f"RobustBench-TC used {tokens.total_tokens:,} tokens over {tokens.with_usage} records{cost}")
    return "Verdict: " + "; ".join(line) + "."
