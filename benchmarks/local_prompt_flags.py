"""llama-server flags for prompt evaluation on the embedded model, side by side under whatever load.

One llama-server per flag set (same binary, model, template and ``--threads``, one slot); the longest
clean prompt among ``--samples`` BFCL samples goes to each server in turn, ``--rounds`` times, with
the prompt cache off and one output token, so each request times the evaluation of its whole prompt.
Prints each request's prompt seconds (the server's own ``timings``) and each flag set's range.

usage: python benchmarks/local_prompt_flags.py [--flags "fa_off=-fa off;fa_on=-fa on;ub2048=-ub 2048 -b 2048"]
       [--threads 1] [--samples 8] [--rounds 3] [--bench DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
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
    ap.add_argument("--flags", default="fa_off=-fa off;fa_on=-fa on;ub2048=-ub 2048 -b 2048")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bench", type=Path, default=None)
    args = ap.parse_args()
    bench = args.bench or cache_dir("bench") / "main_job_bfcl_seed0"
    if not (bench / "manifest.json").is_file():
        build_benchmark(sources=["bfcl"], data_dir=None, seed=0, out=bench)
    messages = max(
        (
            openai_messages(render_messages(it.sample, "prompt"), NameMap())
            for it in plan_work(bench, ["clean"], args.samples)
        ),
        key=lambda ms: sum(len(str(m.get("content") or "")) for m in ms),
    )
    sets = dict(part.split("=", 1) for part in args.flags.split(";") if part.strip())
    status = check(None)
    servers = {
        name: LlamaServer(
            status.paths.server,
            status.paths.gguf,
            chat_template=TEMPLATE,
            parallel=1,
            threads=args.threads,
            log_dir=status.paths.logs,
            extra_args=shlex.split(flags),
        )
        for name, flags in sets.items()
    }
    body = json.dumps(
        {"model": "local", "messages": messages, "temperature": 0, "max_tokens": 1, "cache_prompt": False}
    ).encode()
    print(f"load average (1 min) before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    seconds: dict[str, list[float]] = {name: [] for name in sets}
    try:
        urls = {name: asyncio.run(s.start()) for name, s in servers.items()}
        for r in range(args.rounds):
            for name, url in urls.items():
                req = urllib.request.Request(
                    url + "/v1/chat/completions", data=body, headers={"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(req, timeout=1800) as resp:
                    tm = json.loads(resp.read())["timings"]
                seconds[name].append(tm["prompt_ms"] / 1000)
                print(
                    f"round {r} {name:>10}: {tm['prompt_n']} prompt tokens in {tm['prompt_ms'] / 1000:.2f} s",
                    flush=True,
                )
    finally:
        for s in servers.values():
            s.stop()
    print(f"load average (1 min) after: {os.getloadavg()[0]:.1f}")
    for name, got in seconds.items():
        print(f"{name:>10} ({sets[name]}): {min(got):.2f}-{max(got):.2f} s")


if __name__ == "__main__":
    main()
