"""Upstream BFCL's verdicts on function-calling result files, as `bfcl evaluate` gives them.

BFCL's FC handlers are offered tool names with "." replaced by "_" and answer with those names; its
AST checker (`convert_func_name`) turns the gold names the same way when the model's config says
`underscore_to_dot`. This script asks that checker, with the flag on as for `gpt-4o-2024-11-20-FC`,
for its verdict on each FC answer of the oracle rows, so tests can hold robustcall's import to them.

Run with the python of ../shared/tools/bfcl_oracle/setup.sh's venv:
  VENV/bin/python benchmarks/bfcl_fc_oracle.py tests/score/data/bfcl_oracle_verdicts.jsonl \
    tests/score/data/bfcl_fc_oracle_verdicts.jsonl
Each input row's text output is decoded by BFCL's own prompt decoder; its calls, names underscored,
are the FC answer. Output lines: {"id", "category", "result" (as an FC handler writes it), "upstream_valid"}.
"""

import atexit
import json
import os
import re
import shutil
import sys
import tempfile
import types
from collections import defaultdict
from pathlib import Path

if "BFCL_PROJECT_ROOT" not in os.environ:  # BFCL writes its score and result folders there: ours, removed at exit
    os.environ["BFCL_PROJECT_ROOT"] = tempfile.mkdtemp(prefix="bfcl-root-")
    atexit.register(shutil.rmtree, os.environ["BFCL_PROJECT_ROOT"], True)
stub = types.ModuleType("bfcl_eval.constants.model_config")


class _FcConfig:  # gpt-4o-2024-11-20-FC's flag in BFCL's model list
    underscore_to_dot = True


stub.MODEL_CONFIG_MAPPING = defaultdict(_FcConfig)  # type: ignore[attr-defined]
sys.modules[stub.__name__] = stub

import importlib.resources as res  # noqa: E402

from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.model_handler.utils import default_decode_ast_prompting  # noqa: E402

DATA = res.files("bfcl_eval") / "data"


def load(cat: str) -> tuple[dict, dict]:
    q = {json.loads(x)["id"]: json.loads(x) for x in (DATA / f"BFCL_v4_{cat}.json").read_text().splitlines()}
    pa = {}
    p = DATA / "possible_answer" / f"BFCL_v4_{cat}.json"
    for line in p.read_text().splitlines():
        r = json.loads(line)
        pa[r["id"]] = r["ground_truth"]
    return q, pa


def main(src: str, dst: str) -> None:
    cache: dict[str, tuple[dict, dict]] = {}
    with open(dst, "w") as out:
        for line in Path(src).read_text().splitlines():
            row = json.loads(line)
            cat = row["category"]
            if "irrelevance" in cat:
                continue
            try:
                decoded = default_decode_ast_prompting(row["output"])
            except Exception:
                continue
            if not decoded or not any("." in name for call in decoded for name in call):
                continue  # only answers that name a dotted function tell FC files apart
            fc = [{re.sub(r"\.", "_", name): args for name, args in call.items()} for call in decoded]
            q, pa = cache.setdefault(cat, load(cat))
            r = ast_checker(q[row["id"]]["function"], fc, pa[row["id"]], Language.PYTHON, cat, "gpt-4o-2024-11-20-FC")
            result = [{name: json.dumps(args) for name, args in call.items()} for call in fc]
            out.write(json.dumps({"id": row["id"], "category": cat, "result": result,
                                  "upstream_valid": bool(r["valid"])}) + "\n")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
