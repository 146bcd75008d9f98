"""Harness throughput of two source trees, trial by trial in one run: did a change make the run loop slower?

Each trial runs ``harness_throughput.py``'s harness (``run_items`` against the fixed-latency mock,
checkpoint and progress callback included) once with tree A on ``PYTHONPATH`` and once with tree B,
in a fresh process each, alternating which goes first; the same mock server serves both. On a
shared machine single trials vary by 0.1 of ideal, so only the medians and bests of interleaved
trials compare.

usage: python benchmarks/ab_throughput.py OLD_SRC NEW_SRC [--conc 16,256] [--trials 6] [--latency 0.05]
   e.g. git archive main src | tar -x -C /tmp/old && python benchmarks/ab_throughput.py /tmp/old/src src
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHILD = """
import asyncio, sys, tempfile
from pathlib import Path
from harness_throughput import _harness
url, n, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with tempfile.TemporaryDirectory() as d:
    print(asyncio.run(_harness(url, n, c, Path(d) / "run")))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--conc", default="16,256")
    ap.add_argument("--trials", type=int, default=6)
    ap.add_argument("--latency", type=float, default=0.05)
    args = ap.parse_args()
    trees = {"A": str(Path(args.old).resolve()), "B": str(Path(args.new).resolve())}
    with tempfile.TemporaryDirectory() as tmp:
        portfile = Path(tmp) / "url"
        mock = [sys.executable, str(HERE / "fast_mock_openai.py"), str(portfile), str(args.latency), "3600"]
        server = subprocess.Popen(mock)
        try:
            while not (portfile.exists() and portfile.read_text()):
                time.sleep(0.05)
            url = portfile.read_text()
            print(f"A = {trees['A']}\nB = {trees['B']}")
            print(f"ratio = throughput / ideal (C/L), L = {args.latency * 1000:.0f} ms")
            for c in (int(x) for x in args.conc.split(",")):
                n = max(40, 32 * c)
                got: dict[str, list[float]] = {k: [] for k in trees}
                for t in range(args.trials):
                    for k in sorted(trees, reverse=t % 2 == 1):
                        env = {**os.environ, "PYTHONPATH": f"{trees[k]}{os.pathsep}{HERE}"}
                        cmd = [sys.executable, "-c", CHILD, url, str(n), str(c)]
                        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
                        got[k].append(float(out.stdout.split()[-1]) / (c / args.latency))
                for k, v in got.items():
                    trials = " ".join(f"{x:.2f}" for x in v)
                    print(f"C = {c:>4} {k}: median {statistics.median(v):.3f}, best {max(v):.3f} ({trials})")
        finally:
            server.kill()


if __name__ == "__main__":
    main()
