"""Peak memory of scoring a big run: ``score_run`` on N predictions (default 100,000), streamed vs loaded.

The run is made from the BFCL oracle corpus (model outputs of every kind for BFCL samples, see
``parse_score.py``): its rows, each under its own id, repeated until there are N, written as a run's
``predictions.jsonl`` (each record carries its sample, tools included, as ``robustcall run``
writes it). Each side scores it in a fresh child process and reports its peak RSS (``ru_maxrss``):

- ``streamed``: ``score_run`` (records read one at a time, only verdicts kept) + summary;
- ``loaded``: every record read into memory first (``read_checkpoint``), then scored, as
  ``score_run`` did before.

Goal: the streamed side under 500 MB at N = 100,000.

usage: python benchmarks/score_memory.py [--n 100000] [--corpus PATH] [--bootstrap 1000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import resource, sys, time
from pathlib import Path
from robustcall.core import PredictionRecord, read_checkpoint
from robustcall.metrics import summarize
from robustcall.score import score_run
from robustcall.score import score_records
run, side, resamples = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
if side == "streamed":
    verdicts, _ = score_run(run, resamples=resamples)
else:
    verdicts = score_records(read_checkpoint(run / "predictions.jsonl", PredictionRecord))
    summarize(verdicts, resamples=resamples)
dt = time.perf_counter() - t0
print(len(verdicts), dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def make_run(corpus: Path, n: int, run: Path) -> None:
    from robustcall.core import Prediction, cache_dir, prediction_line
    from robustcall.formats import parse_tool_calls
    from robustcall.sources._bfcl import load_bfcl

    wheel = cache_dir("wheels") / "bfcl_eval-2026.3.23-py3-none-any.whl"
    by_id = {s.source.original_id: s for s in load_bfcl(wheel).samples}
    rows = [json.loads(line) for line in corpus.read_text().splitlines() if line.strip()]
    run.mkdir(parents=True, exist_ok=True)
    with open(run / "predictions.jsonl", "w", encoding="utf-8") as out:
        for k in range(n):
            row = rows[k % len(rows)]
            sample = by_id[row["id"]]
            sample = sample.model_copy(update={"id": f"{sample.id}__r{k}"})  # one record per (id, type)
            calls = parse_tool_calls(row["output"], "bfcl", sample.tools).calls
            pred = Prediction(raw_output=row["output"], tool_calls=calls)
            out.write(prediction_line(sample, pred, "corpus") + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/bfcl_corpus/corpus.jsonl"))
    ap.add_argument("--bootstrap", type=int, default=1000, help="resamples of the summary")
    ap.add_argument("--sides", default="streamed,loaded")
    args = ap.parse_args()
    if not args.corpus.is_file():
        sys.exit("need the oracle corpus (see benchmarks/parse_score.py)")
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        t0 = time.perf_counter()
        make_run(args.corpus, args.n, run)
        size = (run / "predictions.jsonl").stat().st_size
        print(f"{args.n:,} predictions, {size / 1e6:.0f} MB on disk (made in {time.perf_counter() - t0:.0f} s)")
        for side in args.sides.split(","):
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, str(run), side, str(args.bootstrap)],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                sys.exit(f"{side}: the scoring child failed:\n{proc.stderr[-2000:]}")
            count, dt, rss_kb = proc.stdout.split()
            print(f"{side:>9}: {int(count):,} verdicts in {float(dt):.0f} s, peak RSS {int(rss_kb) / 1024:,.0f} MB")
    print(f"goal: streamed < 500 MB (this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
