"""``robustcall audit``: automatic checks of a built benchmark, and the Appendix H judge.

Automatic checks (always): per LLM-generated type, each perturbed text is non-empty and differs
from the clean text, every golden value present in the clean text survives, and every golden
tool name is among the sample's tools. The judge (with an endpoint) scores n random (clean,
perturbed) pairs per type on the 1-5 semantic-equivalence scale of Appendix H; the report has
Table 6's mean / median / std / fraction <= 2 over the answers that give a score in the asked
format, and counts (and shows the first few of) those that do not.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from robustcall.core import CLEAN_SAMPLES, DEFAULTS, TYPES, Sample, read_jsonl
from robustcall.perturb._protect import golden_strings

AUDITED = {
    code: TYPES[code].display
    for code in (
        "realistic_typos",
        "query_paraphrase",
        "paraphrase_tool_description",
        "paraphrase_parameter_description",
    )
}
"""The LLM-rewritten types Appendix H audits, with their display names."""

# The Appendix H scale, word for word; the instruction around it is ours (the paper gives no prompt).
JUDGE_SCALE = (
    "5 = identical intent and information; 4 = same intent, minor wording loss that would not change the "
    "correct tool call; 3 = same intent but a parameter or constraint became ambiguous; 2 = intent shifted, "
    "the GT tool call may no longer be unambiguous; 1 = intent broken."
)
JUDGE_PROMPT = (
    "Read a clean text and its perturbed version from a tool-use benchmark and score the perturbation on a "
    "1-5 semantic-equivalence scale: " + JUDGE_SCALE + "\n\nClean: [clean]\n\nPerturbed: [perturbed]\n\n"
    "Answer with the score as a single digit on the first line, then one sentence of justification."
)


def _texts(clean: Sample, pert: Sample, code: str) -> tuple[str, str]:
    if code in ("realistic_typos", "query_paraphrase"):
        return clean.conversation[clean.last_user_index()].content, pert.conversation[pert.last_user_index()].content
    if code == "paraphrase_tool_description":
        return "\n".join(t.description for t in clean.tools), "\n".join(t.description for t in pert.tools)

    def params(s: Sample) -> str:
        return "\n".join(
            str(p.get("description", "")) for t in s.tools for p in t.properties().values() if isinstance(p, dict)
        )

    return params(clean), params(pert)


def automatic_checks(clean: Sample, pert: Sample, code: str) -> list[str]:
    """What is wrong with one perturbed sample (empty list: nothing)."""
    before, after = _texts(clean, pert, code)
    problems = []
    if not after.strip():
        problems.append("empty perturbed text")
    if after == before:
        problems.append("unchanged text")
    lost = [v for v in golden_strings(clean) if v in before and v not in after]
    if lost:
        problems.append(f"golden values lost: {lost}")
    names = {t.name for t in pert.tools}
    missing = [g.name for g in pert.golden_answers if g.name not in names]
    if missing and pert.source.extra.get("golden_mode") != "any_name":
        problems.append(f"golden tools missing: {missing}")
    return problems


def parse_score(text: str) -> int | None:
    """The score of a judge's answer in the format ``JUDGE_PROMPT`` asks for: one digit 1-5 alone on
    the first non-empty line. Anything else (``ANSWER: 42``, ``Score: 4``, ``**4**``) is unparseable:
    ``None``, counted by ``audit``, never read as the first digit found."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return int(first) if len(first) == 1 and first in "12345" else None


def audit(
    bench: Path, *, judge: Callable[[str], str] | None = None, n: int = DEFAULTS.audit_pairs, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Per audited type: automatic-check failures and, with a judge, Table 6's statistics."""
    clean = {s.id: s for s in read_jsonl(bench / CLEAN_SAMPLES, Sample)}
    report: dict[str, dict[str, Any]] = {}
    for code, display in AUDITED.items():
        path = bench / f"{code}.jsonl"
        if not path.is_file():
            continue
        pairs = [(clean[s.id.removesuffix(f"__{code}")], s) for s in read_jsonl(path, Sample)]
        failures = {p.id: probs for c, p in pairs if (probs := automatic_checks(c, p, code))}
        row: dict[str, Any] = {"display": display, "samples": len(pairs), "check_failures": failures}
        if judge is not None and pairs:
            picked = random.Random(f"{seed}:{code}").sample(pairs, min(n, len(pairs)))
            scores = []
            unreadable: list[str] = []
            for c, p in picked:
                before, after = _texts(c, p, code)
                prompt = JUDGE_PROMPT.replace("[clean]", before).replace("[perturbed]", after)
                answer = judge(prompt)
                if (score := parse_score(answer)) is not None:
                    scores.append(score)
                else:
                    unreadable.append(answer)
            row.update(
                n=len(scores),
                unparseable=len(unreadable),
                unparseable_answers=[a[:200] for a in unreadable[:3]],
                mean=statistics.fmean(scores) if scores else None,
                median=statistics.median(scores) if scores else None,
                std=statistics.pstdev(scores) if scores else None,
                frac_le_2=sum(s <= 2 for s in scores) / len(scores) if scores else None,
            )
        report[code] = row
    return report
