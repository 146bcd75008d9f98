"""BFCL's agentic checker (memory, web search) on finished result entries: every verdict and
``error_type`` equals upstream's. The answers are rebuilt from the wheel's ground truth by
``benchmarks/bfcl_agentic_oracle.py``; upstream's verdicts on a quarter of the entries (every
fourth id) are committed beside this file."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from robustcall.score._bfcl_agentic import check_agentic, standardize_answer
from robustcall.sources import fetch_bfcl

ROOT = Path(__file__).parents[2]
ORACLE = Path(__file__).parent / "data" / "bfcl_agentic_oracle_verdicts.jsonl"


def corpus_module() -> Any:
    spec = importlib.util.spec_from_file_location("bfcl_agentic_oracle", ROOT / "benchmarks" / "bfcl_agentic_oracle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_verdict_and_error_type_equals_upstreams() -> None:
    module = corpus_module()
    gold = {i: g for _, i, g in module.entries(str(fetch_bfcl(quiet=True)))}
    rows = [json.loads(x) for x in ORACLE.read_text().splitlines()]
    assert len(rows) == 2004 and {r["id"].rsplit("_", 1)[0].split("_")[0] for r in rows} == {"memory", "web"}
    differ = []
    for r in rows:
        result = module.answers(gold[r["id"]], r["shape"])[r["kind"]]
        got = check_agentic(result, gold[r["id"]], r["shape"] == "fc")
        if got != r["error_type"]:
            differ.append((r["id"], r["kind"], r["shape"], got, r["error_type"]))
    assert differ == []


def test_answers_are_standardised_as_upstream_does() -> None:
    assert standardize_answer("Zhang Yi-ming (CEO), it's") == "zhang yiming ceo its".replace("its", 'it"s')
    assert check_agentic([["He is ZHANG YIMING."]], ["Zhang Yiming"], False) is None
    assert check_agentic([["Zhang Yimingson"]], ["Zhang Yiming"], False) == "agentic:answer_not_found"
    assert check_agentic([[""]], ["x"], False) == "agentic:no_last_message"


def test_contains_word_is_upstreams_regex_search() -> None:
    """``contains_word`` answers as upstream's ``re.search(rf"\\b{re.escape(answer)}\\b", text)`` on
    answers that start or end with a non-word character, repeat, sit at either end, are empty or
    are not ASCII."""
    import random
    import re

    from robustcall.score._bfcl_agentic import contains_word

    texts = ["", " ", "a", "ab ab", "$5 and 5$", "x$5", "cost: $5.", "naïve café", "二零二四年", "a_b a-b"]
    texts += ["ab_", "(ab)"]
    needles = ["", "a", "ab", "$5", "5$", "$", " ", "b ", "café", "二零", "_", "a_b", "ab)", "(ab"]
    rng = random.Random(7)
    alphabet = "ab_ $5-é二"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(400)]
    needles += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3))) for _ in range(60)]
    for text in texts:
        for needle in needles:
            want = re.search(rf"\b{re.escape(needle)}\b", text) is not None
            assert contains_word(text, needle) is want, (text, needle)
