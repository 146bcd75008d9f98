"""GRPO batch defaults on one GPU, chosen from its free memory.

The rule rests on the measurements issue 38 reports (one H100, TRL 1.16, transformers 5.17, bf16, the
ToolRL-DR recipe's 64 prompts x 4 completions per rollout, completions capped at 256 tokens, a random-init
model shaped like Qwen2.5-0.5B: 494.0M parameters with its tied embedding, 357.9M without -- the
issue's "359M"), one rollout + its updates per figure:

=============  ========================  ===========  ==========
micro-batch    gradient checkpointing    peak (GiB)   s / step
=============  ========================  ===========  ==========
16             on                        36           70
16             off                       63           46
64             on                        36           47
=============  ========================  ===========  ==========

The peak with checkpointing did not move from micro-batch 16 to 64 (the rollout, not the update,
sets it), and 64 ran 1.5x faster. So, with checkpointing on (the default): micro-batch 64 where the
measured 36 GiB fits, else the recipe's 16 (the same measured peak: nothing smaller is known to fit
better). With checkpointing off: 16 (the only figure measured). A measured peak counts as fitting
when it, scaled by the model's parameter count over 494.0M (an assumption: weights, gradients and
optimizer state grow with it; activations with width and depth, roughly so), plus 10% headroom is
at most the free memory. Completion length is not in the rule: it was measured at 256 tokens only.

The effective batch never changes: a rollout is still ``train_batch_size`` prompts x K (TRL's
``generation_batch_size``, generated in one call), an optimizer step ``mini_batch_size`` x K
completions; gradient accumulation makes up the difference (``batch_plan``). A micro-batch that
does not divide ``mini_batch_size`` x K is never chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1024**3
MEASURED_PARAMS = 494_032_768
"""Parameters of the measured model (Qwen2.5-0.5B's shape, tied embedding counted once)."""
HEADROOM = 1.10
MEASURED: tuple[tuple[int, bool, float, float], ...] = (
    # (micro-batch, gradient checkpointing, peak GiB, seconds per rollout + update): issue 38, one H100
    (16, True, 36.0, 70.0),
    (16, False, 63.0, 46.0),
    (64, True, 36.0, 47.0),
)


@dataclass(frozen=True)
class OneGpuPlan:
    """The micro-batch chosen for one GPU, and why."""

    micro_batch_size: int
    fits: bool
    """False: no measured configuration fits the free memory; the recipe's micro-batch is kept."""
    reason: str


def one_gpu_plan(
    free_bytes: int,
    params: int,
    *,
    completions_per_step: int,
    gradient_checkpointing: bool = True,
    fallback: int = 16,
) -> OneGpuPlan:
    """The largest measured micro-batch (module doc) whose scaled peak fits ``free_bytes``."""
    scale = params / MEASURED_PARAMS
    free_gib = free_bytes / GIB
    options = sorted(
        (m for m in MEASURED if m[1] == gradient_checkpointing and completions_per_step % m[0] == 0),
        key=lambda m: -m[0],
    )
    for micro, _, peak, seconds in options:
        need = peak * scale * HEADROOM
        if need <= free_gib:
            return OneGpuPlan(
                micro,
                True,
                f"micro-batch {micro}: measured peak {peak:.0f} GiB x {scale:.2f} (parameters) x {HEADROOM} "
                f"= {need:.1f} GiB fits {free_gib:.1f} GiB free ({seconds:.0f} s/step on an H100 at 0.5B)",
            )
    return OneGpuPlan(
        fallback,
        False,
        f"micro-batch {fallback} (the recipe's): no measured configuration fits {free_gib:.1f} GiB free "
        f"at {params / 1e6:.0f}M parameters; the run may run out of memory",
    )
