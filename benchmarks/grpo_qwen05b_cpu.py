"""A few GRPO steps on the real embedded Qwen2.5-Coder-0.5B (dequantised from its GGUF) on CPU.

Data: DR-Full of ToolRL's rlla test split (built here from ../shared/data/toolrl), the rows with
the shortest prompts among those answered by a tool call. Prints the reward per step and the
step times. Rewards: ToolRL format + correctness (the paper's recipe). CPU settings: group size 4
(Table 16), one prompt per step, short completions, no KL reference model (``beta=0``, to halve memory).

    PYTHONPATH=src python benchmarks/grpo_qwen05b_cpu.py [--steps 3] [--max-completion 64]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from robustcall.core import cache_dir
from robustcall.models.local import check
from robustcall.train import build_dr_data, load_rows, save_rows
from robustcall.train._grpo import GrpoSettings, run_grpo
from robustcall.train._models import dequantise_gguf

DATA = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "toolrl" / "dataset" / "rlla_4k" / "test.parquet"
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--max-completion", type=int, default=64)
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    status = check()
    if not status.model_ok:
        print("embedded model missing: run `robustcall model setup` first", file=sys.stderr)
        return 2
    if not args.data.is_file():
        print(f"ToolRL data not found at {args.data}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    hf = dequantise_gguf(status.paths.gguf, cache_dir() / "train" / f"{status.paths.gguf.stem}-hf")
    print(f"dequantised GGUF -> {hf} in {time.perf_counter() - t0:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        build_dr_data([args.data], work / "dr", seed=0)
        rows = load_rows(work / "dr" / "dr_full" / "test.parquet")
        # rows whose answer is a tool call: on the others ToolRL's correctness is 0 by definition,
        # every completion ties and GRPO has no signal
        rows = [r for r in rows if "<tool_call>" in r["reward_model"]["ground_truth"]]
        rows.sort(key=lambda r: len(r["prompt"][0]["content"]) + len(r["prompt"][1]["content"]))
        train = save_rows(rows[: args.steps], work / "train.parquet")
        settings = GrpoSettings(
            model=str(hf),
            train=train,
            output_dir=work / "out",
            num_generations=4,
            train_batch_size=1,
            mini_batch_size=1,
            micro_batch_size=4,
            max_prompt_length=2048,
            max_completion_length=args.max_completion,
            max_steps=args.steps,
            save_steps=10_000,
            beta=0.0,
            bf16=False,
            use_vllm=False,
        )
        summary = run_grpo(settings)
    steps = [h for h in summary["log_history"] if "reward" in h]
    for h in steps:
        print(
            f"step {h['step']}: reward {h['reward']:+.3f} (format {h['rewards/toolrl_format/mean']:.2f}, "
            f"correctness {h['rewards/toolrl_correctness/mean']:+.2f}), loss {h['loss']:.4f}, "
            f"step time {h.get('step_time', float('nan')):.1f} s"
        )
    print(json.dumps({"steps": summary["steps"], "train_seconds": round(summary["train_seconds"], 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
