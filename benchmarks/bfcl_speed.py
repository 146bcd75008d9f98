"""Side by side: upstream BFCL's evaluation of a whole result folder against robustcall's, same run.

Builds the folder of ``bfcl_folder.py`` (every category robustcall scores, from the wheel's ground
truth, right and wrong answers), then in rounds (``--repeat``, default 3) runs

- upstream: ``benchmarks/bfcl_evaluate.py`` in the oracle venv (BFCL's own ``evaluate_task`` per
  file and its CSVs: what ``bfcl evaluate`` does, minus its vendor-SDK imports), and
- robustcall: ``robustcall import bfcl``, ``robustcall score``, ``robustcall export bfcl-scores``,

each as fresh processes, timing wall clock end to end (start-up included on both sides). After the
last round it diffs the two score folders (``bfcl_evaluate.py --ours``: every score file's summary
line and wrong entries' error types, every CSV cell but cost, latency and links) and prints the
medians and the ratio. Run with robustcall's python:

  python benchmarks/bfcl_speed.py --venv /tmp/bfcl_oracle_venv [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bfcl_folder  # noqa: E402

MODEL = bfcl_folder.MODEL


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return took, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--venv", type=Path, required=True, help="the oracle venv (../shared/tools/bfcl_oracle)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from robustcall.sources import fetch_bfcl

    work = Path(tempfile.mkdtemp(prefix="bfcl-speed-"))
    counts = bfcl_folder.build(str(fetch_bfcl(quiet=True)), work / "result")
    print(f"folder: {sum(counts.values())} entries in {len(counts)} files ({len(counts)} categories)")
    env = dict(os.environ, OPENAI_API_KEY="unused")
    rc = [sys.executable, "-m", "robustcall.cli.main"]
    upstream_s, ours_s = [], []
    for n in range(args.repeat):
        for path in ("run", "ours", "upstream"):
            shutil.rmtree(work / path, ignore_errors=True)
        last = n == args.repeat - 1
        took, _ = _run([*rc, "import", "bfcl", str(work / "result" / MODEL), "--out", str(work / "run")], env)
        t2, _ = _run([*rc, "score", str(work / "run"), "--bootstrap", "0"], env)
        t3, _ = _run([*rc, "export", "bfcl-scores", str(work / "run"), "--out", str(work / "ours")], env)
        ours_s.append(took + t2 + t3)
        cmd = [str(args.venv / "bin" / "python"), str(HERE / "bfcl_evaluate.py"), str(work / "result"), MODEL, "fc",
               "--score-dir", str(work / "upstream")]  # fmt: skip
        if last:
            cmd += ["--ours", str(work / "ours"), "--compare", str(work / "run")]
        took, out = _run(cmd, env)
        upstream_s.append(took)
        print(f"round {n + 1}: upstream {upstream_s[-1]:.2f} s, robustcall {ours_s[-1]:.2f} s")
        if last:
            print(out.strip())
    up, us = statistics.median(upstream_s), statistics.median(ours_s)
    print(f"median: upstream {up:.2f} s, robustcall {us:.2f} s: robustcall {up / us:.2f}x upstream's speed")


if __name__ == "__main__":
    main()
