"""A deterministic classifier of an agent's text into the error class it names (for EIA).

Rules (case-insensitive regular expressions, listed below per class):

1. Every class's patterns are searched; the class whose first match starts earliest in the text
   wins (the first diagnosis the agent writes). Equal starts go to the class listed first.
2. No class matched, but the text acknowledges a failure in general words ("error", "failed",
   "unable", "try again", ...): ``"unspecified"``.
3. Nothing matched: ``None`` (the agent did not notice).

Quoting the tool's error message counts as naming it ("The tool returned HTTP 404 Not Found").
"""

from __future__ import annotations

import re
from typing import Literal

from robustcall.core import FaultClass

Diagnosis = FaultClass | Literal["unspecified"] | None

CLASS_PATTERNS: dict[FaultClass, tuple[str, ...]] = {
    "execution": (
        r"\b(?:404|401|403|429|500|502|503|504)\b",
        r"\bnot found\b",
        r"\bunauthori[sz]ed\b",
        r"\bforbidden\b",
        r"\bpermission",
        r"\bcredential",
        r"\brate[- ]?limit",
        r"\btoo many requests\b",
        r"\bserver error\b",
        r"\binternal error\b",
        r"\bservice (?:is )?(?:temporarily )?unavailable\b",
        r"\btim(?:ed|es|ing)? ?-?out\b",
        r"\bhttp error\b",
        r"\bstatus code\b",
        r"\boverloaded\b",
        r"\bmaintenance\b",
        r"\bconnection (?:error|failed|refused|reset)\b",
    ),
    "semantic": (
        r"\bempty\b",
        r"\bno results?\b",
        r"\bnothing (?:was )?returned\b",
        r"\bmalformed\b",
        r"\b(?:invalid|not valid|broken) json\b",
        r"\bnot (?:a )?json\b",
        r"\btruncated\b",
        r"\bcut off\b",
        r"\bincomplete\b",
        r"\b(?:could not|cannot|can't|unable to) (?:be )?parse",
        r"\bparse error\b",
        r"\bimplausible\b",
        r"\bnegative (?:price|value|number|amount|quantity|count)\b",
        r"\bunrealistic\b",
        r"\b(?:does not|doesn't|does n't) make sense\b",
        r"\b(?:wrong|unexpected|incorrect) (?:data )?type\b",
        r"\bshould be an? (?:number|integer|string|list|object)\b",
        r"\binconsistent\b",
        r"\bsuspicious\b",
        r"\bcorrupt",
        r"\banomal",
        r"\b(?:invalid|unexpected|incorrect|wrong|bogus) (?:value|data|result|response|output|format)s?\b",
        r"\bschema validation\b",
        r"\bdid not match\b",
    ),
    "nonstationary": (
        r"\bdeprecated\b",
        r"\bremoved\b",
        r"\bno longer (?:available|exists|supported|accepted)\b",
        r"\brenamed\b",
        r"\bnow (?:named|called)\b",
        r"\bnew (?:parameter )?name\b",
        r"\b(?:newly )?required parameter\b",
        r"\bmissing (?:required )?(?:parameter|argument)\b",
        r"\bunknown (?:parameter|argument)\b",
        r"\b(?:api|interface|schema|signature) (?:has )?changed\b",
        r"\bchanged (?:its |the )?(?:api|interface|schema|signature)\b",
        r"\b410\b",
        r"\bgone\b",
    ),
}

ACKNOWLEDGE_PATTERNS: tuple[str, ...] = (
    r"\berror",
    r"\bfail(?:ed|ure|s|ing)?\b",
    r"\bunable\b",
    r"\bcannot\b",
    r"\bcan't\b",
    r"\bcould ?n[o']t\b",
    r"\bwent wrong\b",
    r"\bproblem\b",
    r"\bissue\b",
    r"\bdid ?n[o']t work\b",
    r"\bretry",
    r"\btry again\b",
)

_CLASS_RE = {cls: re.compile("|".join(p), re.IGNORECASE) for cls, p in CLASS_PATTERNS.items()}
_ACK_RE = re.compile("|".join(ACKNOWLEDGE_PATTERNS), re.IGNORECASE)


def diagnose(text: str) -> Diagnosis:
    """The error class ``text`` names first, ``"unspecified"``, or ``None`` (see the module rules)."""
    best: tuple[int, FaultClass] | None = None
    for cls, rx in _CLASS_RE.items():
        m = rx.search(text)
        if m is not None and (best is None or m.start() < best[0]):
            best = (m.start(), cls)
    if best is not None:
        return best[1]
    return "unspecified" if _ACK_RE.search(text) else None
