"""The main job (``robustcall bench`` on the embedded model): records per minute and verdicts, before/after.

Two sides answer the same records, each on its own llama-server (same binary, model and threads):
``before`` is by default the main job's settings before the prompt-order change (``--order sample``:
one sample's variants back to back in type order, ``--max-tokens gold``, concurrency 1, every request
sent to the server), ``after`` is today's ``robustcall bench`` default (``--order prefix``: each
sample's variants sorted by prompt, and the local model's reuse of an identical request's answer).
Each side's order, output budget, concurrency (= llama-server slots), answer reuse and extra server
flags are options, so any two settings compare in one command.

The clean samples are those of ``robustcall bench --limit N``; they are split into rounds of
``--round`` samples, and each round runs ``before`` and ``after`` on the same records, ``--chunk``
records of one side then of the other (each side in its own order on its own server, so its prompt
cache is its own), so a load that comes and goes on a shared machine falls on both alike. The
threads are measured once (idle CPUs at start, or ``--threads``) and the same on both sides. Every
record is scored; verdicts (correct and error mode) are compared record by record and every
difference is listed. From each server's log: prompt tokens evaluated and tokens generated.

usage: python benchmarks/main_job.py [--samples 4] [--round 2] [--after-concurrency 2]
       [--before-order type --before-max-tokens settings --no-before-reuse]  # the original defaults
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import shlex
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from robustcall.core import PredictionRecord, Sample, cache_dir, read_checkpoint, read_jsonl
from robustcall.models import ModelSettings
from robustcall.models.local import LocalModel
from robustcall.models.local._model import free_threads
from robustcall.perturb import build_benchmark
from robustcall.run import (
    ALL_TYPES,
    ORDERS,
    GoldBudget,
    WorkItem,
    clean_id_of,
    order_items,
    parse_types,
    plan_work,
    record_key,
    run_items,
)
from robustcall.run._plan import spread_subset
from robustcall.score import score_prediction

Verdict = tuple[bool | None, str | None, str, str | None]
"""correct, error mode, raw text, pass 1's raw text (transition types)."""


@dataclass
class Side:
    name: str
    order: str
    max_tokens: str
    concurrency: int
    reuse: bool
    args: str
    model: LocalModel | None = None
    seconds: list[float] = field(default_factory=list)
    verdicts: dict[tuple[str, str], Verdict] = field(default_factory=dict)

    def label(self) -> str:
        extra = f", server {self.args}" if self.args else ""
        reuse = "reuse on" if self.reuse else "reuse off"
        return f"order {self.order}, max_tokens {self.max_tokens}, concurrency {self.concurrency}, {reuse}{extra}"


def _bench(path: Path | None) -> Path:
    bench = path or cache_dir("bench") / "main_job_bfcl_seed0"
    if not (bench / "manifest.json").is_file():
        print(f"building the benchmark (bfcl, seed 0) into {bench}", flush=True)
        build_benchmark(sources=["bfcl"], data_dir=None, seed=0, out=bench)
    return bench


async def _run(side: Side, items: list[WorkItem], out: Path, budget: GoldBudget | None) -> float:
    assert side.model is not None
    await side.model.start()  # server start-up is not the job's time
    t0 = time.perf_counter()
    stats = await run_items(items, side.model, out, concurrency=side.concurrency, max_tokens=budget, resume=True)
    dt = time.perf_counter() - t0
    if stats.infra_errors:
        print(f"  {stats.infra_errors} infra errors in {out}", flush=True)
    return dt


def _verdicts(items: list[WorkItem], out: Path) -> dict[tuple[str, str], Verdict]:
    records = {record_key(r): r for r in read_checkpoint(out / "predictions.jsonl", PredictionRecord)}
    got = {}
    for it in items:
        rec = records[it.key]
        v = score_prediction(it.sample, rec.prediction)
        got[it.key] = (v.correct, v.error_mode, rec.prediction.raw_output, rec.prediction.pass1_raw_output)
    return got


_TIMING = re.compile(r"(prompt eval|\s eval) time =\s+([\d.]+) ms /\s+(\d+) tokens")


def _server_tokens(model: LocalModel) -> tuple[int, int, int, float, float]:
    """Requests, prompt tokens evaluated, tokens generated, and their seconds, from the server's log."""
    path = model.server.log_path
    n = prompt = gen = 0
    prompt_s = gen_s = 0.0
    if path is None or not path.is_file():
        return 0, 0, 0, 0.0, 0.0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _TIMING.search(line)
        if m is None:
            continue
        if m[1] == "prompt eval":
            n += 1
            prompt += int(m[3])
            prompt_s += float(m[2]) / 1000
        else:
            gen += int(m[3])
            gen_s += float(m[2]) / 1000
    return n, prompt, gen, prompt_s, gen_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=4, help="clean samples (x 23 types = records per side)")
    ap.add_argument("--round", type=int, default=2, help="clean samples per round")
    ap.add_argument("--chunk", type=int, default=8, help="records a side answers before the other's turn")
    ap.add_argument("--bench", type=Path, default=None)
    ap.add_argument("--types", default="all", help="all, or a comma list (a subset keeps the order's pattern)")
    ap.add_argument("--threads", type=int, default=None, help="llama-server threads on both sides (default: idle CPUs)")
    for side, order, reuse in (("before", "sample", False), ("after", "prefix", True)):
        ap.add_argument(f"--{side}-order", choices=ORDERS, default=order)
        ap.add_argument(f"--{side}-max-tokens", choices=("gold", "settings"), default="gold")
        ap.add_argument(f"--{side}-concurrency", type=int, default=1, help="requests in flight = server slots")
        ap.add_argument(
            f"--{side}-reuse",
            action=argparse.BooleanOptionalAction,
            default=reuse,
            help="reuse the answer of an identical earlier request (LocalModel(reuse_answers=))",
        )
        ap.add_argument(f"--{side}-args", default="", help="extra llama-server flags")
        ap.add_argument(f"--{side}-binary", type=Path, default=None, help="another llama-server build")
    args = ap.parse_args()
    bench = _bench(args.bench)
    clean = sorted(read_jsonl(bench / "clean.jsonl", Sample), key=lambda s: s.id)
    chosen = [s.id for s in spread_subset(clean, args.samples)]
    types = list(ALL_TYPES) if args.types == "all" else parse_types(args.types)
    by_type = plan_work(bench, types, args.samples, order="type")
    threads = args.threads or free_threads()
    gold = GoldBudget.from_samples(clean, ModelSettings().max_tokens)
    sides = [
        Side(
            name,
            getattr(args, f"{name}_order"),
            getattr(args, f"{name}_max_tokens"),
            getattr(args, f"{name}_concurrency"),
            getattr(args, f"{name}_reuse"),
            getattr(args, f"{name}_args"),
        )
        for name in ("before", "after")
    ]
    for side in sides:
        side.model = LocalModel(
            ModelSettings(),
            concurrency=side.concurrency,
            threads=threads,
            server_args=shlex.split(side.args),
            reuse_answers=side.reuse,
        )
        binary = getattr(args, f"{side.name}_binary")
        if binary is not None:
            side.model.server.binary = binary
    rounds = [chosen[i : i + args.round] for i in range(0, len(chosen), args.round)]
    counts: list[int] = []
    print(f"llama-server threads: {threads} on both sides", flush=True)

    async def go(tmp: Path) -> None:
        try:
            for r, ids in enumerate(rounds):
                mine = set(ids)
                base = [it for it in by_type if clean_id_of(it.sample) in mine]
                counts.append(len(base))
                plan = [(s, order_items(base, s.order), gold if s.max_tokens == "gold" else None) for s in sides]
                spent = {s.name: 0.0 for s in sides}
                # chunk by chunk, the sides alternating: each keeps its own order and its own server
                # (and so its prompt cache), and load that drifts within the round falls on both
                for start in range(0, len(base), args.chunk):
                    k = start // args.chunk
                    for side, items, cap in plan if k % 2 == 0 else plan[::-1]:
                        chunk = items[start : start + args.chunk]
                        spent[side.name] += await _run(side, chunk, tmp / f"{side.name}_{r}", cap)
                for side, items, _ in plan:
                    side.seconds.append(spent[side.name])
                    side.verdicts.update(_verdicts(items, tmp / f"{side.name}_{r}"))
                print(
                    f"round {r} ({len(base)} records): " + ", ".join(f"{s.name} {spent[s.name]:.0f} s" for s in sides),
                    flush=True,
                )
            for side in sides:
                assert side.model is not None
                n_req, prompt, gen, prompt_s, gen_s = _server_tokens(side.model)
                print(
                    f"{side.name}: {n_req} server requests ({side.model.reused} answers reused), "
                    f"{prompt} prompt tokens evaluated ({prompt_s:.0f} s), {gen} generated ({gen_s:.0f} s)"
                )
        finally:
            for side in sides:
                assert side.model is not None
                await side.model.aclose()

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(go(Path(tmp)))
    before, after = sides
    n = sum(counts)
    rate_b = n / sum(before.seconds) * 60
    rate_a = n / sum(after.seconds) * 60
    per_round = [b / a for b, a in zip(before.seconds, after.seconds, strict=True)]
    print()
    print(f"{len(chosen)} clean samples x {len(types)} types = {n} records per side, {len(rounds)} rounds")
    for side, rate in ((before, rate_b), (after, rate_a)):
        print(f"{side.name:6} ({side.label()}): {rate:6.1f} records/min  ({sum(side.seconds):.0f} s)")
    print(
        f"after/before: {rate_a / rate_b:.2f}x overall; per round {', '.join(f'{x:.2f}' for x in per_round)} "
        f"(median {statistics.median(per_round):.2f}x)"
    )
    print(f"the main job's 184 records (8 samples) at the after rate: {184 / rate_a:.1f} min on this machine now")
    half = 100 * 1.96 * math.sqrt(0.25 / len(chosen))
    print(
        f"these verdicts rest on {len(chosen)} clean samples: a type's 95% interval is up to ±{half:.0f} points "
        f"(±{100 * 1.96 * math.sqrt(0.25 / 8):.0f} at the main job's 8)"
    )
    diff = [k for k in before.verdicts if before.verdicts[k][:2] != after.verdicts[k][:2]]
    same_text = sum(before.verdicts[k][2] == after.verdicts[k][2] for k in before.verdicts)
    print(f"verdicts identical on {n - len(diff)}/{n} records (raw text identical on {same_text}/{n})")
    for k in diff:
        (cb, mb, tb, pb), (ca, ma, ta, pa) = before.verdicts[k], after.verdicts[k]
        print(f"  {k[0]}: before {cb}/{mb} {tb[:120]!r}")
        print(f"  {' ' * len(k[0])}  after  {ca}/{ma} {ta[:120]!r}")
        if pb is not None or pa is not None:
            print(f"  {' ' * len(k[0])}  pass 1 {'identical' if pb == pa else f'before {pb!r}, after {pa!r}'}")
    correct = {s.name: sum(1 for v in s.verdicts.values() if v[0]) for s in sides}
    print(f"correct records: before {correct['before']}/{n}, after {correct['after']}/{n}")


if __name__ == "__main__":
    main()
