"""``compare``'s tokens and time section: what each compared pair of runs cost, per component and
type (single-turn runs) or per δ (fault runs), the candidate beside the baseline.

A section of its own (``compare_tokens.md`` / ``.json``): no gate reads it; it says what a change
costs beside what it does to accuracy."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, computed_field

from robustcall.core import PREDICTIONS, TRAJECTORIES, atomic_write_text, read_trajectories, type_info
from robustcall.metrics import Prices, TokenRow, fault_tokens
from robustcall.report._compare import CompareResult
from robustcall.report._runs import run_name
from robustcall.report._tokens import read_run_tokens

COMPARE_TOKENS_MD = "compare_tokens.md"
COMPARE_TOKENS_JSON = "compare_tokens.json"


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b - 1.0


class TokenPair(BaseModel):
    """One unit (component, type or δ) of one pair of runs."""

    unit: str
    kind: Literal["all", "component", "type", "delta"]
    baseline: TokenRow | None
    candidate: TokenRow | None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tokens_change(self) -> float | None:
        """Candidate's mean tokens per record (episode) over the baseline's, less one."""
        return _ratio(
            self.candidate.mean_tokens if self.candidate else None, self.baseline.mean_tokens if self.baseline else None
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def latency_change(self) -> float | None:
        return _ratio(
            self.candidate.mean_latency_s if self.candidate else None,
            self.baseline.mean_latency_s if self.baseline else None,
        )


class TokenComparison(BaseModel):
    part: str
    pairs: list[TokenPair]


def _units(
    run: Path, prices: Prices | None
) -> list[tuple[str, Literal["all", "component", "type", "delta"], TokenRow]]:
    if (run / PREDICTIONS).is_file():
        tokens = read_run_tokens(run, run_name(run), prices)
        out: list[tuple[str, Literal["all", "component", "type", "delta"], TokenRow]] = [("all", "all", tokens.total)]
        out += [(c, "component", row) for c, row in tokens.by_component.items()]
        out += [(type_info(code).display, "type", row) for code, row in tokens.by_type.items()]
        return out
    if (run / TRAJECTORIES).is_file():
        by_agent = fault_tokens(read_trajectories(run), lambda t: "all", prices)
        return [(f"δ={d.delta:g}", "delta", d.row) for rows in by_agent.values() for d in rows]
    return []


def compare_tokens(result: CompareResult, prices: Prices | None = None) -> list[TokenComparison]:
    """Per compared pair of run folders: every unit either side has, baseline beside candidate."""
    out: list[TokenComparison] = []
    for c in result.comparisons:
        base_dir = Path(result.baseline) / c.part if c.part else Path(result.baseline)
        cand_dir = Path(result.candidate) / c.part if c.part else Path(result.candidate)
        if not (base_dir.is_dir() and cand_dir.is_dir()):
            continue  # an rm_eval.json: no tokens
        base = {(u, k): row for u, k, row in _units(base_dir, prices)}
        cand = {(u, k): row for u, k, row in _units(cand_dir, prices)}
        keys = list(dict.fromkeys([*base, *cand]))
        if keys:
            pairs = [TokenPair(unit=u, kind=k, baseline=base.get((u, k)), candidate=cand.get((u, k))) for u, k in keys]
            out.append(TokenComparison(part=c.part, pairs=pairs))
    return out


def _n(v: float | None, digits: int) -> str:
    return "—" if v is None else f"{v:,.{digits}f}"


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:+.1f}%"


def tokens_markdown(comparisons: list[TokenComparison]) -> str:
    """The section as Markdown: per pair, per unit, tokens and latency per record on both sides."""
    if not comparisons:
        return ""
    priced = any(
        r is not None and r.cost_usd is not None
        for c in comparisons
        for p in c.pairs
        for r in (p.baseline, p.candidate)
    )
    lines = ["## Tokens and time", ""]
    for c in comparisons:
        if c.part:
            lines += [f"### {c.part}", ""]
        head = ["unit", "tokens / record (base)", "tokens / record (cand)", "Δ tokens", "s / record (base)"]
        head += ["s / record (cand)", "Δ time", *(["cost USD (base)", "cost USD (cand)"] if priced else [])]
        lines += ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
        for p in c.pairs:
            b, k = p.baseline, p.candidate
            cells = [
                p.unit,
                _n(b.mean_tokens if b else None, 1),
                _n(k.mean_tokens if k else None, 1),
                _pct(p.tokens_change),
                _n(b.mean_latency_s if b else None, 3),
                _n(k.mean_latency_s if k else None, 3),
                _pct(p.latency_change),
            ]
            if priced:
                cells += [_n(b.cost_usd if b else None, 4), _n(k.cost_usd if k else None, 4)]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(
        "Tokens: the servers' own counts (usage), per record over the records that carry them; — where a side "
        "has none (an older run, a scripted model). No gate reads this section."
    )
    return "\n".join(lines) + "\n"


def write_compare_tokens(comparisons: list[TokenComparison], out: Path) -> list[Path]:
    """``compare_tokens.md`` and ``compare_tokens.json`` in ``out`` (nothing when no pair has tokens)."""
    if not comparisons:
        return []
    out.mkdir(parents=True, exist_ok=True)
    md, js = out / COMPARE_TOKENS_MD, out / COMPARE_TOKENS_JSON
    atomic_write_text(md, tokens_markdown(comparisons))
    body = "[" + ",\n".join(c.model_dump_json(indent=2) for c in comparisons) + "]\n"
    atomic_write_text(js, body)
    return [md, js]
