"""llama-server thread counts on the embedded model, side by side under whatever load the machine has.

One llama-server per thread count (same binary, model and template, one slot, prompt cache off so
that every request evaluates its whole prompt); the clean prompts of ``--samples`` BFCL samples go
to each server in turn, request by request, so that load that comes and goes falls on all alike.
Prints seconds, prompt and generation tokens/s per request, the totals, the 1-minute load average
before and after, and whether the texts are identical across thread counts (they should be: a
thread count changes how work is split, not the arithmetic).

usage: python benchmarks/local_threads.py [--threads 2,1] [--samples 3] [--bench DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import urllib.request
from pathlib import Path

from robustcall.core import cache_dir
from robustcall.formats import render_messages
from robustcall.models._convert import NameMap, openai_messages
from robustcall.models.local import TEMPLATE, LlamaServer, check
from robustcall.perturb import build_benchmark
from robustcall.run import plan_work


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="2,1")
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--bench", type=Path, default=None)
    args = ap.parse_args()
    bench = args.bench or cache_dir("bench") / "main_job_bfcl_seed0"
    if not (bench / "manifest.json").is_file():
        build_benchmark(sources=["bfcl"], data_dir=None, seed=0, out=bench)
    items = plan_work(bench, ["clean"], args.samples)
    status = check(None)
    counts = [int(t) for t in args.threads.split(",")]
    servers = [
        LlamaServer(
            status.paths.server,
            status.paths.gguf,
            chat_template=TEMPLATE,
            parallel=1,
            threads=n,
            log_dir=status.paths.logs,
        )
        for n in counts
    ]
    print(f"load average (1 min) before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    try:
        urls = [asyncio.run(s.start()) for s in servers]
        total = dict.fromkeys(counts, 0.0)
        texts: dict[int, list[str]] = {n: [] for n in counts}
        for it in items:
            body = {
                "model": "local",
                "messages": openai_messages(render_messages(it.sample, "prompt"), NameMap()),
                "temperature": 0,
                "max_tokens": 1024,
                "cache_prompt": False,
            }
            for n, url in zip(counts, urls, strict=True):
                req = urllib.request.Request(
                    url + "/v1/chat/completions",
                    data=json.dumps(body).encode(),
                    headers={"Content-Type": "application/json"},
                )
                t0 = time.perf_counter()
                with urllib.request.urlopen(req, timeout=1800) as resp:
                    got = json.loads(resp.read())
                dt = time.perf_counter() - t0
                total[n] += dt
                tm = got.get("timings", {})
                texts[n].append(got["choices"][0]["message"]["content"])
                print(
                    f"threads {n}: {dt:6.1f} s  prompt {tm.get('prompt_per_second', 0):5.1f} tok/s  "
                    f"generation {tm.get('predicted_per_second', 0):5.2f} tok/s ({tm.get('predicted_n')} tokens)",
                    flush=True,
                )
    finally:
        for s in servers:
            s.stop()
    print(f"load average (1 min) after: {os.getloadavg()[0]:.1f}")
    base = counts[0]
    for n in counts:
        print(f"threads {n}: {total[n]:.1f} s for {len(items)} requests = {total[base] / total[n]:.2f}x threads {base}")
    same = all(texts[n] == texts[base] for n in counts)
    print(f"texts identical across thread counts: {same}")


if __name__ == "__main__":
    main()
