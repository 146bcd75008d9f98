"""BFCL's agentic checker on a finished result entry (``memory_*``, ``web_search_*``), rule for rule
(``eval_runner._evaluate_single_agentic_entry`` and ``agentic_checker``, bfcl-eval 2026.3.23).

The entry's ``result`` must be a list of one element, the steps of the one turn
(``agentic:inference_error`` otherwise). Each step is decoded as the handler decodes it
(:mod:`._bfcl_decode`); the last step that does not decode to a call is the model's answer (none:
``agentic:no_last_message``). The answer is right when one of the possible answers, standardised
as upstream does (``,./-_*^()`` removed, lowercased, ``'`` -> ``"``; whitespace kept, whatever its
docstring says), appears in the standardised answer between word boundaries
(``agentic:answer_not_found`` otherwise).
"""

from __future__ import annotations

import json
import re
from typing import Any

from robustcall.core import Sample
from robustcall.score._bfcl_decode import NotCalls, decode_fc, decode_prompting

ANSWERS_KEY = "bfcl_answers"
"""``source.extra`` key of an imported agentic sample: BFCL's possible answers (strings)."""

_PUNCTUATION = re.compile(r"[\,\.\/\-\_\*\^\(\)]")


def standardize_answer(text: str) -> str:
    """Upstream's ``agentic_checker.standardize_string`` (it keeps whitespace, unlike the AST checker's)."""
    return _PUNCTUATION.sub("", text).lower().replace("'", '"')


def check_agentic(result: Any, answers: list[str], fc: bool) -> str | None:
    """``None`` when BFCL's agentic checker passes the entry's ``result``, else its ``error_type``."""
    if type(result) is not list or len(result) != 1:
        return "agentic:inference_error"
    decode = decode_fc if fc else decode_prompting
    last: Any = None
    steps = result[0]
    for step in steps if isinstance(steps, (list, str, dict)) else []:
        try:
            calls = decode(step)
        except NotCalls:
            last = step
            continue
        if not calls or calls == [""]:
            last = step
    if not last:  # upstream tests truthiness: an empty text is no answer either
        return "agentic:no_last_message"
    response = last[0] if type(last) is list else last
    response = response if type(response) is str else str(response)
    std = standardize_answer(response)
    for answer in answers:
        if contains_word(std, standardize_answer(answer)):
            return None
    return "agentic:answer_not_found"


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # what ``\w`` matches in a ``str`` pattern


def contains_word(text: str, needle: str) -> bool:
    """``re.search(rf"\b{re.escape(needle)}\b", text)``, upstream's test, without compiling a pattern
    per possible answer (a few hundred per folder): an occurrence of ``needle`` with a word
    boundary (a word character on one side only) at both of its ends."""
    if not needle:  # ``\b\b``: any boundary at all
        return any(map(_is_word, text))
    first, last = _is_word(needle[0]), _is_word(needle[-1])
    at = text.find(needle)
    while at >= 0:
        end = at + len(needle)
        before = at > 0 and _is_word(text[at - 1])
        after = end < len(text) and _is_word(text[end])
        if before != first and after != last:
            return True
        at = text.find(needle, at + 1)
    return False


def judge_agentic(sample: Sample, raw: str, fc: bool) -> str | None:
    """The verdict on an imported agentic record: ``raw`` is the entry's ``result`` as JSON."""
    try:
        result = json.loads(raw)
    except json.JSONDecodeError:
        result = raw
    answers = [str(a) for a in sample.source.extra.get(ANSWERS_KEY, [])]
    return check_agentic(result, answers, fc)
