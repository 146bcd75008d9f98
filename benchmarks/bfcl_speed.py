"""Side by side: upstream BFCL's evaluation of a whole result folder against robustcall's, same run.

Builds the folder of ``bfcl_folder.py`` (every category robustcall scores, from the wheel's ground
truth, right and wrong answers), then, after one untimed warm-up round (it byte-compiles what an
installed package has compiled already, and fills robustcall's caches of what it derives from the
wheel: its unpacked code, its samples, BFCL's multi-turn ground-truth replays; ``--cold`` empties
them before every round, as on the first run after installing), runs in rounds (``--repeat``,
default 3)

- upstream: ``benchmarks/bfcl_evaluate.py`` in the oracle venv (BFCL's own ``evaluate_task`` per
  file and its CSVs: what ``bfcl evaluate`` does, minus its vendor-SDK imports),
- robustcall, ``bfcl evaluate``'s job: ``robustcall import bfcl RESULT --bfcl-out DIR`` (score the
  folder, write BFCL's score folder, no run kept),
- robustcall, with a run: ``import bfcl RESULT --out RUN --bfcl-out DIR`` (also the run's 22 MB
  predictions, scores and summary), and
- robustcall, three commands (``--three``): ``import bfcl``, ``score``, ``export bfcl-scores``,

each as fresh processes, timing wall clock end to end (start-up included on both sides) and the
CPU time of the processes (user + system, children included, from ``getrusage``: what the machine's
load does not inflate). ``PYTHONDONTWRITEBYTECODE`` is dropped from the commands' environment, as
on a user's machine. After the last round it diffs the score folders (``bfcl_evaluate.py --ours``:
every score file's summary line and wrong entries' error types, every CSV cell but cost, latency and
links), checks that the other robustcall folders are byte-identical to it, and prints the medians
and the ratios. Run with robustcall's python:

  python benchmarks/bfcl_speed.py --venv /tmp/bfcl_oracle_venv [--repeat 3] [--three] [--cold]
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
    ap.add_argument("--cold", action="store_true", help="empty the caches of what is derived from the wheel each round")
    args = ap.parse_args()
    from robustcall.core import cache_dir
    from robustcall.sources import bfcl_code_root, fetch_bfcl

    work = Path(tempfile.mkdtemp(prefix="bfcl-speed-"))
    wheel = fetch_bfcl(quiet=True)
    counts = bfcl_folder.build(str(wheel), work / "result")
    print(f"folder: {sum(counts.values())} entries in {len(counts)} files ({len(counts)} categories)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["OPENAI_API_KEY"] = "unused"
    rc = [sys.executable, "-m", "robustcall.cli.main"]
    result = str(work / "result" / MODEL)
    upstream_cmd = [str(args.venv / "bin" / "python"), str(HERE / "bfcl_evaluate.py"), str(work / "result"), MODEL,
                    "fc", "--score-dir", str(work / "upstream")]  # fmt: skip
    commands = {
        "evaluate": [[*rc, "import", "bfcl", result, "--bfcl-out", str(work / "ours")]],
        "with-run": [[*rc, "import", "bfcl", result, "--out", str(work / "run"), "--bfcl-out", str(work / "ours1")]],
    }
    if args.three:
        commands["three"] = [
            [*rc, "import", "bfcl", result, "--out", str(work / "run3")],
            [*rc, "score", str(work / "run3"), "--bootstrap", "0"],
            [*rc, "export", "bfcl-scores", str(work / "run3"), "--out", str(work / "ours3")],
        ]
    times: dict[str, list[tuple[float, float]]] = {"upstream": [], **{name: [] for name in commands}}
    for n in range(args.repeat + 1):  # round 0: the warm-up, not timed
        for path in ("run", "ours", "ours1", "run3", "ours3", "upstream"):
            shutil.rmtree(work / path, ignore_errors=True)
        if args.cold:  # as on the first run after installing: nothing derived from the wheel kept
            for kept in (cache_dir("bfcl-truth"), cache_dir("bfcl-samples"), bfcl_code_root(wheel)):
                shutil.rmtree(kept, ignore_errors=True)
        last = n == args.repeat
        for name, steps in commands.items():
            runs = [_run(step, env) for step in steps]
            if n:
                times[name].append((sum(r[0] for r in runs), sum(r[1] for r in runs)))
        cmd = upstream_cmd + (["--ours", str(work / "ours"), "--compare", str(work / "run")] if last else [])
        wall, cpu, out = _run(cmd, env)
        if not n:
            continue
        times["upstream"].append((wall, cpu))
        line = ", ".join(f"{k} {v[-1][0]:.2f} s ({v[-1][1]:.2f} s CPU)" for k, v in times.items() if v)
        print(f"round {n}: {line}")
        if last:
            print(out.strip())
            for other in ("ours1", "ours3"):
                if (work / other).exists() and not _same_tree(work / "ours", work / other):
                    raise SystemExit(f"the score folder of {other} differs from `import bfcl --bfcl-out`'s")
            print("score folders of every robustcall command byte-identical")
    up_wall = statistics.median(w for w, _ in times["upstream"])
    up_cpu = statistics.median(c for _, c in times["upstream"])
    for name in commands:
        wall = statistics.median(w for w, _ in times[name])
        cpu = statistics.median(c for _, c in times[name])
        print(
            f"median: upstream {up_wall:.2f} s ({up_cpu:.2f} s CPU), {name} {wall:.2f} s ({cpu:.2f} s CPU): "
            f"{name} {up_wall / wall:.2f}x upstream's speed by wall clock, {up_cpu / cpu:.2f}x by CPU time"
        )


if __name__ == "__main__":
    main()
