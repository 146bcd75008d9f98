"""GRPO steps (rollout + update) at the ToolRL-DR recipe's batch on a random-init Qwen2.5-0.5B shape.

A step here is one rollout and the optimizer steps it feeds: Table 16's 64 prompts x K = 4 completions
per rollout, mini-batch 32 prompts (so 2 optimizer steps per rollout), completions capped at 256 tokens,
bf16 on a GPU, TRL's ``GRPOTrainer`` through ``run_grpo`` exactly as ``robustcall train grpo`` runs it
(on one GPU with no ``--micro-batch`` the micro-batch comes from the free memory, ``train._one_gpu``).
Model: transformers' ``Qwen2Config`` with Qwen2.5-0.5B's shape (hidden 896, 24 layers, 14 heads, 2 KV
heads, intermediate 4,864, vocabulary 151,936, tied embeddings), random weights; its parameter count
is printed with and without the embedding. Tokenizer: a byte-level BPE (8,192 entries) trained on the
prompts (nothing downloaded; ids past it decode to nothing, and random weights rarely emit the end
token, so completions run to the cap).

Data: DR-Full built from ToolRL's rlla_4k test split (``/work/shared/data/toolrl``, as
``benchmarks/grpo_qwen05b_cpu.py`` does), its rows cycled to 64 per rollout.

Prints per step: rollout / update seconds, generated tokens per second of rollout, trained tokens
(prompt + completion) per second of update, and the peak memory (``torch.cuda.max_memory_allocated`` on
a GPU, peak RSS on CPU).

    PYTHONPATH=src python benchmarks/grpo_step.py --steps 3            # GPU
    PYTHONPATH=src python benchmarks/grpo_step.py --tiny --steps 2     # CPU smoke: tiny model and batch
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from robustcall.train import build_dr_data, load_rows, save_rows
from robustcall.train._grpo import GrpoSettings, param_count, run_grpo
from robustcall.train._models import make_tiny_model, tiny_tokenizer

DATA = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "toolrl" / "dataset" / "rlla_4k" / "test.parquet"
)
QWEN25_05B = {
    "hidden_size": 896,
    "num_hidden_layers": 24,
    "num_attention_heads": 14,
    "num_key_value_heads": 2,
    "intermediate_size": 4864,
    "vocab_size": 151_936,
    "tie_word_embeddings": True,
    "max_position_embeddings": 32_768,
}
FULL = {"train_batch_size": 64, "mini_batch_size": 32, "num_generations": 4, "max_completion_length": 256}
TINY = {"train_batch_size": 4, "mini_batch_size": 2, "num_generations": 4, "max_completion_length": 16}


def qwen05b_shape(out: Path, texts: list[str], seed: int) -> tuple[Path, int, int]:
    """A random Qwen2.5-0.5B-shaped model and a local tokenizer in ``out``; (path, params, embedding)."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    tok = tiny_tokenizer(texts, vocab_size=8192)
    config = Qwen2Config(
        **QWEN25_05B,
        eos_token_id=tok.eos_token_id,  # type: ignore[attr-defined]
        pad_token_id=tok.pad_token_id,  # type: ignore[attr-defined]
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)
    model.generation_config.eos_token_id = tok.eos_token_id  # type: ignore[attr-defined]
    model.generation_config.pad_token_id = tok.pad_token_id  # type: ignore[attr-defined]
    params = sum(p.numel() for p in model.parameters())
    embedding = model.get_input_embeddings().weight.numel()
    model.save_pretrained(out)
    tok.save_pretrained(out)  # type: ignore[attr-defined]
    return out, params, embedding


def peak_memory() -> str:
    import torch

    if torch.cuda.is_available():
        return f"{torch.cuda.max_memory_allocated() / 2**30:.1f} GiB (torch.cuda.max_memory_allocated)"
    return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB (peak RSS)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=3, help="rollouts (each with its optimizer steps)")
    ap.add_argument("--tiny", action="store_true", help="tiny model and batch (CPU smoke run)")
    ap.add_argument("--micro-batch", type=int, default=None, help="default: the recipe's, or the one-GPU plan")
    ap.add_argument("--no-checkpointing", action="store_true", help="gradient checkpointing off")
    ap.add_argument("--vllm", action="store_true", help="vLLM colocate generation (needs vllm and a GPU)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if not args.data.is_file():
        print(f"ToolRL data not found at {args.data}", file=sys.stderr)
        return 2
    import torch
    import transformers
    import trl

    batch = TINY if args.tiny else FULL
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU"
    print(f"device {device}; torch {torch.__version__}, transformers {transformers.__version__}, trl {trl.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        build_dr_data([args.data], work / "dr", seed=args.seed)
        rows = load_rows(work / "dr" / "dr_full" / "test.parquet")
        need = batch["train_batch_size"] * args.steps
        rows = list(itertools.islice(itertools.cycle(rows), need))
        train = save_rows(rows, work / "train.parquet")
        texts = [m["content"] for r in rows for m in r["prompt"]]
        t0 = time.perf_counter()
        if args.tiny:
            model = str(make_tiny_model(work / "model", texts, args.seed))
            params = param_count(model)
            print(f"model: tiny Qwen2 (2 layers, hidden 32), {params:,} parameters")
        else:
            path, params, embedding = qwen05b_shape(work / "model", texts, args.seed)
            model = str(path)
            print(
                f"model: Qwen2.5-0.5B shape, {params / 1e6:.1f}M parameters "
                f"({(params - embedding) / 1e6:.1f}M without the tied embedding), "
                f"built in {time.perf_counter() - t0:.0f} s"
            )
        per_rollout = batch["train_batch_size"] // batch["mini_batch_size"]
        settings = GrpoSettings(
            model=model,
            train=train,
            output_dir=work / "out",
            **batch,
            micro_batch_size=args.micro_batch or (4 if args.tiny else None),
            gradient_checkpointing=not args.no_checkpointing,
            max_steps=per_rollout * args.steps,
            save_steps=10**6,
            use_vllm=args.vllm,
            seed=args.seed,
        )
        summary = run_grpo(settings, echo=print)
    split = summary["step_split"]
    print(
        f"batch plan {summary['batch_plan']}; {batch['train_batch_size']} prompts x K={batch['num_generations']} "
        f"per rollout, {per_rollout} optimizer steps each, completions <= {batch['max_completion_length']} tokens, "
        f"checkpointing {'off' if args.no_checkpointing else 'on'}, vLLM {'on' if args.vllm else 'off'}"
    )
    results = []
    for i in range(0, len(split), per_rollout):
        group = split[i : i + per_rollout]
        rollout = sum(s["rollout_s"] for s in group)
        update = sum(s["update_s"] for s in group)
        generated = sum(s["generated_tokens"] for s in group)
        trained = sum(s["trained_tokens"] for s in group)
        results.append({"rollout_s": rollout, "update_s": update, "generated": generated, "trained": trained})
        print(
            f"GRPO step {i // per_rollout + 1}: {rollout + update:.1f} s = rollout {rollout:.1f} s "
            f"({100 * rollout / (rollout + update):.0f}%) + update {update:.1f} s; "
            f"generated {generated:,} tokens ({generated / rollout:,.0f}/s), "
            f"trained {trained:,} tokens ({trained / update:,.0f}/s)"
        )
    print(f"peak memory {peak_memory()}")
    print(json.dumps({"device": device, "params": params, "steps": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
