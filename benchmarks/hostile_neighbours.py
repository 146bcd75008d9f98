"""How late a run writes ordinary records while hostile answers are read beside them (issue 43 item 8).

A mock OpenAI-compatible server (a separate process, so that it takes no time from the run's own)
answers 48 records; 10 of them are hostile 99 KB answers (the adversarial generator's slowest shapes),
the rest ``[f(a=i)]``. Every answer arrives after 30-90 ms (seeded per record), so ordinary answers
arrive while hostile ones are being read. For every record the script takes the time its answer
arrived (the model client's ``complete`` returned) and the time its line was written to
predictions.jsonl; an ordinary record's lateness is the difference (its own parse is about 0.1 ms).
The same run without hostile answers is the baseline; the goal (issue 43) is that no answer delays
another record by more than 50 ms. Each run is a new process, as ``robustcall run`` is (so the
long lane's worker processes start within it).

usage: python benchmarks/hostile_neighbours.py [--records 48] [--hostile 10] [--concurrency 16] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "formats"))

HOSTILE_SHAPES = (
    "repeated_keys_tag",
    "json_specials_list",
    "bound_quote_tokens",
    "colon_args",
    "fences",
    "unclosed_tags",
    "call_list",
    "failure_deep_inside",
    "nested_kwargs",
    "bound_kwarg_prose",
)
"""Ten of the slowest shapes at 99 KB (``tests/formats/fuzz_inputs.py``), one per hostile answer."""


def _answers(records: int, hostile: int) -> dict[int, str]:
    from fuzz_inputs import PATHOLOGICAL

    rng = random.Random(43)
    bad = sorted(rng.sample(range(records), hostile)) if hostile else []
    out = {i: f"[f(a={i})]" for i in range(records)}
    for k, i in enumerate(bad):
        out[i] = PATHOLOGICAL[HOSTILE_SHAPES[k % len(HOSTILE_SHAPES)]](99_000)[:99_000]
    return out


def serve(port_file: str, records: int, hostile: int) -> None:
    """The mock server (run as its own process): answers record ``i`` after its seeded latency."""
    answers = _answers(records, hostile)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            i = int(body["messages"][-1]["content"].rsplit(" ", 1)[1])
            time.sleep(random.Random(i).uniform(0.03, 0.09))
            msg = {"role": "assistant", "content": answers[i]}
            reply = {
                "id": "x",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}],
            }
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Path(port_file).write_text(str(server.server_address[1]))
    server.serve_forever()


def _samples(records: int) -> list[Any]:
    from robustcall.core import EvalConfig, GoldenAnswer, Message, Sample, SourceInfo, ToolSpec

    tool = ToolSpec(
        name="f",
        description="f.",
        parameters={"type": "dict", "properties": {"a": {"type": "integer", "description": "a"}}, "required": ["a"]},
    )
    return [
        Sample(
            id=f"bfcl_v3__simple__{i}",
            benchmark="bfcl_v3",
            category="simple",
            source=SourceInfo(original_id=f"simple_{i}", benchmark="bfcl_v3"),
            conversation=[Message(role="user", content=f"call f with {i}")],
            tools=[tool],
            golden_answers=[GoldenAnswer(name="f", parameters={"a": i}, acceptable={"a": [i]})],
            eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
        )
        for i in range(records)
    ]


_ID = re.compile(r'"id":\s*"[^"]*__(\d+)"')


def one_run(records: int, hostile: int, concurrency: int) -> dict[str, float]:
    """One run against a fresh mock server; the lateness of ordinary and hostile records (s)."""
    from robustcall.core import JsonlAppender, write_jsonl
    from robustcall.models import make_model
    from robustcall.run import parse_types, plan_work, run_items

    answers = _answers(records, hostile)
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "port"
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(port_file), "--records", str(records), "--hostile", str(hostile)]
        )
        try:
            while not port_file.exists() or not port_file.read_text():
                time.sleep(0.05)
            url = f"http://127.0.0.1:{port_file.read_text()}/v1"
            bench = Path(tmp) / "bench"
            write_jsonl(bench / "clean.jsonl", _samples(records))
            (bench / "manifest.json").write_text("{}\n")
            arrived: dict[int, float] = {}
            written: dict[int, float] = {}
            model = make_model(f"openai:m@{url}", mode="prompt")
            complete = model.complete

            async def timed(req: Any) -> Any:
                resp = await complete(req)
                arrived[int(req.sample.id.rsplit("__", 1)[1])] = time.perf_counter()
                return resp

            model.complete = timed  # type: ignore[method-assign]
            write_lines = JsonlAppender.write_lines

            def stamped(self: Any, lines: list[str]) -> None:
                write_lines(self, lines)
                now = time.perf_counter()
                for line in lines:
                    m = _ID.search(line)
                    if m is not None:
                        written[int(m.group(1))] = now

            JsonlAppender.write_lines = stamped  # type: ignore[method-assign]
            try:
                stats = asyncio.run(
                    run_items(plan_work(bench, parse_types("clean")), model, Path(tmp) / "run", concurrency=concurrency)
                )
            finally:
                JsonlAppender.write_lines = write_lines  # type: ignore[method-assign]
        finally:
            server.terminate()
            server.wait()
    assert stats.answered == records and stats.infra_errors == 0, stats
    late = {i: written[i] - arrived[i] for i in range(records)}
    normal = sorted(v for i, v in late.items() if answers[i] == f"[f(a={i})]")
    bad = sorted(v for i, v in late.items() if answers[i] != f"[f(a={i})]")
    return {
        "normal_max": normal[-1],
        "normal_p50": normal[len(normal) // 2],
        "hostile_max": bad[-1] if bad else 0.0,
    }


def _trial(records: int, hostile: int, concurrency: int) -> dict[str, float]:
    """:func:`one_run` in a new process, as a ``robustcall run`` starts (its workers included)."""
    cmd = [sys.executable, __file__, "--trial", str(hostile), "--records", str(records)]
    out = subprocess.run([*cmd, "--concurrency", str(concurrency)], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=48)
    ap.add_argument("--hostile", type=int, default=10)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--serve", help=argparse.SUPPRESS)
    ap.add_argument("--trial", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve, args.records, args.hostile)
        return
    if args.trial is not None:
        print(json.dumps(one_run(args.records, args.trial, args.concurrency)))
        return
    from robustcall._native import compiled_status

    print(f"scoring path: {compiled_status()}; {args.records} records, concurrency {args.concurrency}")
    for hostile in (0, args.hostile):
        runs = [_trial(args.records, hostile, args.concurrency) for _ in range(args.repeat)]
        worst = max(r["normal_max"] for r in runs)
        p50 = sorted(r["normal_p50"] for r in runs)[len(runs) // 2]
        hostile_max = max(r["hostile_max"] for r in runs)
        each = ", ".join(f"{r['normal_max'] * 1000:.1f}" for r in runs)
        print(
            f"{hostile:2d} hostile: ordinary records written at most {worst * 1000:6.1f} ms after their answer"
            f" (median {p50 * 1000:5.1f} ms; per run: {each})"
            + (f"; hostile records at most {hostile_max * 1000:.1f} ms" if hostile else "")
        )


if __name__ == "__main__":
    main()
