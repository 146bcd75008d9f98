"""The main job (``robustcall bench`` on the embedded model): records per minute and verdicts, before/after.

``before`` is the main job's earlier settings: work asked type after type (consecutive requests come
from different samples, so llama-server's prompt cache finds little of the previous prompt) and
Table 15's fixed ``max_tokens`` = 1,024. ``after`` is today's default: the variants of one sample
back to back (``--order sample``), output budgets from the gold calls (``--max-tokens gold``) and the
server flags in ``--after-args``. Both run on their own llama-server (same binary, model, threads,
one slot each, concurrency 1 as ``robustcall bench``).

The clean samples are those of ``robustcall bench --limit N``; they are split into rounds of
``--round`` samples, and each round runs ``before`` and ``after`` on the same records, ``--chunk``
records of one side then of the other (each side in its own order on its own server, so its prompt
cache is its own), so a load that comes and goes on a shared machine falls on both alike. Every
record is scored; verdicts (correct and error mode) are compared record by record
and every difference is listed.

usage: python benchmarks/main_job.py [--samples 4] [--round 2] [--bench DIR] [--after-args "--cache-reuse 256"]
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import tempfile
import time
from pathlib import Path

from robustcall.core import PredictionRecord, Sample, cache_dir, read_checkpoint, read_jsonl
from robustcall.models import ModelSettings
from robustcall.models.local import LocalModel
from robustcall.perturb import build_benchmark
from robustcall.run import (
    ALL_TYPES,
    GoldBudget,
    WorkItem,
    by_sample,
    clean_id_of,
    parse_types,
    plan_work,
    record_key,
    run_items,
)
from robustcall.run._plan import spread_subset
from robustcall.score import score_prediction


def _bench(path: Path | None) -> Path:
    bench = path or cache_dir("bench") / "main_job_bfcl_seed0"
    if not (bench / "manifest.json").is_file():
        print(f"building the benchmark (bfcl, seed 0) into {bench}", flush=True)
        build_benchmark(sources=["bfcl"], data_dir=None, seed=0, out=bench)
    return bench


async def _run(model: LocalModel, items: list[WorkItem], out: Path, budget: GoldBudget | None) -> float:
    await model.start()  # server start-up is not the job's time
    t0 = time.perf_counter()
    stats = await run_items(items, model, out, concurrency=1, max_tokens=budget, resume=True)
    dt = time.perf_counter() - t0
    if stats.infra_errors:
        print(f"  {stats.infra_errors} infra errors in {out}", flush=True)
    return dt


def _verdicts(items: list[WorkItem], out: Path) -> dict[tuple[str, str], tuple[bool | None, str | None, str]]:
    records = {record_key(r): r for r in read_checkpoint(out / "predictions.jsonl", PredictionRecord)}
    got = {}
    for it in items:
        rec = records[it.key]
        v = score_prediction(it.sample, rec.prediction)
        got[it.key] = (v.correct, v.error_mode, rec.prediction.raw_output)
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=4, help="clean samples (x 23 types = records per side)")
    ap.add_argument("--round", type=int, default=2, help="clean samples per round")
    ap.add_argument("--chunk", type=int, default=4, help="records a side answers before the other's turn")
    ap.add_argument("--bench", type=Path, default=None)
    ap.add_argument("--after-args", default="", help="extra llama-server flags for the after side")
    ap.add_argument("--before-args", default="", help="extra llama-server flags for the before side")
    ap.add_argument("--types", default="all", help="all, or a comma list (a subset keeps the order's pattern)")
    args = ap.parse_args()
    bench = _bench(args.bench)
    clean = sorted(read_jsonl(bench / "clean.jsonl", Sample), key=lambda s: s.id)
    chosen = [s.id for s in spread_subset(clean, args.samples)]
    types = list(ALL_TYPES) if args.types == "all" else parse_types(args.types)
    by_type = plan_work(bench, types, args.samples, order="type")
    budget = GoldBudget.from_samples(clean, ModelSettings().max_tokens)
    before = LocalModel(ModelSettings(), concurrency=1, server_args=shlex.split(args.before_args))
    after = LocalModel(ModelSettings(), concurrency=1, server_args=shlex.split(args.after_args))
    rounds = [chosen[i : i + args.round] for i in range(0, len(chosen), args.round)]
    times: dict[str, list[float]] = {"before": [], "after": []}
    counts: list[int] = []
    verdicts: dict[str, dict[tuple[str, str], tuple[bool | None, str | None, str]]] = {"before": {}, "after": {}}

    async def go(tmp: Path) -> None:
        try:
            for r, ids in enumerate(rounds):
                mine = set(ids)
                items_b = [it for it in by_type if clean_id_of(it.sample) in mine]
                items_a = by_sample(items_b)
                counts.append(len(items_b))
                sides = [("before", before, items_b, None), ("after", after, items_a, budget)]
                spent = {"before": 0.0, "after": 0.0}
                # chunk by chunk, the sides alternating: each keeps its own order and its own server
                # (and so its prompt cache), and load that drifts within the round falls on both
                for start in range(0, len(items_b), args.chunk):
                    k = start // args.chunk
                    for name, model, items, cap in sides if k % 2 == 0 else sides[::-1]:
                        spent[name] += await _run(model, items[start : start + args.chunk], tmp / f"{name}_{r}", cap)
                for name, _, items, _ in sides:
                    times[name].append(spent[name])
                    verdicts[name].update(_verdicts(items, tmp / f"{name}_{r}"))
                print(
                    f"round {r} ({len(items_b)} records): before {spent['before']:.0f} s, after {spent['after']:.0f} s",
                    flush=True,
                )
        finally:
            await before.aclose()
            await after.aclose()

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(go(Path(tmp)))
    n = sum(counts)
    rate_b = n / sum(times["before"]) * 60
    rate_a = n / sum(times["after"]) * 60
    per_round = [b / a for b, a in zip(times["before"], times["after"], strict=True)]
    print()
    print(f"{len(chosen)} clean samples x {len(types)} types = {n} records per side, {len(rounds)} rounds")
    print(
        f"before (order type, max_tokens 1024{', ' + args.before_args if args.before_args else ''}): "
        f"{rate_b:6.1f} records/min  ({sum(times['before']):.0f} s)"
    )
    print(
        f"after  (order sample, max_tokens gold{', ' + args.after_args if args.after_args else ''}): "
        f"{rate_a:6.1f} records/min  ({sum(times['after']):.0f} s)"
    )
    print(
        f"after/before: {rate_a / rate_b:.2f}x overall; per round {', '.join(f'{x:.2f}' for x in per_round)} "
        f"(median {statistics.median(per_round):.2f}x)"
    )
    print(f"184 records (8 samples) at the after rate: {184 / rate_a:.1f} min on this machine now")
    diff = [k for k in verdicts["before"] if verdicts["before"][k][:2] != verdicts["after"][k][:2]]
    same_text = sum(verdicts["before"][k][2] == verdicts["after"][k][2] for k in verdicts["before"])
    print(f"verdicts identical on {n - len(diff)}/{n} records (raw text identical on {same_text}/{n})")
    for k in diff:
        (cb, mb, tb), (ca, ma, ta) = verdicts["before"][k], verdicts["after"][k]
        print(f"  {k[0]}: before {cb}/{mb} {tb[:120]!r}")
        print(f"  {' ' * len(k[0])}  after  {ca}/{ma} {ta[:120]!r}")
    correct = {side: sum(1 for v in verdicts[side].values() if v[0]) for side in ("before", "after")}
    print(f"correct records: before {correct['before']}/{n}, after {correct['after']}/{n}")


if __name__ == "__main__":
    main()
