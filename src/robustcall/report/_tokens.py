"""Tokens and time tables (the server's own counts; ``metrics.run_tokens`` / ``fault_tokens``)."""

from __future__ import annotations

from pathlib import Path

from robustcall.core import PREDICTIONS, PredictionRecord, iter_checkpoint, type_info
from robustcall.metrics import DeltaTokens, Prices, RunTokens, TokenRow, run_tokens
from robustcall.report._table import Table

TOKENS_NOTE = (
    "Tokens are the server's own counts (its usage blocks), summed over every request of a record (both passes "
    "of a transition type); records without usage (older runs, backends that report none, answers reused "
    "without asking the server) count in records, not in the token means. Latency: wall time per record, "
    "retries and backoff included."
)
OVERHEAD_NOTE = "Token overhead: a component's mean tokens per record over Clean's, less one."
COST_NOTE = "Cost: USD from --prices (per million input / output tokens), over the tokens counted."


def read_run_tokens(run_dir: Path, model: str, prices: Prices | None = None) -> RunTokens:
    """The tokens and time of a single-turn run (its ``predictions.jsonl``), priced where ``prices``
    has the run's ``model``; a run holding only its verdicts (``scores.jsonl``) has none."""
    path = run_dir / PREDICTIONS
    price = prices.for_model(model) if prices is not None else None
    return run_tokens(iter_checkpoint(path, PredictionRecord) if path.is_file() else [], price)


def _num(value: float | int | None, digits: int = 0) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f}%"


def _cells(row: TokenRow, priced: bool) -> list[str]:
    cells = [
        str(row.records),
        str(row.with_usage),
        _num(row.prompt_tokens),
        _num(row.completion_tokens),
        _num(row.cached_tokens),
        _num(row.mean_tokens, 1),
        _num(row.mean_latency_s, 3),
        _num(row.latency_s, 1),
    ]
    return [*cells, _num(row.cost_usd, 4)] if priced else cells


_HEADER = [
    "records",
    "with usage",
    "prompt tokens",
    "completion tokens",
    "cached tokens",
    "tokens / record",
    "latency s / record",
    "latency s",
]


def token_tables(runs: dict[str, RunTokens]) -> list[Table]:
    """Per component (with the token overhead over Clean) and per type, one row per run and group."""
    priced = any(t.priced for t in runs.values())
    tail = ["cost USD"] if priced else []
    comp_rows: list[list[str]] = []
    type_rows: list[list[str]] = []
    for name, tokens in runs.items():
        for comp, row in tokens.by_component.items():
            over = "" if comp == "clean" else _pct(tokens.token_overhead.get(comp))
            comp_rows.append([f"{name} · {comp}", *_cells(row, priced), over])
        comp_rows.append([f"{name} · all", *_cells(tokens.total, priced), ""])
        for code, row in tokens.by_type.items():
            type_rows.append([f"{name} · {type_info(code).display}", *_cells(row, priced)])
    notes = [TOKENS_NOTE, OVERHEAD_NOTE, *([COST_NOTE] if priced else [])]
    return [
        Table(
            "tokens",
            "Tokens and time per component",
            ["run · component", *_HEADER, *tail, "token overhead"],
            comp_rows,
            notes,
        ),
        Table("tokens_per_type", "Tokens and time per type", ["run · type", *_HEADER, *tail], type_rows, notes),
    ]


def fault_token_table(by_agent: dict[str, list[DeltaTokens]]) -> Table:
    """Per agent and δ: tokens per episode, and the paired steps and token overheads over δ = 0 (episodes
    keep no wall time)."""
    priced = any(d.row.cost_usd is not None for rows in by_agent.values() for d in rows)
    rows: list[list[str]] = []
    for agent, deltas in by_agent.items():
        for d in deltas:
            row = d.row
            per_episode = [
                str(row.records),
                str(row.steps),
                str(row.with_usage),
                _num(row.total_tokens),
                _num(row.mean_tokens, 1),
                str(d.paired_tasks) if d.delta else "",
                _pct(d.steps_overhead) if d.delta else "",
                _pct(d.token_overhead) if d.delta else "",
            ]
            rows.append([f"{agent} · δ={d.delta:g}", *per_episode, *([_num(row.cost_usd, 4)] if priced else [])])
    header = [
        "agent · δ",
        "episodes",
        "steps",
        "with usage",
        "tokens",
        "tokens / episode",
        "paired tasks",
        "steps overhead",
        "token overhead",
        *(["cost USD"] if priced else []),
    ]
    notes = [
        "Tokens: the server's own counts summed over an episode's steps. Steps and token overheads: means over "
        "the task attempts completed both at δ = 0 and at the δ (Table 5's paired rule), over δ = 0's, less one.",
        *([COST_NOTE] if priced else []),
    ]
    return Table("fault_tokens", "Tokens per fault rate δ", header, rows, notes)
