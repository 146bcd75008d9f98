"""Upstream BFCL's verdicts on memory and web-search result entries made from the ground truth.

Per entry of ``memory_kv`` / ``memory_vector`` / ``memory_rec_sum`` / ``web_search_base`` /
``web_search_no_snippet`` (ids as BFCL's result files spell them), answers in the function-calling
and prompting shapes: ``right`` (a call, then the answer in a sentence), ``wrong`` (another answer),
``calls_only`` (no text step), ``answer_then_call`` (the answer, then a call: the answer is still
the last text), ``punctuated`` (the answer with its punctuation and case changed), ``not_one_turn``
(two turns). Each is judged by BFCL's own ``_evaluate_single_agentic_entry``. ``answers()`` is
standard library only (the tests rebuild the answers with it); ``main`` runs in the oracle venv:

  OPENAI_API_KEY=unused VENV/bin/python benchmarks/bfcl_agentic_oracle.py WHEEL OUT.jsonl
"""

import json
import sys
import zipfile
from typing import Any

CATEGORIES = ("memory_kv", "memory_vector", "memory_rec_sum", "web_search_base", "web_search_no_snippet")


def entries(wheel: str) -> list[tuple[str, str, list[str]]]:
    """(category, result id, possible answers) per entry."""
    out = []
    with zipfile.ZipFile(wheel) as zf:
        for base in ("memory", "web_search"):
            text = zf.read(f"bfcl_eval/data/possible_answer/BFCL_v4_{base}.json").decode("utf-8")
            truth = [json.loads(x) for x in text.splitlines() if x.strip()]
            for category in CATEGORIES:
                if category.startswith(base):
                    out += [(category, t["id"].replace(base, category, 1), t["ground_truth"]) for t in truth]
    return out


def answers(gold: list[str], shape: str) -> dict[str, Any]:
    """Per kind, the entry's ``result``."""
    call: Any = [{"search": json.dumps({"q": "x"})}] if shape == "fc" else "[search(q='x')]"
    right = f"The answer is {gold[0]}."
    return {
        "right": [[call, right]],
        "wrong": [[call, "The answer is Zyxwvut."]],
        "calls_only": [[call, call]],
        "answer_then_call": [[right, call]],
        "punctuated": [[call, "ANSWER: " + gold[0].upper().replace(" ", " - ") + "!"]],
        "not_one_turn": [[call], [right]],
    }


def main() -> None:
    import atexit
    import os
    import shutil
    import tempfile
    import types
    from collections import defaultdict

    wheel, dst = sys.argv[1], sys.argv[2]
    if "BFCL_PROJECT_ROOT" not in os.environ:  # BFCL writes its score and result folders there: ours, removed at exit
        os.environ["BFCL_PROJECT_ROOT"] = tempfile.mkdtemp(prefix="bfcl-root-")
        atexit.register(shutil.rmtree, os.environ["BFCL_PROJECT_ROOT"], True)
    from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler

    class Config:
        model_name = "oracle"
        model_handler = OpenAICompletionsHandler
        is_fc_model = underscore_to_dot = False
        input_price = output_price = None
        is_oss = False

    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = defaultdict(Config)
    sys.modules[stub.__name__] = stub
    from bfcl_eval.eval_checker import eval_runner

    handlers = {
        "fc": OpenAICompletionsHandler(model_name="o", temperature=0, registry_name="o", is_fc_model=True),
        "text": OpenAICompletionsHandler(model_name="o", temperature=0, registry_name="o", is_fc_model=False),
    }
    with open(dst, "w", encoding="utf-8") as out:
        for category, bfcl_id, gold in entries(wheel):
            for shape in ("fc", "text"):
                for kind, result in answers(gold, shape).items():
                    got = eval_runner._evaluate_single_agentic_entry(
                        handlers[shape], bfcl_id, result, gold, {"id": bfcl_id, "question": []}, "oracle", category
                    )
                    err = None if got["valid"] else got["error"]["error_type"]
                    out.write(json.dumps({"id": bfcl_id, "kind": kind, "shape": shape, "error_type": err}) + "\n")


if __name__ == "__main__":
    main()
