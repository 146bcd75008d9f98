"""Train a few steps of a real small RM base: Qwen2.5-Coder-0.5B dequantised from the embedded GGUF.

    PYTHONPATH=src python benchmarks/rm_train_gguf.py --pairs pairs.jsonl --steps 6

The GGUF comes from ``robustcall.models.local`` (``robustcall model setup``); transformers' GGUF
loader dequantises it into a ``Qwen2ForSequenceClassification`` (the LM head is dropped, a fresh
one-logit score head is added, as ToolRM does). Training is TRL's ``RewardTrainer`` through
:func:`robustcall.rewards.train_reward_model` with the paper's loss (Bradley-Terry + centering 0.01)
and a cosine schedule; the learning rate defaults to 1e-5 here (not the paper's 1e-6) so that a
handful of CPU steps shows the loss move. Prints the loss per step, the first and last, and the
time per step. Without ``--pairs`` it uses 8 hand-made pairs (a missing optional parameter).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path


def _demo_pairs() -> list[object]:
    from robustcall.rewards import RewardPair

    tools = [
        {
            "name": "get_weather",
            "description": "Weather forecast for a city.",
            "parameters": {
                "type": "dict",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        }
    ]
    cities = ["Paris", "Rome", "Oslo", "Bern", "Lima", "Kyiv", "Doha", "Riga"]
    return [
        RewardPair(
            tools=tools,
            conversation=[{"role": "user", "content": f"Weather in {c} for the next {i + 2} days?"}],
            chosen_output=json.dumps([{"name": "get_weather", "arguments": {"city": c, "days": i + 2}}]),
            rejected_output=json.dumps([{"name": "get_weather", "arguments": {"city": c}}]),
            error_type="Missing Optional Parameter",
            model_name="hand",
            test_category="demo",
            test_id=f"demo{i}",
        )
        for i, c in enumerate(cities)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, help="RM pairs JSONL (rm train-data / build-bench output)")
    ap.add_argument("--limit", type=int, default=16, help="use at most this many pairs")
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--lr", type=float, default=1e-5)
    ap.add_argument("--batch-size", type=int, default=2)
    ap.add_argument("--max-length", type=int, default=1024)
    args = ap.parse_args()

    import torch

    from robustcall.models.local import check
    from robustcall.rewards import RMTrainConfig, load_base, read_pairs, train_reward_model

    status = check()
    if not status.model_ok:
        raise SystemExit("the embedded GGUF is missing: run `robustcall model setup`")
    pairs = read_pairs(args.pairs)[: args.limit] if args.pairs else _demo_pairs()
    torch.manual_seed(0)
    t0 = time.perf_counter()
    model, tokenizer = load_base(str(status.paths.gguf.parent), gguf_file=status.paths.gguf.name)
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"loaded {status.paths.gguf.name} as {type(model).__name__} ({n_params / 1e6:.0f}M params) "
        f"in {time.perf_counter() - t0:.0f}s"
    )
    cfg = RMTrainConfig(
        learning_rate=args.lr,
        max_steps=args.steps,
        per_device_train_batch_size=args.batch_size,
        max_length=args.max_length,
        warmup_ratio=0.0,
    )
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        history = train_reward_model(pairs, Path(out), cfg, model=model, tokenizer=tokenizer)  # type: ignore[arg-type]
    elapsed = time.perf_counter() - t1
    losses = [(h["step"], h["loss"], h.get("accuracy"), h.get("margin")) for h in history if "loss" in h]
    for step, loss, acc, margin in losses:
        print(f"step {step}: loss {loss:.4f}  accuracy {acc}  margin {margin}")
    print(
        f"first loss {losses[0][1]:.4f} -> last loss {losses[-1][1]:.4f}; {elapsed / max(1, len(losses)):.1f}s/step "
        f"({len(pairs)} pairs, batch {args.batch_size}, lr {args.lr})"
    )


if __name__ == "__main__":
    main()
