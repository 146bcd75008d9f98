"""``card.json`` (``robustcall card``): every number a card shows, each from ``metrics`` over the card's
own runs; ``card_page`` renders it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from robustcall.metrics import DeltaTokens, Estimate, FaultMetrics, RunTokens
from robustcall.report._placement import Placement

CARD_JSON = "card.json"
"""The file a finished card folder holds its numbers in (``robustcall card``)."""


class Example(BaseModel):
    """One record that shows a perturbation's damage: its clean twin was answered right, it was not
    (else the first wrong record of the type)."""

    id: str
    query: str
    """The last user turn the model was shown."""
    answer: str
    """What the model answered (its text, cut at 400 characters)."""
    error_mode: str | None
    clean_correct: bool | None
    """Whether the clean sample it was made from was answered right."""


class TypeRow(BaseModel):
    code: str
    display: str
    component: str
    n: int
    accuracy: Estimate
    drop: Estimate
    """Clean − accuracy (positive: the perturbation hurt)."""


class Damaging(BaseModel):
    """One of the types that hurt the model most, with an example."""

    code: str
    display: str
    component: str
    drop: Estimate
    example: Example | None


class RobustBenchSection(BaseModel):
    run: str
    records: int
    clean_samples: int
    infra_errors: int
    clean: Estimate
    pert_acc: Estimate
    retention: Estimate
    components: dict[str, Estimate]
    """POMDP component -> accuracy over its pooled records."""
    component_delta: dict[str, Estimate]
    """POMDP component -> Δ_X = Clean − its accuracy (Table 2)."""
    types: list[TypeRow]
    most_damaging: list[Damaging]
    reference: Placement


class PipeLevel(BaseModel):
    episodes: int
    score: float | None
    """Mean r(τ) (§3.1): the environment's reward where it has one, else success."""
    success: float | None
    legacy_calls: float | None = None
    """Legacy calls per episode (synonym and symbol levels, Table 9)."""


class PipeEnv(BaseModel):
    levels: dict[str, PipeLevel]
    delta: float | None
    """Δ = (s1 + s2) / 2 − s0."""
    interface_reliance: dict[str, float | None]
    """α -> IR of the dual level (eq. 3, both orders; > 1 prefers the original names)."""


class FaultClassRow(BaseModel):
    fault_class: str
    display: str
    pooled: FaultMetrics
    """Both environments' episodes together."""
    by_env: dict[str, FaultMetrics]


class McpCondition(BaseModel):
    """One condition of an ``mcp run`` the card shows (``card --mcp-run``): the row ``mcp report`` prints."""

    model_config = ConfigDict(extra="ignore")

    condition: str
    episodes: int
    infra: int
    success: float | None
    delta: float | None = None
    ci95: tuple[float, float] | None = None
    retention: float | None = None
    rasr: float | None = None
    rr: float | None = None
    eia: float | None = None
    ufr: float | None = None
    legacy_calls: int | None = None
    ir: float | None = None
    distractor_calls: int | None = None
    injection_followed: int | None = None


class Card(BaseModel):
    """A model's robustness card."""

    protocol: str
    budget: str
    model: str
    env_model: str
    seed: int
    resamples: int
    robustbench: RobustBenchSection
    pipe: dict[str, PipeEnv]
    faults: list[FaultClassRow]
    fault_delta: float
    runs: list[str] = Field(default_factory=list)
    """Every run directory of the card, relative to it (what ``compare`` pairs)."""
    tokens: RunTokens | None = None
    """The RobustBench-TC run's tokens and time per type and component (the server's counts)."""
    fault_tokens: dict[str, list[DeltaTokens]] = Field(default_factory=dict)
    """Fault class -> its episodes' tokens and time per δ (both environments pooled)."""
    mcp_run: str | None = None
    """The ``mcp run`` folder shown beside the protocol's systems (``card --mcp-run``), if any."""
    mcp: list[McpCondition] = Field(default_factory=list)
