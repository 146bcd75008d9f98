"""FC-RewardBench's closed vocabulary (Table 1) and record layout (§3.1, the released dataset's fields)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

ErrorType = Literal[
    "Incorrect Parameter Value",
    "Incorrect Function Name",
    "Incorrect number of functions",
    "Missing Optional Parameter",
    "Missing Required Parameter",
    "Incorrect Parameter Type",
    "Unexpected Parameter",
    "Incorrect output format",
]
"""The eight error types of Table 1, spelled as the paper spells them (capitalisation included)."""

TABLE1_COUNTS: dict[ErrorType, int] = {
    "Incorrect Parameter Value": 650,
    "Incorrect Function Name": 403,
    "Incorrect number of functions": 245,
    "Missing Optional Parameter": 78,
    "Missing Required Parameter": 45,
    "Incorrect Parameter Type": 43,
    "Unexpected Parameter": 21,
    "Incorrect output format": 15,
}
"""Table 1: the error mix of the 1,500-record FC-RewardBench (the default target mix of top-ups)."""

ERROR_TYPES: tuple[ErrorType, ...] = tuple(TABLE1_COUNTS)

IRRELEVANCE_ERROR = "Irrelevance error"
"""A call made where none was due (BFCL's irrelevance categories, Table 8's row; the error type of an
RM training pair built from a no-call sample, as the paper's xlam-irrelevance data)."""

SYNTHETIC_PREFIX = "synthetic:"
"""``model_name`` of a rejected call made by a rule-based mutator: ``synthetic:<error type>``."""


class RewardPair(BaseModel):
    """One FC-RewardBench record (also one RM training pair): a query, its tools, a correct and an
    incorrect output. Field names and meanings are the released dataset's."""

    model_config = ConfigDict(extra="ignore")

    tools: list[dict[str, Any]]
    """The tool catalog as JSON schemas (``name``, ``description``, ``parameters``)."""
    conversation: list[dict[str, Any]]
    """Chat turns ``{"role", "content"}`` up to the point where the calls are due."""
    chosen_output: str
    """The correct call sequence as text (we write a JSON list of ``{"name", "arguments"}``)."""
    rejected_output: str
    """An incorrect output: the same JSON shape when it parsed, the generator's raw text when not."""
    error_type: str
    """What is wrong with ``rejected_output``: one of :data:`ERROR_TYPES` for records we build."""
    model_name: str
    """The generator that wrote ``rejected_output`` (``synthetic:<type>`` for a mutator)."""
    test_category: str
    """The source category (BFCL's ``simple``, ``live_multiple``, ...; ``apibank``... for training)."""
    test_id: str
    """The source sample's id."""


def table1_targets(total: int) -> dict[ErrorType, int]:
    """Table 1's proportions scaled to ``total`` records (largest remainders, so they sum to ``total``)."""
    whole = sum(TABLE1_COUNTS.values())
    exact = {t: total * c / whole for t, c in TABLE1_COUNTS.items()}
    out = {t: int(v) for t, v in exact.items()}
    rest = total - sum(out.values())
    for t in sorted(ERROR_TYPES, key=lambda t: (-(exact[t] - out[t]), ERROR_TYPES.index(t)))[:rest]:
        out[t] += 1
    return out
