"""Upstream BFCL's verdicts on a multi-turn corpus (bfcl_mt_corpus.py), entry by entry.

Runs BFCL's own ``_evaluate_single_multi_turn_entry`` (decode, execute, state and response checks)
with its OpenAI-compatible handler in function-calling or prompting mode, per the row's shape. Run
with the oracle venv's python (../shared/tools/bfcl_oracle/setup.sh, plus
``pip install openai tqdm python-dotenv overrides numpy pandas tabulate``):

  OPENAI_API_KEY=unused VENV/bin/python benchmarks/bfcl_mt_oracle.py CORPUS.jsonl OUT.jsonl

Writes per row ``{"n", "id", "variant", "shape", "valid", "error_type"}`` and prints the time taken.
"""

import atexit
import json
import os
import shutil
import sys
import tempfile
import time
import types
from collections import defaultdict


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
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
    import importlib.resources as res

    from bfcl_eval.eval_checker import eval_runner
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    data = res.files("bfcl_eval") / "data"
    prompts, truths = {}, {}
    handlers = {}
    for fc in (True, False):
        h = OpenAICompletionsHandler(model_name="oracle", temperature=0, registry_name="oracle", is_fc_model=fc)
        handlers["fc" if fc else "text"] = h
    with open(src, encoding="utf-8") as fh:
        rows = [json.loads(x) for x in fh if x.strip()]
    t0 = time.perf_counter()
    with open(dst, "w", encoding="utf-8") as out:
        for n, row in enumerate(rows):
            cat = row["category"]
            if cat not in prompts:
                prompts[cat] = {
                    json.loads(x)["id"]: json.loads(x)
                    for x in (data / f"BFCL_v4_{cat}.json").read_text().splitlines()
                    if x.strip()
                }
                truths[cat] = {
                    json.loads(x)["id"]: json.loads(x)["ground_truth"]
                    for x in (data / "possible_answer" / f"BFCL_v4_{cat}.json").read_text().splitlines()
                    if x.strip()
                }
            model = f"m{n}"
            got = eval_runner._evaluate_single_multi_turn_entry(
                handlers[row["shape"]],
                row["id"],
                row["result"],
                truths[cat][row["id"]],
                dict(prompts[cat][row["id"]]),
                model,
                cat,
            )
            for key in [k for k in vars(multi_turn_utils) if k.startswith(f"{model}_")]:
                delattr(multi_turn_utils, key)  # the instances BFCL keeps in its module globals
            err = None if got["valid"] else got["error"]["error_type"]
            out.write(
                json.dumps(
                    {
                        "n": n,
                        "id": row["id"],
                        "variant": row["variant"],
                        "shape": row["shape"],
                        "valid": bool(got["valid"]),
                        "error_type": err,
                    }
                )
                + "\n"
            )
    print(f"{len(rows)} verdicts in {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
