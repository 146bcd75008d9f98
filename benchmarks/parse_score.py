"""Parse + score throughput on the BFCL oracle corpus, against upstream BFCL's checker in the same run.

For every corpus row (a BFCL id and a model output in BFCL's prompt format) we parse the text and
score it (bfcl_ast); upstream decodes the same text with its own decoder and runs its AST checker
(``../shared/tools/bfcl_oracle/oracle.py`` in its venv, single process, which prints its verdicts/s).
Ours is timed three ways, each from text, on the same rows:

- ``per-record``: ``parse_tool_calls`` -> ``Prediction`` -> ``score_prediction`` -> ``Verdict``;
- ``batch``: ``score_texts(pairs, "bfcl")`` -> one ``Scored`` (correct, score, error mode, error
  type) per row, single process, and with ``--processes`` (default: the cores available) processes;
- ``batch+Verdict``: the single-process batch plus ``to_verdict`` on every row (pydantic records).

Each (upstream's too) is the median of ``--repeat`` rounds; a round runs upstream once, then each of
ours once, so that load from other work on the machine falls on both alike (and a full garbage
collection before each of ours, outside its timing, so that none inherits another's). Printed per path: the
ratio of the medians, the median of the per-round ratios, and the ratio of each side's fastest round
(load from other work only ever slows a round down). Also checks that every verdict agrees with
upstream's, record by record, and says which mypyc-compiled modules ran.

The mixed corpus: the same records written in every output style the parser accepts, each record's
decoded calls rendered by ``render_calls`` as ``<tool_call>`` JSON lines, ReAct steps and a JSON blob
(besides the BFCL text itself), and parsed + scored as a BFCL sample's answer (``score_texts(pairs,
"bfcl")``: the BFCL dispatch, then the BFCL rules), 1 process and ``--processes``: one batch per
style, and one that mixes them (record i in the i-th style, round robin). Upstream only reads BFCL
text, so its yardstick is its verdicts/s on the BFCL text of the same records.

Build the corpus and the venv first (docs/scoring.md):
    bash ../shared/tools/bfcl_oracle/setup.sh /tmp/bfcl_oracle_venv
    /tmp/bfcl_oracle_venv/bin/python ../shared/tools/bfcl_oracle/make_corpus.py /tmp/bfcl_corpus/corpus.jsonl

usage: python benchmarks/parse_score.py [--corpus PATH] [--oracle-python PATH] [--repeat 3] [--processes N]
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from robustcall._native import compiled_status
from robustcall.core import Prediction, Sample, ToolCall, cache_dir
from robustcall.formats import OutputFormat, parse_tool_calls, render_calls
from robustcall.score import default_processes, score_prediction, score_texts, to_verdict
from robustcall.sources._bfcl import load_bfcl

ORACLE = Path(__file__).resolve().parents[2] / "shared" / "tools" / "bfcl_oracle" / "oracle.py"
WHEELS = [
    cache_dir("wheels") / "bfcl_eval-2026.3.23-py3-none-any.whl",
    Path("/tmp/dl/bfcl/bfcl_eval-2026.3.23-py3-none-any.whl"),
]


def per_record(pairs: list[tuple[Sample, str]]) -> tuple[float, list[bool]]:
    t0 = time.perf_counter()
    out = []
    for sample, text in pairs:
        calls = parse_tool_calls(text, "bfcl", sample.tools).calls
        pred = Prediction(raw_output=text, tool_calls=calls)
        out.append(score_prediction(sample, pred).correct is True)
    return time.perf_counter() - t0, out


def batch(pairs: list[tuple[Sample, str]], processes: int) -> tuple[float, list[bool]]:
    t0 = time.perf_counter()
    scored = score_texts(pairs, "bfcl", processes=processes)
    return time.perf_counter() - t0, [s.correct for s in scored]


def batch_verdicts(pairs: list[tuple[Sample, str]]) -> tuple[float, list[bool]]:
    t0 = time.perf_counter()
    scored = score_texts(pairs, "bfcl")
    verdicts = [to_verdict(sample, s) for (sample, _), s in zip(pairs, scored, strict=True)]
    return time.perf_counter() - t0, [v.correct is True for v in verdicts]


def decoded_calls(row: dict[str, object]) -> list[ToolCall]:
    """The corpus row's decoded calls ``[{name: {param: value}}]`` as ``ToolCall``s."""
    decoded = row.get("decoded", [])
    if not isinstance(decoded, list):
        return []
    return [ToolCall(name=n, arguments=a) for d in decoded if isinstance(d, dict) for n, a in d.items()]


def upstream(python: str, corpus: Path, oracle: Path = ORACLE) -> tuple[float, list[bool]]:
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "verdicts.jsonl"
        proc = subprocess.run([python, str(oracle), str(corpus), str(dst)], capture_output=True, text=True, check=True)
        m = re.search(r"= (\d+) verdicts/s", proc.stdout)
        if m is None:
            raise SystemExit(f"could not read the oracle's throughput from: {proc.stdout}{proc.stderr}")
        valid = [json.loads(line)["valid"] for line in dst.read_text().splitlines() if line.strip()]
    return float(m.group(1)), valid


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/bfcl_corpus/corpus.jsonl"))
    ap.add_argument("--oracle-python", default="/tmp/bfcl_oracle_venv/bin/python")
    ap.add_argument("--oracle", type=Path, default=ORACLE, help="upstream's checker script (oracle.py)")
    ap.add_argument("--repeat", type=int, default=3, help="timed rounds (upstream, then each of ours once); medians")
    ap.add_argument("--processes", type=int, default=max(2, default_processes()), help="for the parallel batch")
    ap.add_argument("--styles", default="tool_call,react,json", help="mixed corpus: styles besides BFCL text")
    args = ap.parse_args()
    wheel = next((w for w in WHEELS if w.is_file()), None)
    if wheel is None or not args.corpus.is_file():
        sys.exit("need the bfcl-eval wheel (robustcall data fetch bfcl) and the oracle corpus (see the docstring)")
    by_id = {s.source.original_id: s for s in load_bfcl(wheel).samples}
    rows = [json.loads(line) for line in args.corpus.read_text().splitlines() if line.strip()]
    pairs = [(by_id[r["id"]], r["output"]) for r in rows]
    n = len(pairs)
    runs: dict[str, Callable[[], tuple[float, list[bool]]]] = {
        "per-record (parse_tool_calls + score_prediction -> Verdict)": lambda: per_record(pairs),
        "batch, 1 process (score_texts -> Scored)": lambda: batch(pairs, 1),
        "batch + to_verdict, 1 process (-> Verdict)": lambda: batch_verdicts(pairs),
        f"batch, {args.processes} processes (score_texts -> Scored)": lambda: batch(pairs, args.processes),
    }
    styles: list[OutputFormat] = [s for s in ("tool_call", "react", "json") if s in args.styles.split(",")]
    texts: dict[str, list[str]] = {"bfcl": [text for _, text in pairs]}
    for style in styles:
        texts[style] = [render_calls(decoded_calls(r), style) for r in rows]
        styled = [(sample, text) for (sample, _), text in zip(pairs, texts[style], strict=True)]
        runs[f"{style} text, batch, 1 process"] = lambda styled=styled: batch(styled, 1)
        runs[f"{style} text, batch, {args.processes} processes"] = lambda styled=styled: batch(styled, args.processes)
    if styles:  # record i in the i-th style, round robin: every style in one batch
        order = list(texts)
        mixed = [(sample, texts[order[i % len(order)]][i]) for i, (sample, _) in enumerate(pairs)]
        runs[f"mixed ({', '.join(order)}), batch, 1 process"] = lambda: batch(mixed, 1)
        runs[f"mixed ({', '.join(order)}), batch, {args.processes} processes"] = lambda: batch(mixed, args.processes)
    # interleaved: each round runs upstream once and each of ours once, so that a load that comes
    # and goes on a shared machine falls on both sides alike; medians over the rounds
    timings: dict[str, list[tuple[float, list[bool]]]] = {name: [] for name in runs}
    rates: list[float] = []
    for _ in range(args.repeat):
        rate, theirs = upstream(args.oracle_python, args.corpus, args.oracle)
        rates.append(rate)
        for name, fn in runs.items():
            gc.collect()  # each path starts from the same collector state (a full collection that
            timings[name].append(fn())  # falls inside one timing by chance walks every loaded sample)
    theirs_rate = statistics.median(rates)
    results = {name: (statistics.median(t for t, _ in got), got[-1][1]) for name, got in timings.items()}
    print(f"records: {n}  (cores available: {default_processes()})")
    print(f"mypyc-compiled modules: {compiled_status()}")
    print(f"upstream BFCL (decode + ast_checker, 1 process): {theirs_rate:,.0f} verdicts/s  (rounds: {rates})")
    for name, (dt, mine) in results.items():
        agree = sum(a == b for a, b in zip(mine, theirs, strict=True))
        rate = n / dt
        # the same round's upstream is the fairest yardstick while the machine's speed drifts
        per_round = statistics.median(n / t / r for (t, _), r in zip(timings[name], rates, strict=True))
        # each side's least disturbed round: what load from other work can only lower
        best = n / min(t for t, _ in timings[name]) / max(rates)
        print(
            f"{name}: {rate:,.0f} verdicts/s = {rate / theirs_rate:.2f}x upstream, "
            f"median of per-round ratios {per_round:.2f}x, best rounds {best:.2f}x  (agreement {agree}/{n})"
        )
    print("goal: >= 5x upstream")


if __name__ == "__main__":
    main()
