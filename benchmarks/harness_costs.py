"""What the run loop's per-record steps cost inside a C = 256 run, by paired ablation.

Each variant replaces one step with a constant (the record line, parsing, prompt rendering: the
first prompt is reused) and runs the whole harness against ``fast_mock_openai.py`` like
``harness_throughput.py`` does. Variants alternate trial by trial in one process, so that the host's
drifting CPU speed falls on all of them alike; the paired difference in client CPU per record is
the step's cost there (several times its cost in a hot microbenchmark: 256 interleaved records
keep the caches cold).

usage: python benchmarks/harness_costs.py [--pairs 6] [--conc 256] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import harness_throughput as ht

import robustcall.run._answer as answer_mod
import robustcall.run._engine as engine_mod
from robustcall.formats import ParseResult
from robustcall.models import make_model

REAL = {"line": engine_mod.prediction_line, "parse": answer_mod.parse_tool_calls, "render": answer_mod.render_messages}


def _use(variant: str) -> None:
    engine_mod.prediction_line = REAL["line"]
    answer_mod.parse_tool_calls = REAL["parse"]
    answer_mod.render_messages = REAL["render"]
    if variant == "no-record-line":
        engine_mod.prediction_line = lambda sample, pred, model: '{"x": 1}'
    elif variant == "no-parse":
        answer_mod.parse_tool_calls = lambda text, fmt, tools: ParseResult([], None, [])
    elif variant == "no-render":
        first: list[Any] = []

        def render(sample: Any, mode: Any) -> Any:
            if not first:
                first.append(REAL["render"](sample, mode))
            return first[0]

        answer_mod.render_messages = render


async def _trial(url: str, out: Path, conc: int, latency: float) -> tuple[float, float]:
    n = 32 * conc
    items = ht._samples(n)
    model = make_model(f"openai:mock@{url}", mode="prompt", concurrency=conc)
    try:
        c0, t0 = time.process_time(), time.perf_counter()
        await engine_mod.run_items(items, model, out, concurrency=conc, on_record=lambda _: None)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        await model.aclose()
    return n / wall / (conc / latency), cpu / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--conc", type=int, default=256)
    ap.add_argument("--latency", type=float, default=0.05)
    args = ap.parse_args()
    variants = ["full", "no-record-line", "no-parse", "no-render"]
    got: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
    with tempfile.TemporaryDirectory() as tmp:
        portfile = Path(tmp) / "url"
        server = subprocess.Popen([sys.executable, str(ht.MOCK), str(portfile), str(args.latency), "900"])
        try:
            while not (portfile.exists() and portfile.read_text()):
                time.sleep(0.05)
            url = portfile.read_text()
            asyncio.run(_trial(url, Path(tmp) / "warm-up", args.conc, args.latency))
            k = 0
            for p in range(args.pairs):
                for v in variants if p % 2 == 0 else variants[::-1]:
                    _use(v)
                    k += 1
                    got[v].append(asyncio.run(_trial(url, Path(tmp) / f"t{k}", args.conc, args.latency)))
        finally:
            _use("full")
            server.kill()
    print(f"C = {args.conc}, latency {args.latency * 1000:.0f} ms, {args.pairs} trials per variant")
    print(f"{'variant':>15} {'ratio (median)':>15} {'CPU µs/record':>14} {'paired diff µs':>16}")
    for v in variants:
        diffs = [x[1] - f[1] for x, f in zip(got[v], got["full"], strict=True)]
        err = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
        ratio = statistics.median(x[0] for x in got[v])
        cpu = statistics.mean(x[1] for x in got[v])
        print(f"{v:>15} {ratio:>15.2f} {cpu:>14.0f} {statistics.mean(diffs):>+10.0f} ± {err:>3.0f}")


if __name__ == "__main__":
    main()
