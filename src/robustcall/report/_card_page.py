"""The card's one self-contained HTML page: inline CSS and SVG, no script, nothing fetched."""

from __future__ import annotations

import html

from robustcall.core import TYPES
from robustcall.metrics import Estimate, FaultMetrics
from robustcall.report._card_model import Card
from robustcall.report._card_verdict import card_verdict
from robustcall.report._svg import COMPONENT_COLOURS, Bar, hbars
from robustcall.report._table import Table
from robustcall.report._tokens import fault_token_table, token_tables
from robustcall.report._write import STYLE

_CARD_STYLE = (
    "figure{margin:1rem 0}figcaption{font-size:.85rem;color:#444;max-width:720px}"
    "pre{white-space:pre-wrap;font-size:.8rem;background:#f7f7f7;padding:.4rem}"
)


def _e(est: Estimate) -> str:
    if est.value is None:
        return "—"
    return f"{est.value:.3f}" + (f" ± {est.ci95:.3f}" if est.ci95 else "")


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _count(x: float | None) -> str:
    """A count per episode: whole ones as integers (15, not 15.000), means to two decimals."""
    if x is None:
        return "—"
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>"


def _profile(card: Card) -> str:
    rb = card.robustbench
    bars = [Bar("Clean", rb.clean.value, rb.clean.ci95, COMPONENT_COLOURS["clean"])]
    bars += [Bar(c.capitalize(), est.value, est.ci95, COMPONENT_COLOURS[c]) for c, est in rb.components.items()]
    fig = _figure(
        hbars(bars, low=0.0, high=1.0, axis="accuracy (fraction of records)"),
        f"Figure 1: accuracy on Clean and over each POMDP component's pooled records, with 95% "
        f"percentile-bootstrap intervals (B = {card.resamples:,}, per sample); {rb.records} records on "
        f"{rb.clean_samples} clean samples.",
    )
    table = Table(
        "profile",
        "Profile over the four POMDP components",
        ["", "Accuracy", "Δ from Clean ↓"],
        [["Clean", _e(rb.clean), ""]]
        + [
            [c.capitalize(), _e(rb.components[c]), _e(rb.component_delta.get(c, Estimate(value=None)))]
            for c in rb.components
        ]
        + [["Pert. Acc.", _e(rb.pert_acc), ""], ["Retention", _e(rb.retention), ""]],
    )
    return fig + table.html()


def _types(card: Card) -> str:
    rows = card.robustbench.types
    values = [abs(t.drop.value) + (t.drop.ci95 or 0) for t in rows if t.drop.value is not None]
    top = max([0.1, *values])
    bars = [Bar(t.display, t.drop.value, t.drop.ci95, COMPONENT_COLOURS[t.component]) for t in rows]
    fig = _figure(
        hbars(bars, low=-top, high=top, axis="drop from Clean (fraction; right = worse)"),
        "Figure 2: drop from Clean per perturbation type (Clean − accuracy on its records), coloured by "
        "component (blue Observation, orange Action, green Reward, purple Transition), with 95% intervals.",
    )
    worst = "".join(
        f"<h3>{html.escape(d.display)} ({html.escape(d.component)}): drop {_e(d.drop)}</h3>"
        + (
            f"<p class='note'>{html.escape(TYPES[d.code].display)} · record {html.escape(d.example.id)}"
            f"{' (its clean twin was answered right)' if d.example.clean_correct else ''}; error mode: "
            f"{html.escape(d.example.error_mode or '—')}</p><pre>{html.escape(d.example.query)}</pre>"
            f"<p class='note'>answer:</p><pre>{html.escape(d.example.answer)}</pre>"
            if d.example
            else "<p class='note'>no wrong record to show</p>"
        )
        for d in card.robustbench.most_damaging
    )
    return fig + "<h2>The most damaging perturbations</h2>" + (worst or "<p>No type lowered accuracy.</p>")


def _placement(card: Card) -> str:
    p = card.robustbench.reference
    pert = card.robustbench.pert_acc
    bars = [
        Bar(
            f"{r['name']}",
            r["pert_acc"] if isinstance(r["pert_acc"], float) else None,
            pert.ci95 if r["this"] else None,
            "#d62728" if r["this"] else "#9ecae1",
            strong=bool(r["this"]),
        )
        for r in p.rows
    ]
    caption = (
        f"Figure 3: Pert. Acc. of this model (red, with its 95% interval) among the paper's "
        f"{p.of - 1} reference models (Table 2, as printed). {p.note}"
    )
    return _figure(hbars(bars, low=0.0, high=1.0, axis="Pert. Acc.", label_width=260), caption)


def _pipe(card: Card) -> str:
    bars, rows = [], []
    for env, e in card.pipe.items():
        for level, lv in e.levels.items():
            bars.append(Bar(f"{env} · {level}", lv.score, None, "#1f77b4" if level == "origin" else "#6baed6"))
        ir = e.interface_reliance
        rows.append(
            [env, *(_f(e.levels[lv].score) for lv in ("origin", "synonym", "symbol", "dual")), _f(e.delta)]
            + [_count(e.levels[lv].legacy_calls) for lv in ("synonym", "symbol")]
            + [_f(ir.get(a)) for a in ("0.5", "1", "2")]
        )
    fig = _figure(
        hbars(bars, low=0.0, high=1.0, axis="score (mean r(τ))"),
        "Figure 4: PIPE score per environment under the original interface (origin), synonyms (Perturb 1), "
        "symbols (Perturb 2) and both listed together (dual, the two orders pooled).",
    )
    table = Table(
        "pipe",
        "PIPE: score per level, Δ = (s1 + s2)/2 − s0, legacy calls per episode, Interface Reliance (eq. 3)",
        ["Env", "Origin", "Synonym", "Symbol", "Dual", "Δ", "Legacy P1", "Legacy P2", "IR α=0.5", "IR α=1", "IR α=2"],
        rows,
        ["IR > 1: the agent prefers the original names when both are listed (Appendix F)."],
    )
    return fig + table.html()


def _faults(card: Card) -> str:
    colours = {"RASR": "#2ca02c", "RR": "#1f77b4", "UFR": "#d62728"}
    bars = []
    for row in card.faults:
        m = row.pooled
        for name, value in (("RASR", m.success_rate), ("RR", m.recovery_rate), ("UFR", m.ufr)):
            bars.append(Bar(f"{row.display} · {name}", value, None, colours[name]))
    fig = _figure(
        hbars(bars, low=0.0, high=1.0, axis="rate"),
        f"Figure 5: per failure class at δ = {card.fault_delta:g} (both environments pooled): RASR (task success "
        "under faults), RR (share of injected faults recovered from) and UFR (share of tasks failed "
        "unrecoverably: loop, crash or nonsensical output). — where no fault was met.",
    )

    def cells(m: FaultMetrics) -> list[str]:
        return [str(m.episodes), str(m.faults), _f(m.success_rate), _f(m.recovery_rate), _f(m.ufr), _f(m.eia)]

    rows = [[r.display, "both", *cells(r.pooled)] for r in card.faults]
    rows += [[r.display, env, *cells(m)] for r in card.faults for env, m in r.by_env.items()]
    table = Table(
        "faults",
        f"Fault injection at δ = {card.fault_delta:g}, one profile per class",
        ["Class", "Env", "Episodes", "Faults", "RASR", "RR", "UFR", "EIA"],
        rows,
    )
    return fig + table.html()


def _tokens(card: Card) -> str:
    if card.tokens is None:
        return "<p class='note'>No token counts in this card (written before they were kept).</p>"
    tables = token_tables({card.model: card.tokens})
    if card.fault_tokens:
        tables.append(fault_token_table(card.fault_tokens))
    return "".join(t.html() for t in tables)


def _mcp(card: Card) -> str:
    """``card --mcp-run``: the MCP run's conditions as ``mcp report`` prints them."""

    def n(x: int | None) -> str:
        return "—" if x is None else str(x)

    rows = [
        [r.condition, str(r.episodes), str(r.infra), _f(r.success), _f(r.delta), _f(r.retention), _f(r.rasr),
         _f(r.rr), _f(r.ufr), n(r.legacy_calls), _f(r.ir), n(r.distractor_calls), n(r.injection_followed)]
        for r in card.mcp
    ]  # fmt: skip
    table = Table(
        "mcp",
        f"Over real MCP servers ({card.mcp_run}): success per condition, Δ against clean",
        ["Condition", "Episodes", "Infra", "Success", "Δ", "Retention", "RASR", "RR", "UFR", "Legacy calls", "IR",
         "Distractor calls", "Injections followed"],
        rows,
    )  # fmt: skip
    return table.html()


def card_page(card: Card) -> str:
    """The card as one HTML page (every figure an inline SVG in a ``<figure>`` with its caption)."""
    title = f"Robustness card: {card.model}"
    verdict = f"<p class='verdict'><b>{html.escape(card_verdict(card))}</b></p>"
    head = (
        f"<p>Protocol <b>{html.escape(card.protocol)}</b>, budget <b>{html.escape(card.budget)}</b>, seed "
        f"{card.seed}; RobustBench-TC answered by <code>{html.escape(card.model)}</code>, PIPE and fault "
        f"episodes by <code>{html.escape(card.env_model)}</code>; "
        f"{card.robustbench.infra_errors} infrastructure errors.</p>"
    )
    runs = (
        "<h2>Runs</h2><p>The card's run folders (what <code>robustcall compare</code> pairs): "
        + ", ".join(f"<code>{html.escape(r)}</code>" for r in card.runs)
        + "</p>"
    )
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}{_CARD_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{verdict}{head}"
        f"<h2>RobustBench-TC: profile over the POMDP components</h2>{_profile(card)}"
        f"<h2>Per perturbation type</h2>{_types(card)}"
        f"<h2>Beside the paper's reference models</h2>{_placement(card)}"
        f"<h2>PIPE: renamed interfaces</h2>{_pipe(card)}"
        f"<h2>Fault injection</h2>{_faults(card)}"
        f"<h2>Tokens and time</h2>{_tokens(card)}"
        + (f"<h2>Real MCP servers</h2>{_mcp(card)}" if card.mcp else "")
        + f"{runs}"
        + "</body></html>\n"
    )
