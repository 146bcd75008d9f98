"""``robustcall audit``: automatic checks of a built benchmark, and the Appendix H judge.

Automatic checks (always): per LLM-generated type, each perturbed text is non-empty and differs
from the clean text, every golden value present in the clean text survives, and every golden
tool name is among the sample's tools. The judge (with an endpoint) scores n random (clean,
perturbed) pairs per type on the 1-5 semantic-equivalence scale of Appendix H; the report has
Table 6's mean / median / std / fraction <= 2.
"""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from robustcall.core import Sample, read_jsonl
from robustcall.perturb._protect import golden_strings

AUDITED = {
    "realistic_typos": "Typo",
    "query_paraphrase": "QueryPara",
    "paraphrase_tool_description": "ToolPara",
    "paraphrase_parameter_description": "ParamPara",
}

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
    m = re.search(r"[1-5]", text)
    return int(m.group()) if m else None


def audit(
    bench: Path, *, judge: Callable[[str], str] | None = None, n: int = 50, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Per audited type: automatic-check failures and, with a judge, Table 6's statistics."""
    clean = {s.id: s for s in read_jsonl(bench / "clean.jsonl", Sample)}
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
            for c, p in picked:
                before, after = _texts(c, p, code)
                prompt = JUDGE_PROMPT.replace("[clean]", before).replace("[perturbed]", after)
                if (score := parse_score(judge(prompt))) is not None:
                    scores.append(score)
            row.update(
                n=len(scores),
                unparseable=len(picked) - len(scores),
                mean=statistics.fmean(scores) if scores else None,
                median=statistics.median(scores) if scores else None,
                std=statistics.pstdev(scores) if scores else None,
                frac_le_2=sum(s <= 2 for s in scores) / len(scores) if scores else None,
            )
        report[code] = row
    return report
