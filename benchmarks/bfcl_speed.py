"""Side by side: upstream BFCL's evaluation of a whole result folder against robustcall's, same run.

Builds the folder of ``bfcl_folder.py`` (every category robustcall scores, from the wheel's ground
truth, right and wrong answers), then in rounds (``--repeat``, default 3) runs

- upstream: ``benchmarks/bfcl_evaluate.py`` in the oracle venv (BFCL's own ``evaluate_task`` per
  file and its CSVs: what ``bfcl evaluate`` does, minus its vendor-SDK imports),
- robustcall, one command: ``robustcall import bfcl RESULT --out RUN --bfcl-out DIR`` (import,
  score and BFCL's score files in one process), and
- robustcall, three commands (``--three``): ``import bfcl``, ``score``, ``export bfcl-scores``,

each as fresh processes, timing wall clock end to end (start-up included on both sides) and the
CPU time of the process (user + system, from ``getrusage``: what the machine's load does not
inflate). After the last round it diffs the two score folders (``bfcl_evaluate.py --ours``: every
score file's summary line and wrong entries' error types, every CSV cell but cost, latency and
links), checks that the three-command folder is byte-identical to the one-command one, and prints
the medians and the ratios. Run with robustcall's python:

  python benchmarks/bfcl_speed.py --venv /tmp/bfcl_oracle_venv [--repeat 3] [--three]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
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


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the child) and stdout of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return took, cpu, proc.stdout


def _same_tree(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)[1:] != ([], []):
        return False
    return all(_same_tree(a / d, b / d) for d in cmp.common_dirs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--venv", type=Path, required=True, help="the oracle venv (../shared/tools/bfcl_oracle)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--three", action="store_true", help="also time import + score + export as three commands")
    args = ap.parse_args()
    from robustcall.sources import fetch_bfcl

    work = Path(tempfile.mkdtemp(prefix="bfcl-speed-"))
    counts = bfcl_folder.build(str(fetch_bfcl(quiet=True)), work / "result")
    print(f"folder: {sum(counts.values())} entries in {len(counts)} files ({len(counts)} categories)")
    env = dict(os.environ, OPENAI_API_KEY="unused")
    rc = [sys.executable, "-m", "robustcall.cli.main"]
    times: dict[str, list[tuple[float, float]]] = {"upstream": [], "robustcall": [], "three": []}
    for n in range(args.repeat):
        for path in ("run", "ours", "run3", "ours3", "upstream"):
            shutil.rmtree(work / path, ignore_errors=True)
        last = n == args.repeat - 1
        result = str(work / "result" / MODEL)
        wall, cpu, _ = _run(
            [*rc, "import", "bfcl", result, "--out", str(work / "run"), "--bfcl-out", str(work / "ours")], env
        )
        times["robustcall"].append((wall, cpu))
        if args.three:
            steps = [
                ["import", "bfcl", result, "--out", str(work / "run3")],
                ["score", str(work / "run3"), "--bootstrap", "0"],
                ["export", "bfcl-scores", str(work / "run3"), "--out", str(work / "ours3")],
            ]
            runs = [_run([*rc, *step], env) for step in steps]
            times["three"].append((sum(r[0] for r in runs), sum(r[1] for r in runs)))
            if last and not _same_tree(work / "ours", work / "ours3"):
                raise SystemExit("the one-command score folder differs from the three commands' one")
        cmd = [str(args.venv / "bin" / "python"), str(HERE / "bfcl_evaluate.py"), str(work / "result"), MODEL, "fc",
               "--score-dir", str(work / "upstream")]  # fmt: skip
        if last:
            cmd += ["--ours", str(work / "ours"), "--compare", str(work / "run")]
        wall, cpu, out = _run(cmd, env)
        times["upstream"].append((wall, cpu))
        line = ", ".join(f"{k} {v[-1][0]:.2f} s ({v[-1][1]:.2f} s CPU)" for k, v in times.items() if v)
        print(f"round {n + 1}: {line}")
        if last:
            print(out.strip())
            if args.three:
                print("three commands: score folder byte-identical to the one command's")
    up_wall = statistics.median(w for w, _ in times["upstream"])
    up_cpu = statistics.median(c for _, c in times["upstream"])
    for name in ("robustcall", "three"):
        if not times[name]:
            continue
        wall = statistics.median(w for w, _ in times[name])
        cpu = statistics.median(c for _, c in times[name])
        print(
            f"median: upstream {up_wall:.2f} s ({up_cpu:.2f} s CPU), {name} {wall:.2f} s ({cpu:.2f} s CPU): "
            f"{name} {up_wall / wall:.2f}x upstream's speed by wall clock, {up_cpu / cpu:.2f}x by CPU time"
        )


if __name__ == "__main__":
    main()
