"""Upstream BFCL's own `evaluate_task` on a result folder, and its agreement with `robustcall score`.

`bfcl evaluate` itself needs BFCL's full dependency set (every vendor SDK); this runs the same
`evaluate_task` (decoder, `ast_checker`, relevance runner) with one handler, BFCL's OpenAI-compatible
one, in the oracle venv of ../shared/tools/bfcl_oracle plus what that handler imports:

  bash ../shared/tools/bfcl_oracle/setup.sh /tmp/bfcl_oracle_venv
  /tmp/bfcl_oracle_venv/bin/pip install openai tqdm python-dotenv overrides numpy pandas tabulate
  OPENAI_API_KEY=unused /tmp/bfcl_oracle_venv/bin/python benchmarks/bfcl_evaluate.py \
      RESULT_DIR gpt-4o-2024-11-20-FC fc [--compare RUN_DIR]

RESULT_DIR holds RESULT_DIR/<model>/<group>/BFCL_v4_<category>_result.json (`robustcall export bfcl
--out RESULT_DIR`, or a `bfcl generate` folder); `fc` / `prompt` picks the handler's mode (`fc` also sets
`underscore_to_dot`, as gpt-4o-2024-11-20-FC's entry does). Only the categories robustcall scores are
evaluated. Prints upstream's correct count; with `--compare`, the ids on which upstream's verdict and
RUN_DIR/scores.jsonl (`robustcall score`) differ and the agreement k/n. No request is sent anywhere.
"""

import argparse
import atexit
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
import types
from collections import defaultdict
from pathlib import Path

SCORED = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
          "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance",
          "simple_java", "simple_javascript", "multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
          "multi_turn_long_context", "memory_kv", "memory_vector", "memory_rec_sum", "web_search_base",
          "web_search_no_snippet", "format_sensitivity")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("result_dir", type=Path)
    ap.add_argument("model")
    ap.add_argument("mode", choices=["fc", "prompt"])
    ap.add_argument("--compare", type=Path, help="a robustcall run directory with scores.jsonl")
    ap.add_argument("--score-dir", type=Path, help="keep BFCL's score folder here (score files and data_*.csv)")
    ap.add_argument("--ours", type=Path, help="`robustcall export bfcl-scores` folder to diff against BFCL's")
    args = ap.parse_args()
    if "BFCL_PROJECT_ROOT" not in os.environ:  # BFCL writes its score and result folders there: ours, removed at exit
        os.environ["BFCL_PROJECT_ROOT"] = tempfile.mkdtemp(prefix="bfcl-root-")
        atexit.register(shutil.rmtree, os.environ["BFCL_PROJECT_ROOT"], True)
    from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler

    class Config:  # the model's entry in BFCL's list, as far as evaluation reads it
        model_name = args.model
        model_handler = OpenAICompletionsHandler
        is_fc_model = underscore_to_dot = args.mode == "fc"
        input_price = output_price = None
        is_oss = False
        display_name = args.model
        url = org = license = "N/A"

    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = defaultdict(Config)  # the real list imports every vendor's SDK
    sys.modules[stub.__name__] = stub
    from bfcl_eval.eval_checker import eval_runner
    from bfcl_eval.utils import extract_test_category, load_file

    score_dir = args.score_dir or Path(tempfile.mkdtemp(prefix="bfcl-score-"))
    score_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    handler = eval_runner.get_handler(args.model)
    ids: list[str] = []
    table: dict = {}
    for path in sorted((args.result_dir / args.model).rglob("BFCL_v4_*_result.json")):
        category = extract_test_category(path)
        if category not in SCORED:
            continue
        results = load_file(path, sort_by_id=True)
        ids += [r["id"] for r in results]
        with contextlib.redirect_stdout(io.StringIO()):
            table = eval_runner.evaluate_task(
                category, args.result_dir, score_dir, results, args.model, handler, table, True
            )
    with contextlib.redirect_stdout(
        io.StringIO()
    ):  # as `bfcl evaluate`'s runner: the score files' headers, then the CSVs
        eval_runner.update_leaderboard_table_with_local_score_file(table, score_dir)
        eval_runner.generate_leaderboard_csv(table, score_dir)
    print(f"upstream evaluate_task: {len(ids)} entries in {time.perf_counter() - t0:.2f} s")
    wrong = set()
    for path in score_dir.rglob("*_score.json"):
        wrong |= {json.loads(x)["id"] for x in path.read_text().splitlines()[1:]}
    print(f"upstream: {len(ids) - len(wrong & set(ids))}/{len(ids)} correct")
    if args.ours is not None:
        diff_scores(score_dir, args.ours, args.model)
    if args.compare is not None:
        ours = {}
        for line in (args.compare / "scores.jsonl").read_text().splitlines():
            v = json.loads(line)
            ours[v["id"].split("__")[-1]] = v["correct"]
        differ = sorted(i for i in ids if ours.get(i) is not (i not in wrong))
        for i in differ:
            print(f"differs: {i} upstream={i not in wrong} robustcall={ours.get(i)}")
        print(f"agreement: {len(ids) - len(differ)}/{len(ids)}")


def _verdicts(path: Path) -> tuple[dict, list[tuple[str, str]]]:
    """A score file as (header, [(id, error_type)]): what `export bfcl-scores` writes of each line."""
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    wrong = [(x["id"], x.get("error_type") or x.get("error", {}).get("error_type")) for x in lines[1:]]
    return lines[0], wrong


def diff_scores(upstream: Path, ours: Path, model: str) -> None:
    """Per score file, BFCL's header and (id, error_type) of each wrong entry against ours; then the CSVs."""
    files = sorted((upstream / model).rglob("*_score.json"))
    same = 0
    for path in files:
        mine = ours / path.relative_to(upstream)
        if not mine.is_file():
            print(f"missing in ours: {mine}")
            continue
        if _verdicts(path) == _verdicts(mine):
            same += 1
        else:
            print(f"differs: {path.name}")
    print(f"score files agree: {same}/{len(files)}")
    for name in (
        "data_non_live.csv",
        "data_live.csv",
        "data_multi_turn.csv",
        "data_agentic.csv",
        "data_format_sensitivity.csv",
        "data_overall.csv",
    ):
        theirs = (upstream / name).read_text().splitlines()
        mine_rows = (ours / name).read_text().splitlines()
        cols = theirs[0].split(",")
        got = dict(zip(cols, mine_rows[1].split(","), strict=True))
        want = dict(zip(cols, theirs[1].split(","), strict=True))
        bad = [c for c in cols if c not in ("Model", "Model Link", "Organization", "License") and got[c] != want[c]
               and not c.startswith(("Total Cost", "Latency"))]  # fmt: skip
        print(
            f"{name}: {'agrees' if not bad else 'differs in ' + ', '.join(f'{c} ({got[c]} vs {want[c]})' for c in bad)}"
        )


if __name__ == "__main__":
    main()
