"""The whole benchmark against a fast server: ``robustcall run`` + ``score`` of every record of a
RobustBench-TC build (all 23 types, the two-pass transition harness included) against a mock
endpoint answering realistic texts after a fixed latency L.

The mock (``fast_mock_openai.py``'s raw-asyncio server, in its own process) answers each request
with a text chosen for its sample, seeded: the gold calls in the sample's own output format (BFCL
calls, ``<tool_call>`` JSON, ReAct steps, ...) for 70% of samples, a wrong call (an argument
changed, or another tool) for 10%, a malformed one (the gold text cut in the middle) for 10%, and
for 10% a long answer (3-8 KB of reasoning before the gold calls). A request is matched to its
sample by its first two messages (the system prompt with the tools, the user turn).

Per concurrency C the run goes through the CLI in this process (``robustcall run ... --mode
prompt``), then ``robustcall score``. Printed: records/s and requests/s against the ceiling C / L
(requests; a transition record that calls a tool asks twice), the CPU time of parsing (in the worker
threads), of serialising and writing records, the process's peak RSS, and ``score``'s time.

Build the benchmark first (docs/sources.md):
    robustcall build --out /tmp/bench --sources bfcl,apibank,rotbench,toolalpaca,tooleyes \
        --data-dir ../shared/data

usage: python benchmarks/full_eval.py BENCH [--latency 0.05] [--concurrency 64 256] [--seed 0]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PROSE = (
    "Let me think about which tool fits the request. The user asks for a specific operation, and the "
    "available functions describe their parameters; I check each required parameter against the "
    "query, convert the units where needed and keep the values exactly as the user gave them. "
)


def _key(messages: list[dict[str, Any]]) -> str:
    text = "\x00".join(str(m.get("content") or "") for m in messages[:2])
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def build_answers(bench: Path, seed: int) -> tuple[dict[str, str], int, dict[str, int]]:
    """Request key -> answer text, the number of work items, and how many answers of each kind."""
    from robustcall.core import ToolCall
    from robustcall.formats import render_calls, render_messages, sample_format
    from robustcall.run import ALL_TYPES, plan_work

    items = plan_work(bench, list(ALL_TYPES))
    answers: dict[str, str] = {}
    kinds = dict.fromkeys(("gold", "wrong", "malformed", "long"), 0)
    for item in items:
        sample = item.sample
        key = _key([m.model_dump() for m in render_messages(sample, "prompt")])
        if key in answers:
            continue
        rng = random.Random(f"{seed}/{sample.id}/{sample.perturbation.type}")
        golden = sample.golden_answers
        if golden and sample.source.extra.get("golden_mode") in ("any", "any_name"):
            golden = golden[:1]
        calls = [g.as_call() for g in golden]
        fmt = sample_format(sample)
        draw = rng.random()
        kind = "gold" if draw < 0.7 else "wrong" if draw < 0.8 else "malformed" if draw < 0.9 else "long"
        if kind == "wrong" and calls:
            first = calls[0]
            args = dict(first.arguments)
            if args:
                name = sorted(args)[0]
                args[name] = f"{args[name]}x" if isinstance(args[name], str) else 7
                calls = [ToolCall(name=first.name, arguments=args), *calls[1:]]
            else:
                other = [t.name for t in sample.tools if t.name != first.name]
                calls = [ToolCall(name=other[0] if other else f"{first.name}_v2", arguments={}), *calls[1:]]
        text = render_calls(calls, fmt) if calls else "No function fits this request, so I will not call any."
        if kind == "malformed":
            text = text[: max(1, len(text) // 2)]
        elif kind == "long":
            text = PROSE * rng.randint(12, 32) + "\n" + text
        kinds[kind] += 1
        answers[key] = text
    return answers, len(items), kinds


# The mock server ------------------------------------------------------------------------------------


def serve(answers_file: str, portfile: str, latency: float) -> None:
    import orjson
    from fast_mock_openai import ChatProtocol, Replies

    table = json.loads(Path(answers_file).read_text(encoding="utf-8"))
    replies: dict[str, bytes] = {}
    for key, text in table.items():
        body = orjson.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            }
        )
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        replies[key] = head.encode() + b"Connection: keep-alive\r\n\r\n" + body
    missing = replies[next(iter(replies))]

    class Answering(ChatProtocol):
        def data_received(self, data: bytes) -> None:
            self.buffer = self.buffer + data if self.buffer else data
            while True:
                head_end = self.buffer.find(b"\r\n\r\n")
                if head_end < 0:
                    return
                head = self.buffer[:head_end].lower()
                at = head.find(b"content-length:")
                eol = head.find(b"\r\n", at)
                length = int(head[at + 15 : eol if eol > 0 else None]) if at >= 0 else 0
                total = head_end + 4 + length
                if len(self.buffer) < total:
                    return
                body = self.buffer[head_end + 4 : total]
                self.buffer = self.buffer[total:]
                key = _key(orjson.loads(body)["messages"])
                assert self.transport is not None
                self.replies.add(self.transport, replies.get(key, missing))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        queue = Replies(latency)
        server = await loop.create_server(lambda: Answering(queue), "127.0.0.1", 0, backlog=4096)
        Path(portfile).write_text(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1")
        await asyncio.sleep(3600)

    asyncio.run(main())


# The client -----------------------------------------------------------------------------------------


class Clock:
    """CPU seconds spent in a function, summed over every thread that runs it."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self.lock = threading.Lock()

    def wrap(self, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                dt = time.thread_time() - t0
                with self.lock:
                    self.seconds += dt
                    self.calls += 1

        return timed


def cli(args: list[str]) -> None:
    from robustcall.cli.main import app

    try:
        app(args, standalone_mode=False)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise


def one_run(
    bench: Path, url: str, concurrency: int, latency: float, items: int, work: Path, score: bool
) -> dict[str, float]:
    import robustcall.core as core
    import robustcall.run as run_pkg
    import robustcall.run._answer as answer_mod
    import robustcall.run._engine as engine

    parse, line, write = Clock(), Clock(), Clock()
    saved = (answer_mod.read_calls, engine.prediction_line, core.JsonlAppender.write_lines)
    real_run_items = run_pkg.run_items
    loop_s = [0.0]

    async def timed_run_items(*a: Any, **k: Any) -> Any:  # the run loop alone, without the command's setup
        t = time.perf_counter()
        try:
            return await real_run_items(*a, **k)
        finally:
            loop_s[0] = time.perf_counter() - t

    run_pkg.run_items = timed_run_items  # type: ignore[assignment]
    answer_mod.read_calls = parse.wrap(saved[0])
    engine.prediction_line = line.wrap(saved[1])
    core.JsonlAppender.write_lines = write.wrap(saved[2])  # type: ignore[method-assign]
    out = work / f"run_c{concurrency}"
    try:
        cpu0, t0 = time.process_time(), time.perf_counter()
        cli(["run", "--bench", str(bench), "--out", str(out), "--model", f"openai:m@{url}", "--mode", "prompt",
             "--concurrency", str(concurrency), "--max-infra-errors", "0"])  # fmt: skip
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    finally:
        answer_mod.read_calls, engine.prediction_line = saved[0], saved[1]
        run_pkg.run_items = real_run_items  # type: ignore[assignment]
        core.JsonlAppender.write_lines = saved[2]  # type: ignore[method-assign]
    t1 = time.perf_counter()
    cli(["score", str(out)]) if score else None
    score_s = time.perf_counter() - t1
    requests = parse.calls  # one parse per answered request
    return {
        "wall": wall,
        "loop": loop_s[0],
        "cpu": cpu,
        "records": items,
        "requests": requests,
        "records_per_s": items / loop_s[0],
        "requests_per_s": requests / loop_s[0],
        "ceiling": concurrency / latency,
        "parse_s": parse.seconds,
        "line_s": line.seconds,
        "write_s": write.seconds,
        "score_s": score_s,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", type=Path)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-score", action="store_true", help="skip `score` after each run")
    ap.add_argument("--serve", nargs=2, metavar=("ANSWERS", "PORTFILE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve[0], args.serve[1], args.latency)
        return

    from robustcall._native import compiled_status

    answers, items, kinds = build_answers(args.bench, args.seed)
    print(f"{compiled_status()}; {items} records, {len(answers)} distinct prompts; answers {kinds}; "
          f"L = {args.latency * 1000:.0f} ms; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        table, portfile = work / "answers.json", work / "port"
        table.write_text(json.dumps(answers), encoding="utf-8")
        server = subprocess.Popen(
            [sys.executable, __file__, "--latency", str(args.latency), "--serve", str(table), str(portfile), "x"]
        )
        try:
            while not portfile.exists() or not portfile.read_text():
                time.sleep(0.05)
            url = portfile.read_text()
            print("| C | records/s | requests/s | ceiling C/L (req/s) | req/s ÷ ceiling | run loop s | command s "
                  "| client CPU s "
                  "| parse CPU s | record lines s | writes s | peak RSS MB | score s |")  # fmt: skip
            print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            for c in args.concurrency:
                r = one_run(args.bench, url, c, args.latency, items, work, not args.no_score)
                print(
                    f"| {c} | {r['records_per_s']:.0f} | {r['requests_per_s']:.0f} | {r['ceiling']:.0f} "
                    f"| {r['requests_per_s'] / r['ceiling']:.2f} | {r['loop']:.1f} | {r['wall']:.1f} | {r['cpu']:.1f} "
                    f"| {r['parse_s']:.2f} | {r['line_s']:.2f} | {r['write_s']:.2f} | {r['rss_mb']:.0f} "
                    f"| {r['score_s']:.1f} |",
                    flush=True,
                )
            ticks = os.sysconf("SC_CLK_TCK")
            fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
            server_cpu = (int(fields[11]) + int(fields[12])) / ticks
            print(f"mock server CPU {server_cpu:.1f} s; load average after: {os.getloadavg()[0]:.2f}")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
