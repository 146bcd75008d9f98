"""Harness throughput against an endpoint where 30% of requests fail, as a ratio to the ideal C/L.

The mock (``fast_mock_openai.py --fail 0.3``, separate process) answers after a fixed latency L; of
its requests 30% fail, in equal parts: 429 with ``Retry-After`` (at once), 500 (after L), no answer
(the client's timeout T ends it) and a dropped connection. For each concurrency C the full harness
(``run_items``: render, request with retries, parse, checkpoint append per loop turn) answers N
samples; a record left with an infra error after the retries is asked again as ``--resume`` does,
and the time of those passes counts. Then every record is scored: ``lost`` = planned records missing
from the predictions file, ``wrong`` = records not scored correct (the mock's reply is always the
right call), both must be 0.

Two retry schedules side by side, trial by trial in one run:
- ``lend`` (the engine's): a request waiting out its backoff lends its place to the next item;
- ``hold``: the request keeps its place while it waits (the engine before, emulated by running the
  model with no ``backoff_lender``).

``ceiling`` is the best a client can do against this mock: each record costs on average
(0.7 L + 0.075 (L + T)) / 0.7 seconds of a place (a 500 holds it L, a timeout T; a 429 or a drop
answers at once), so ceiling = L / that. ``ideal`` is C / L as in ``harness_throughput.py``.

usage: python benchmarks/failing_endpoint.py [--latency 0.5] [--timeout 1.0] [--conc 1,4,16,64,256] [--repeat 1]
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

from robustcall.core import PredictionRecord, read_checkpoint
from robustcall.models import ModelRequest, ModelResponse, ModelSettings, OpenAIChatModel, backoff_lender
from robustcall.run import WorkItem, record_key, run_items
from robustcall.score import score_prediction

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_throughput import _samples

MOCK = Path(__file__).resolve().parent / "fast_mock_openai.py"
FAIL = 0.3


class Holding:
    """The model with retry backoffs that keep their place (no ``backoff_lender`` in its context)."""

    def __init__(self, inner: OpenAIChatModel) -> None:
        self.inner = inner
        self.name = inner.name
        self.mode = inner.mode

    async def complete(self, req: ModelRequest) -> ModelResponse:
        token = backoff_lender.set(None)
        try:
            return await self.inner.complete(req)
        finally:
            backoff_lender.reset(token)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _trial(
    url: str, items: list[WorkItem], conc: int, timeout: float, out: Path, hold: bool
) -> tuple[float, int]:
    settings = ModelSettings(timeout_s=timeout)
    inner = OpenAIChatModel("mock", url, settings, mode="prompt", concurrency=conc)
    model = Holding(inner) if hold else inner
    passes = 0
    try:
        t0 = time.perf_counter()
        stats = await run_items(items, model, out, concurrency=conc)
        passes = 1
        while stats.infra_errors:  # what `robustcall run --resume` does
            stats = await run_items(items, model, out, concurrency=conc, resume=True)
            passes += 1
        return time.perf_counter() - t0, passes
    finally:
        await model.aclose()


def _check(items: list[WorkItem], out: Path) -> tuple[int, int]:
    records = {record_key(r): r for r in read_checkpoint(out / "predictions.jsonl", PredictionRecord)}
    lost = sum(1 for it in items if it.key not in records)
    wrong = 0
    for it in items:
        rec = records.get(it.key)
        if rec is not None and score_prediction(it.sample, rec.prediction).correct is not True:
            wrong += 1
    return lost, wrong


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--latency", type=float, default=0.5, help="L, seconds per answered request")
    ap.add_argument("--timeout", type=float, default=1.0, help="T, the client's per-request timeout")
    ap.add_argument("--retry-after", type=float, default=1.0)
    ap.add_argument("--conc", default="1,4,16,64,256")
    ap.add_argument("--per-place", type=int, default=16, help="records per unit of C (at least 40)")
    ap.add_argument("--repeat", type=int, default=1, help="trials per schedule (medians)")
    args = ap.parse_args()
    lat, tmo = args.latency, args.timeout
    ceiling = lat / ((0.7 * lat + 0.075 * (lat + tmo)) / 0.7)
    with tempfile.TemporaryDirectory() as tmp:
        portfile = Path(tmp) / "url"
        mock = [sys.executable, str(MOCK), str(portfile), str(lat), "3600", "--fail", str(FAIL)]
        server = subprocess.Popen([*mock, "--retry-after", str(args.retry_after)])
        try:
            while not (portfile.exists() and portfile.read_text()):
                time.sleep(0.05)
            url = portfile.read_text()
            print(
                f"L = {lat * 1000:.0f} ms, T = {tmo * 1000:.0f} ms, {FAIL:.0%} of requests fail "
                f"(429 + Retry-After {args.retry_after:g} s / 500 / no answer / dropped, equal parts); "
                f"ceiling = {ceiling:.2f} of ideal C/L"
            )
            cols = (
                "C",
                "n",
                "ideal/s",
                "lend/s",
                "hold/s",
                "lend/ideal",
                "hold/ideal",
                "lend/ceil",
                "passes",
                "lost",
                "wrong",
            )
            widths = (5, 6, 8, 8, 8, 11, 11, 10, 7, 5, 6)
            print(" ".join(f"{c:>{w}}" for c, w in zip(cols, widths, strict=True)))
            for c in (int(x) for x in args.conc.split(",")):
                n = max(40, args.per_place * c)
                items = _samples(n)
                ideal = c / lat
                rates: dict[bool, list[float]] = {False: [], True: []}
                lost = wrong = 0
                passes: list[int] = []
                for k in range(args.repeat):
                    for hold in (False, True) if k % 2 == 0 else (True, False):
                        out = Path(tmp) / f"run_{c}_{k}_{hold}"
                        dt, p = asyncio.run(_trial(url, items, c, tmo, out, hold))
                        rates[hold].append(n / dt)
                        got_lost, got_wrong = _check(items, out)
                        lost, wrong = lost + got_lost, wrong + got_wrong
                        if not hold:
                            passes.append(p)
                lend, held = statistics.median(rates[False]), statistics.median(rates[True])
                print(
                    f"{c:>5} {n:>6} {ideal:>8.1f} {lend:>8.1f} {held:>8.1f} {lend / ideal:>11.2f} "
                    f"{held / ideal:>11.2f} {lend / ideal / ceiling:>10.2f} {max(passes):>7} {lost:>5} {wrong:>6}",
                    flush=True,
                )
        finally:
            server.kill()
    print("goal: lend/ideal >= 0.6 at C = 64, lost = wrong = 0")


if __name__ == "__main__":
    main()
