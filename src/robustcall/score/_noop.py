"""The silent no-op verdict (Appendix N (2), beyond the paper).

Appendix N: a "tool returns success without changing state, leading to infinite loops" (the agent
"retries identically forever", "4+ identical clicks in a row"). The record's transcript holds the
golden calls, each answered ``{"status": "success", "result": null, "modified": 0}``, then the
neutral nudge. The failure is repeating without checking that the state changed, so the verdict is:

- **correct** when the agent verifies: its first call reads back the resource the no-op touched (a
  listed tool whose call is a read, ``core.is_read``, other than a call it already made, complete and
  addressing that resource: ``core.reads_back`` -- the same key arguments, or a tool whose description
  names the resource, never an empty call, a word shared by the tool names or a shared credential;
  ``GetUserToken {}`` after a no-op ``RegisterUser`` reads nothing of it), or it answers in words that
  report the no-op (``NOOP_REPORT``: "nothing changed", "modified 0", "did not take effect", ...);
- **wrong** when it repeats the no-op calls without verifying, declares the task done, or acts
  otherwise.
"""

from __future__ import annotations

import re

from robustcall.core import Sample, ToolCall, canonical_json, is_read, reads_back
from robustcall.score._rules import Judgement

NOOP_TYPE = "silent_noop"

NOOP_REPORT = re.compile(
    r"\bno-?op\b"
    r"|\bmodified\W{0,3}0\b"
    r"|\b(?:did not|didn't|does not|doesn't|has not|hasn't|was not|wasn't) (?:actually )?"
    r"(?:take effect|change|modify|update|apply|do anything|happen|persist)"
    r"|\bnothing (?:was |has been |actually )?(?:changed|modified|updated|applied|saved|happened)"
    r"|\bno (?:effect|change|changes|modification|modifications)\b"
    r"|\bwithout (?:any )?(?:effect|change)"
    r"|\b(?:state|data|record|value)s? (?:is |are |was |were |remains? |stayed? )?unchanged\b"
    r"|\b(?:returned|reported) (?:a )?success but\b",
    re.IGNORECASE,
)
"""Words that report the no-op (an answer without a call must say the action had no effect)."""


def _noop_calls(sample: Sample) -> list[ToolCall]:
    """The transcript's last calls: the ones that reported success and changed nothing."""
    for msg in reversed(sample.conversation):
        if msg.role == "assistant" and msg.tool_calls:
            return list(msg.tool_calls)
    return []


def judge_noop(sample: Sample, calls: list[ToolCall], text: str) -> Judgement:
    """The verdict on a silent-no-op record (see the module rules)."""
    if not calls:
        if NOOP_REPORT.search(text):
            return Judgement(True, 1.0, "reported the no-op")
        return Judgement(False, 0.0, "noop_unverified: answered without checking that the state changed")
    noop = _noop_calls(sample)
    made = {canonical_json([c.name, c.arguments]) for c in noop}
    listed = {t.name: t for t in sample.tools}
    first = calls[0]
    fresh = canonical_json([first.name, first.arguments]) not in made
    if fresh and is_read(first) and reads_back(first, listed.get(first.name), noop):
        return Judgement(True, 1.0, "read the state back")
    if all(canonical_json([c.name, c.arguments]) in made for c in calls):
        return Judgement(False, 0.0, "noop_repeated: repeated the no-op call without checking the state")
    return Judgement(False, 0.0, "noop_unverified: acted without checking that the state changed")
