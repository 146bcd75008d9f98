"""Parse + score throughput on the BFCL oracle corpus, against upstream BFCL's checker in the same run.

For every corpus row (a BFCL id and a model output in BFCL's prompt format) we parse the text with
``parse_tool_calls(..., "bfcl")`` and score it with ``score_prediction`` (bfcl_ast), producing a
``Verdict``; upstream decodes the same text with its own decoder and runs its AST checker
(``../shared/tools/bfcl_oracle/oracle.py`` in its venv, which prints its verdicts/s). Both are
single-process. Also checks that every verdict agrees with upstream's.

Build the corpus and the venv first (docs/scoring.md):
    bash ../shared/tools/bfcl_oracle/setup.sh /tmp/bfcl_oracle_venv
    /tmp/bfcl_oracle_venv/bin/python ../shared/tools/bfcl_oracle/make_corpus.py /tmp/bfcl_corpus/corpus.jsonl

usage: python benchmarks/parse_score.py [--corpus PATH] [--oracle-python PATH] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from robustcall.core import Prediction, Sample, cache_dir
from robustcall.formats import parse_tool_calls
from robustcall.score import score_prediction
from robustcall.sources._bfcl import load_bfcl

ORACLE = Path(__file__).resolve().parents[2] / "shared" / "tools" / "bfcl_oracle" / "oracle.py"
WHEELS = [
    cache_dir("wheels") / "bfcl_eval-2026.3.23-py3-none-any.whl",
    Path("/tmp/dl/bfcl/bfcl_eval-2026.3.23-py3-none-any.whl"),
]


def ours(items: list[tuple[str, Sample]]) -> tuple[float, list[bool]]:
    t0 = time.perf_counter()
    out = []
    for text, sample in items:
        calls = parse_tool_calls(text, "bfcl", sample.tools).calls
        pred = Prediction(raw_output=text, tool_calls=calls)
        out.append(score_prediction(sample, pred).correct is True)
    return time.perf_counter() - t0, out


def upstream(python: str, corpus: Path) -> tuple[float, list[bool]]:
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "verdicts.jsonl"
        proc = subprocess.run([python, str(ORACLE), str(corpus), str(dst)], capture_output=True, text=True, check=True)
        m = re.search(r"= (\d+) verdicts/s", proc.stdout)
        if m is None:
            raise SystemExit(f"could not read the oracle's throughput from: {proc.stdout}{proc.stderr}")
        valid = [json.loads(line)["valid"] for line in dst.read_text().splitlines() if line.strip()]
    return float(m.group(1)), valid


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/bfcl_corpus/corpus.jsonl"))
    ap.add_argument("--oracle-python", default="/tmp/bfcl_oracle_venv/bin/python")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes of ours; the best is reported")
    args = ap.parse_args()
    wheel = next((w for w in WHEELS if w.is_file()), None)
    if wheel is None or not args.corpus.is_file():
        sys.exit("need the bfcl-eval wheel (robustcall data fetch bfcl) and the oracle corpus (see the docstring)")
    by_id = {s.source.original_id: s for s in load_bfcl(wheel).samples}
    rows = [json.loads(line) for line in args.corpus.read_text().splitlines() if line.strip()]
    items = [(r["output"], by_id[r["id"]]) for r in rows]
    best = min(ours(items)[0] for _ in range(args.repeat))
    _, mine = ours(items)
    theirs_rate, theirs = upstream(args.oracle_python, args.corpus)
    rate = len(items) / best
    agree = sum(a == b for a, b in zip(mine, theirs, strict=True))
    print(f"records: {len(items)}  agreement with upstream: {agree}/{len(items)}")
    print(f"upstream BFCL (decode + ast_checker): {theirs_rate:,.0f} verdicts/s")
    print(f"robustcall (parse_tool_calls + score_prediction): {rate:,.0f} verdicts/s")
    print(f"ratio: {rate / theirs_rate:.2f}x (goal >= 5x)")


if __name__ == "__main__":
    main()
