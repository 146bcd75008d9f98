"""Upstream BFCL's verdicts on Java and JavaScript answers made from the ground truth, and mutations.

Per ``simple_java`` / ``simple_javascript`` entry: the first acceptable value of each parameter
written as source text (a name bare, other strings quoted, lists and dicts in the language's
syntax), in the prompting shape (``[f(a=1, b="x")]``) and the function-calling one (``{name: JSON
arguments}``, each value the source text as a string); then mutations: a wrong value, a missing
parameter, an extra parameter, a wrong function name, and (FC only) typed JSON values instead of
source text. Each answer is judged by BFCL's own ``_evaluate_single_ast_entry`` (its tree-sitter
decoders, type converters and AST checker) with its OpenAI-compatible handler. Run in the oracle
venv (../shared/tools/bfcl_oracle/setup.sh, plus ``pip install openai tqdm python-dotenv overrides
numpy pandas tabulate``):

  OPENAI_API_KEY=unused VENV/bin/python benchmarks/bfcl_lang_oracle.py OUT.jsonl

Writes per answer ``{"id", "kind", "shape", "result", "valid", "error_type"}``.
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
from typing import Any

CATEGORIES = ("simple_java", "simple_javascript")
_NAME = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")


def source(value: Any, java: bool) -> str:
    """A gold value as the language's source text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value if _NAME.match(value) else json.dumps(value)
    if isinstance(value, list):
        items = ", ".join(source(v, java) for v in value)
        return f"new ArrayList<>(Arrays.asList({items}))" if java else f"[{items}]"
    if isinstance(value, dict):
        pairs = [(k, source(v[0] if isinstance(v, list) and v else v, java)) for k, v in value.items()]
        if java:
            return "new HashMap<>() {{ " + " ".join(f'put("{k}", {v});' for k, v in pairs) + " }}"
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return json.dumps(value)


def first(options: Any) -> Any:
    if isinstance(options, list):
        return next((o for o in options if o != ""), None)
    return options


def answers(name: str, gold: dict[str, Any], java: bool) -> list[tuple[str, str, Any]]:
    """(kind, shape, result) per answer."""
    args = {k: first(v) for k, v in gold.items() if first(v) is not None}
    text = {k: source(v, java) for k, v in args.items()}
    variants: dict[str, tuple[str, dict[str, str], dict[str, Any]]] = {"gold": (name, text, args)}
    if text:
        key = next(iter(text))
        value = args[key]
        wrong = (not value if isinstance(value, bool) else value + 1 if isinstance(value, (int, float))
                 else value + "X" if isinstance(value, str) else value)  # fmt: skip
        variants["wrong_value"] = (name, {**text, key: source(wrong, java)}, {**args, key: wrong})
        variants["missing_param"] = (name, {k: v for k, v in text.items() if k != key},
                                     {k: v for k, v in args.items() if k != key})  # fmt: skip
    variants["extra_param"] = (name, {**text, "extraParam": "1"}, {**args, "extraParam": 1})
    variants["wrong_name"] = (name + "X", text, args)
    out: list[tuple[str, str, Any]] = []
    for kind, (fn, src, typed) in variants.items():
        out.append((kind, "text", "[" + fn + "(" + ", ".join(f"{k}={v}" for k, v in src.items()) + ")]"))
        out.append((kind, "fc", [{fn.replace(".", "_"): json.dumps(src)}]))
        if kind == "gold":
            out.append(("typed_json", "fc", [{fn.replace(".", "_"): json.dumps(typed)}]))
    return out


def main() -> None:
    dst = sys.argv[1]
    if "BFCL_PROJECT_ROOT" not in os.environ:  # BFCL writes its score and result folders there: ours, removed at exit
        os.environ["BFCL_PROJECT_ROOT"] = tempfile.mkdtemp(prefix="bfcl-root-")
        atexit.register(shutil.rmtree, os.environ["BFCL_PROJECT_ROOT"], True)
    from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler

    class Config:
        model_name = "oracle"
        model_handler = OpenAICompletionsHandler
        is_fc_model = underscore_to_dot = True
        input_price = output_price = None
        is_oss = False

    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = defaultdict(Config)
    sys.modules[stub.__name__] = stub
    import importlib.resources as res

    from bfcl_eval.constants.enums import Language, ReturnFormat
    from bfcl_eval.eval_checker import eval_runner

    data = res.files("bfcl_eval") / "data"
    handlers = {
        "fc": OpenAICompletionsHandler(model_name="o", temperature=0, registry_name="o", is_fc_model=True),
        "text": OpenAICompletionsHandler(model_name="o", temperature=0, registry_name="o", is_fc_model=False),
    }
    with open(dst, "w", encoding="utf-8") as out:
        for cat in CATEGORIES:
            java = cat == "simple_java"
            language = Language.JAVA if java else Language.JAVASCRIPT
            fmt = ReturnFormat.JAVA if java else ReturnFormat.JAVASCRIPT
            prompts = [json.loads(x) for x in (data / f"BFCL_v4_{cat}.json").read_text().splitlines() if x.strip()]
            gts = [json.loads(x) for x in (data / "possible_answer" / f"BFCL_v4_{cat}.json").read_text().splitlines()]
            for prompt, gt in zip(prompts, gts, strict=True):
                ((name, gold),) = gt["ground_truth"][0].items()
                for kind, shape, result in answers(name, gold, java):
                    model = "oracle-FC" if shape == "fc" else "oracle"  # underscore_to_dot for the FC shape only
                    Config.underscore_to_dot = shape == "fc"
                    got = eval_runner._evaluate_single_ast_entry(
                        handlers[shape], prompt["id"], result, gt["ground_truth"], dict(prompt), model, cat,
                        language=language, return_format=fmt,
                    )  # fmt: skip
                    row = {"id": prompt["id"], "kind": kind, "shape": shape, "result": result,
                           "valid": bool(got["valid"]), "error_type": got.get("error_type")}  # fmt: skip
                    out.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
