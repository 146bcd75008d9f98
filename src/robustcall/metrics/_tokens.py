"""What a run cost: the server's token counts and the wall time, per type, per component and per
fault δ, and in US dollars where a price file says what a model's tokens cost.

Every figure is a sum of what the records hold (``Prediction.usage`` / ``Step.usage``, the server's
own ``usage`` blocks, and ``latency_s``); nothing is estimated. A record without ``usage`` (an older
run, a backend that reports none, an answer the local model reused without asking its server) counts
in ``records`` but not in ``with_usage``, and the means divide by ``with_usage``.

Episodes keep tokens per step but no wall time (it would make two runs of one seed differ).

**Token overhead** beside the fault paper's steps overhead (Table 5): the mean tokens a task attempt
spends at a δ over its mean at δ = 0, less one, over the attempts completed in both conditions (Table
5's ``paired`` rule); for a single-turn run, a component's mean tokens per record over Clean's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field

from robustcall.core import InputError, PredictionRecord, Trajectory, Usage, type_info
from robustcall.metrics._summary import COMPONENT_ORDER

PER_MILLION = 1_000_000


class Price(BaseModel):
    """USD per million tokens of one model."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    """Cached input tokens, where the provider bills them apart (else they cost ``input``)."""

    def cost(self, usage: Usage) -> float:
        cached = (usage.cached_tokens or 0) if self.cached_input is not None else 0
        fresh = usage.prompt_tokens - cached
        paid_cached = cached * (self.cached_input or 0.0)
        return (fresh * self.input + paid_cached + usage.completion_tokens * self.output) / PER_MILLION


class Prices(BaseModel):
    """A ``--prices`` file: model name -> :class:`Price`; ``"*"`` prices every other model."""

    models: dict[str, Price]

    def for_model(self, name: str) -> Price | None:
        """The price of ``name`` (an ``openai:NAME@URL`` spec is looked up as ``NAME`` too), else ``"*"``'s."""
        bare = name.removeprefix("openai:").split("@", 1)[0]
        return self.models.get(name) or self.models.get(bare) or self.models.get("*")


def load_prices(path: Path) -> Prices:
    """Read a ``--prices`` YAML file (docs/report.md): ``{model: {input: USD, output: USD[, cached_input: USD]}}``,
    USD per million tokens. A file that does not fit raises ``InputError`` in one line."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise InputError(f"--prices {path}: unreadable ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not data:
        raise InputError(f"--prices {path}: expected a mapping of model name -> {{input: USD, output: USD}}")
    try:
        return Prices(models=data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:])
        raise InputError(f"--prices {path}: {where}: {first['msg']} (USD per million tokens)") from None


class TokenRow(BaseModel):
    """Tokens and time of one group of records (or episodes)."""

    records: int = 0
    with_usage: int = 0
    """Records whose server reported ``usage``."""
    requests: int = 0
    """Server answers the counts sum (two for an injected transition record, one a step of an episode)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None
    """``None`` when no answer of the group said how many input tokens were cached."""
    latency_s: float = 0.0
    """Wall time summed over the group's timed records (requests, retries and backoff)."""
    timed: int = 0
    """Records that carry a wall time (episodes carry none: their steps keep tokens only)."""
    steps: int = 0
    """Episodes only: steps taken in all."""
    cost_usd: float | None = None
    """With a price for the model: the cost of the counted tokens."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mean_tokens(self) -> float | None:
        return self.total_tokens / self.with_usage if self.with_usage else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mean_latency_s(self) -> float | None:
        return self.latency_s / self.timed if self.timed else None

    def add(self, usage: Usage | None, latency: float | None, steps: int = 0) -> None:
        self.records += 1
        self.steps += steps
        if latency is not None:
            self.timed += 1
            self.latency_s += latency
        if usage is None:
            return
        self.with_usage += 1
        self.requests += usage.requests
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        if usage.cached_tokens is not None:
            self.cached_tokens = (self.cached_tokens or 0) + usage.cached_tokens

    def priced(self, price: Price | None) -> TokenRow:
        if price is None:
            return self
        usage = Usage(
            prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens, cached_tokens=self.cached_tokens
        )
        return self.model_copy(update={"cost_usd": round(price.cost(usage), 6)})


def overhead(value: float | None, base: float | None) -> float | None:
    """``value / base - 1`` (0.25: a quarter more than the baseline), ``None`` when either is unknown."""
    if value is None or base is None or base == 0:
        return None
    return value / base - 1.0


class RunTokens(BaseModel):
    """A single-turn run's tokens and time per type and per component, with the token overhead of
    each perturbed component over Clean (mean tokens per record)."""

    by_type: dict[str, TokenRow]
    by_component: dict[str, TokenRow]
    total: TokenRow
    token_overhead: dict[str, float | None]
    """Component -> its mean tokens per record over Clean's, less one."""
    priced: bool = False


def run_tokens(records: Iterable[PredictionRecord], price: Price | None = None) -> RunTokens:
    """Sum the records' ``usage`` and ``latency_s`` per type and component (components in the
    paper's order; the beyond-the-paper axes under their own component)."""
    by_type: dict[str, TokenRow] = {}
    by_component: dict[str, TokenRow] = {}
    total = TokenRow()
    for rec in records:
        code = rec.perturbation.type
        pred = rec.prediction
        by_type.setdefault(code, TokenRow()).add(pred.usage, pred.latency_s)
        by_component.setdefault(type_info(code).component, TokenRow()).add(pred.usage, pred.latency_s)
        total.add(pred.usage, pred.latency_s)
    order = {c: i for i, c in enumerate(COMPONENT_ORDER)}
    components = dict(sorted(by_component.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    clean = components.get("clean")
    base = clean.mean_tokens if clean is not None else None
    return RunTokens(
        by_type={k: v.priced(price) for k, v in sorted(by_type.items())},
        by_component={k: v.priced(price) for k, v in components.items()},
        total=total.priced(price),
        token_overhead={c: overhead(row.mean_tokens, base) for c, row in components.items() if c != "clean"},
        priced=price is not None,
    )


def episode_usage(t: Trajectory) -> Usage | None:
    """An episode's tokens: its steps' ``usage`` summed (``None`` when no step has any)."""
    usage: Usage | None = None
    for step in t.steps:
        if step.usage is not None:
            usage = step.usage if usage is None else usage + step.usage
    return usage


class DeltaTokens(BaseModel):
    """One agent at one δ: its episodes' tokens and time, and the overheads over δ = 0."""

    delta: float
    row: TokenRow
    paired_tasks: int = 0
    """Task attempts (env, task, seed) completed both at δ = 0 and at this δ."""
    steps_overhead: float | None = None
    """Mean steps over the paired attempts at this δ over δ = 0's, less one (Table 5)."""
    token_overhead: float | None = None
    """Mean tokens over the same attempts at this δ over δ = 0's, less one."""


def fault_tokens(
    trajectories: Iterable[Trajectory], agent_of: Any, prices: Prices | None = None
) -> dict[str, list[DeltaTokens]]:
    """Per agent (``agent_of(t)``) and δ (``t.config["delta"]``): tokens, time and the paired steps
    and token overheads over δ = 0 (only where the agent ran δ = 0)."""
    groups: dict[str, dict[float, list[Trajectory]]] = defaultdict(lambda: defaultdict(list))
    for t in trajectories:
        groups[agent_of(t)][float(t.config.get("delta", 0.0))].append(t)
    out: dict[str, list[DeltaTokens]] = {}
    for agent, by_delta in sorted(groups.items()):
        price = prices.for_model(agent) if prices is not None else None
        base = _solved(by_delta.get(0.0, []))
        rows: list[DeltaTokens] = []
        for delta in sorted(by_delta):
            row = TokenRow()
            for t in by_delta[delta]:
                row.add(episode_usage(t), None, steps=len(t.steps))
            entry = DeltaTokens(delta=delta, row=row.priced(price))
            if delta != 0.0 and base:
                entry = _paired(entry, base, _solved(by_delta[delta]))
            rows.append(entry)
        out[agent] = rows
    return out


def _solved(ts: Iterable[Trajectory]) -> dict[tuple[str, str, int], tuple[int, Usage | None]]:
    return {(t.env, t.task_id, t.seed): (len(t.steps), episode_usage(t)) for t in ts if t.success}


def _paired(
    entry: DeltaTokens,
    base: Mapping[tuple[str, str, int], tuple[int, Usage | None]],
    faulty: Mapping[tuple[str, str, int], tuple[int, Usage | None]],
) -> DeltaTokens:
    both = sorted(base.keys() & faulty.keys())
    if not both:
        return entry
    steps0 = sum(base[k][0] for k in both) / len(both)
    steps1 = sum(faulty[k][0] for k in both) / len(both)
    pairs = [(base[k][1], faulty[k][1]) for k in both]
    counted = [(u0.total_tokens, u1.total_tokens) for u0, u1 in pairs if u0 is not None and u1 is not None]
    tokens = None
    if counted:
        tokens = overhead(sum(b for _, b in counted) / len(counted), sum(a for a, _ in counted) / len(counted))
    return entry.model_copy(
        update={"paired_tasks": len(both), "steps_overhead": overhead(steps1, steps0), "token_overhead": tokens}
    )
