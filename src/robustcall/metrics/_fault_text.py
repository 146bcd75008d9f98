"""A deterministic classifier of an agent's text into the error *type* it names (for EIA).

§3.3: EIA is the share of faults where "the agent's reasoning correctly names the type of error
encountered". The types are the labels of ``ERROR_TYPES`` ("timeout", "rate limit", "not found",
"malformed", "deprecated", "parameter changed", ...); ``ERROR_TYPE_OF`` gives the label of every
fault type a trajectory can carry (the injector's, the transition errors' and the runtime axes').

Rules (case-insensitive regular expressions, listed below per label):

1. Every label's patterns are searched; the label whose first match starts earliest in the text
   wins (the first diagnosis the agent writes). Equal starts go to the label listed first.
2. No label matched, but the text acknowledges a failure in general words ("error", "failed",
   "unable", "try again", "HTTP error", "corrupted", ...): ``"unspecified"``.
3. Nothing matched: ``None`` (the agent did not notice).

Quoting the tool's error message counts as naming it ("The tool returned HTTP 404 Not Found").
A custom fixed-message type has no label: it is identified when the agent names any type of its class.
"""

from __future__ import annotations

import re
from typing import Literal

from robustcall.core import FaultClass

Diagnosis = str | Literal["unspecified"] | None
"""An ``ERROR_TYPES`` label, ``"unspecified"``, or ``None``."""

ERROR_TYPES: dict[str, tuple[FaultClass, tuple[str, ...]]] = {
    "timeout": ("execution", (r"\btim(?:ed|es|ing)? ?-?out\b", r"\bdid not respond\b", r"\bno response\b")),
    "rate limit": ("execution", (r"\b429\b", r"\brate[- ]?limit", r"\btoo many requests\b", r"\bquota\b")),
    "not found": ("execution", (r"\b404\b", r"\bnot found\b", r"\bno (?:such )?resource\b", r"\bdoes not exist\b")),
    "unauthorized": (
        "execution",
        (
            r"\b40[13]\b",
            r"\bunauthori[sz]ed\b",
            r"\bforbidden\b",
            r"\bpermission",
            r"\bcredential",
            r"\bauthenticat",
            r"\baccess denied\b",
        ),
    ),
    "server error": (
        "execution",
        (
            r"\b50[0-4]\b",
            r"\b5xx\b",
            r"\bserver error\b",
            r"\binternal error\b",
            r"\bservice (?:is )?(?:temporarily )?unavailable\b",
            r"\boverloaded\b",
            r"\bmaintenance\b",
            r"\bconnection (?:error|failed|refused|reset)\b",
        ),
    ),
    "empty result": ("semantic", (r"\bempty\b", r"\bno results?\b", r"\bnothing (?:was )?returned\b")),
    "malformed": (
        "semantic",
        (
            r"\bmalformed\b",
            r"\b(?:invalid|not valid|broken) json\b",
            r"\bnot (?:a )?json\b",
            r"\btruncated\b",
            r"\bcut off\b",
            r"\bincomplete\b",
            r"\b(?:could not|cannot|can't|unable to) (?:be )?parse",
            r"\bparse error\b",
        ),
    ),
    "implausible value": (
        "semantic",
        (
            r"\bimplausible\b",
            r"\bnegative (?:price|value|number|amount|quantity|count)\b",
            r"\bunrealistic\b",
            r"\babsurd\b",
            r"\b(?:does not|doesn't|does n't) make sense\b",
        ),
    ),
    "wrong type": (
        "semantic",
        (
            r"\b(?:wrong|unexpected|incorrect) (?:data )?type\b",
            r"\bshould be an? (?:number|integer|string|list|object|boolean)\b",
            r"\bmust be of type\b",
            r"\btype mismatch\b",
            r"\b422\b",
        ),
    ),
    "wrong value": (
        "semantic",
        (
            r"\binconsistent\b",
            r"\bsuspicious\b",
            r"\b(?:invalid|unexpected|incorrect|wrong|bogus) (?:value|data|result|response|output)s?\b",
        ),
    ),
    "schema mismatch": (
        "semantic",
        (r"\bschema validation\b", r"\bdid not match\b", r"\b(?:extra|missing) fields?\b", r"\boutput schema\b"),
    ),
    "stale": (
        "semantic",
        (
            r"\bstale\b",
            r"\boutdated\b",
            r"\bout of date\b",
            r"\bcached\b",
            r"\bnot (?:yet )?(?:been )?updated\b",
            r"\bbefore the (?:last )?write\b",
            r"\bold (?:state|value|data|result)\b",
        ),
    ),
    "deprecated": (
        "nonstationary",
        (
            r"\bdeprecated\b",
            r"\bremoved\b",
            r"\bno longer (?:available|exists|supported|accepted)\b",
            r"\b410\b",
            r"\bgone\b",
        ),
    ),
    "parameter changed": (
        "nonstationary",
        (
            r"\brenamed\b",
            r"\bnow (?:named|called)\b",
            r"\bnew (?:parameter )?name\b",
            r"\b(?:newly )?required parameter\b",
            r"\bmissing (?:required )?(?:parameter|argument)\b",
            r"\bunknown (?:parameter|argument)\b",
            r"\b(?:api|interface|schema|signature) (?:has )?changed\b",
            r"\bchanged (?:its |the )?(?:api|interface|schema|signature)\b",
        ),
    ),
}
"""Error-type label -> (its class, the patterns that name it), in tie-break order."""

ERROR_TYPE_OF: dict[str, str] = {
    "http_404": "not found",
    "http_401": "unauthorized",
    "http_403": "unauthorized",
    "http_429": "rate limit",
    "http_500": "server error",
    "http_503": "server error",
    "timeout": "timeout",
    "empty_result": "empty result",
    "malformed_body": "malformed",
    "implausible_value": "implausible value",
    "wrong_type": "wrong type",
    "plausible_wrong": "wrong value",
    "tool_deprecated": "deprecated",
    "param_renamed": "parameter changed",
    "param_required": "parameter changed",
    "transient_timeout": "timeout",
    "transient_rate_limit": "rate limit",
    "transient_auth_error": "unauthorized",
    "transient_server_error": "server error",
    "transient_malformed_response": "malformed",
    "transient_schema_drift": "schema mismatch",
    "stale_resource": "stale",
    "prerequisite": "unauthorized",
    "prerequisite_error": "unauthorized",
    "param_type_mismatch": "wrong type",
}
"""The error type each known fault type is (``core.KNOWN_FAULT_TYPES``; a test keeps them equal)."""

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
    r"\bstatus code\b",
    r"\bcorrupt",
    r"\banomal",
)

_TYPE_RE = {label: re.compile("|".join(p), re.IGNORECASE) for label, (_, p) in ERROR_TYPES.items()}
_ACK_RE = re.compile("|".join(ACKNOWLEDGE_PATTERNS), re.IGNORECASE)


def diagnose_type(text: str) -> Diagnosis:
    """The error type ``text`` names first, ``"unspecified"``, or ``None`` (see the module rules)."""
    best: tuple[int, str] | None = None
    for label, rx in _TYPE_RE.items():
        m = rx.search(text)
        if m is not None and (best is None or m.start() < best[0]):
            best = (m.start(), label)
    if best is not None:
        return best[1]
    return "unspecified" if _ACK_RE.search(text) else None


def class_of(diagnosis: Diagnosis) -> FaultClass | None:
    """The class of an error-type label (``None`` for ``unspecified`` / no diagnosis)."""
    found = ERROR_TYPES.get(diagnosis or "")
    return found[0] if found else None


def diagnose(text: str) -> FaultClass | Literal["unspecified"] | None:
    """The error *class* ``text`` names first (the class of ``diagnose_type``'s label)."""
    label = diagnose_type(text)
    return class_of(label) or (None if label is None else "unspecified")


def names_fault(diagnosis: Diagnosis, fault_type: str, fault_class: FaultClass) -> bool:
    """Whether ``diagnosis`` names this fault's error type (a custom type: any type of its class)."""
    label = ERROR_TYPE_OF.get(fault_type)
    if label is not None:
        return diagnosis == label
    return class_of(diagnosis) == fault_class
