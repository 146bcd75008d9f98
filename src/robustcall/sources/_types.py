"""What a loader returns, the source names, the paper's default composition, and loader errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from robustcall.core import Sample, UserError

SourceName = Literal["bfcl", "apibank", "rotbench", "toolalpaca", "tooleyes"]

SOURCE_NAMES: tuple[str, ...] = ("bfcl", "apibank", "rotbench", "toolalpaca", "tooleyes")
"""Every benchmark ``load_source`` knows, in the paper's order (Appendix A, Table 3)."""

DEFAULT_COMPOSITION: dict[str, int] = {"bfcl": 32, "apibank": 74, "rotbench": 21, "toolalpaca": 21, "tooleyes": 51}
"""Clean samples per source in RobustBench-TC (Table 3): 199 in all."""

PAPER_TABLE3: dict[str, tuple[int, float, int]] = {
    "bfcl": (32, 22.0, 505),
    "apibank": (74, 71.6, 1646),
    "rotbench": (21, 20.8, 479),
    "toolalpaca": (21, 20.8, 479),
    "tooleyes": (51, 25.5, 612),
}
"""Table 3 of the paper per source: (clean samples, average evaluable samples per perturbation type
over the 22 types, total records: clean plus every perturbation type), 3,721 in all. The rows do not
all agree with themselves or with §4 (docs/sources.md, "Composition")."""

PAPER_AVG_TOOLS: dict[str, float] = {"bfcl": 2.8, "apibank": 3.1, "rotbench": 7.8, "toolalpaca": 3.5, "tooleyes": 6.3}
"""Table 3's *Avg. tools*: the mean candidate-tool count per clean sample of each source."""

GoldenMode = Literal["all", "any", "sequence", "any_name"]
"""How a sample's ``golden_answers`` are meant, recorded in ``source.extra["golden_mode"]``.

- ``all``: every listed call must be made (BFCL, incl. parallel; API-Bank). ``[]`` = no call is correct
  (BFCL irrelevance).
- ``any``: each entry is a complete correct answer on its own; one suffices (RoTBench's alternatives).
- ``sequence``: the calls in order (ToolAlpaca's multi-step golden answers).
- ``any_name``: a call to any listed tool name is correct; parameters are not known (ToolEyes).
"""


@dataclass(frozen=True)
class LoadResult:
    """The samples one source gave, what it left out and why, and what exactly was read."""

    source: str
    samples: list[Sample]
    skipped: dict[str, int] = field(default_factory=dict)
    """Reason -> number of source items left out, e.g. ``{"unparseable action input": 9}``."""
    versions: dict[str, str] = field(default_factory=dict)
    """What was read -> its version or sha256, e.g. ``{"bfcl-eval": "2026.3.23"}``."""


class SourceError(UserError):
    """A source could not be loaded; the message says what was wrong and what to do."""


class UnknownSourceError(SourceError, ValueError):
    """A source name that ``load_source`` does not know."""


class MissingDataError(SourceError, FileNotFoundError):
    """A data-dir source was asked for without a data dir, or an expected file is missing."""


class SourceFormatError(SourceError, ValueError):
    """A source file is not in the shape its loader expects (names the file and the item)."""
