"""Where a GRPO optimizer step's time goes: the rollout (generation, rewards, old / reference
log-probs: TRL's ``_generate_and_score_completions``) against the update (forward, backward,
optimizer over the step's micro-batches).

One rollout feeds ``train_batch_size / mini_batch_size`` optimizer steps (TRL's
``steps_per_generation``), so the steps that reuse a buffered rollout show 0 s of rollout.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from transformers import TrainerCallback


class StepSplit(TrainerCallback):
    """Times each optimizer step and the rollouts inside it; ``echo`` gets one line per step."""

    def __init__(self, echo: Callable[[str], None] | None = None) -> None:
        self.echo = echo
        self.steps: list[dict[str, float]] = []
        self._start = 0.0
        self._rollout = 0.0
        self._generated = 0
        self._trained = 0

    def attach(self, trainer: Any) -> None:
        """Time the trainer's rollouts and count the tokens it generates and trains on."""
        generate, compute_loss = trainer._generate_and_score_completions, trainer.compute_loss

        def timed_rollout(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            out = generate(*args, **kwargs)
            if trainer.model.training:
                self._rollout += time.perf_counter() - t0
                self._generated += int(out["completion_mask"].sum())
            return out

        def counted_loss(model: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
            if model.training:
                self._trained += int(inputs["completion_mask"].sum()) + int(inputs["prompt_mask"].sum())
            return compute_loss(model, inputs, *args, **kwargs)

        trainer._generate_and_score_completions = timed_rollout
        trainer.compute_loss = counted_loss
        trainer.add_callback(self)

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._start = time.perf_counter()
        self._rollout, self._generated, self._trained = 0.0, 0, 0

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        total = time.perf_counter() - self._start
        step = {
            "step": state.global_step,
            "rollout_s": self._rollout,
            "update_s": total - self._rollout,
            "generated_tokens": self._generated,
            "trained_tokens": self._trained,
        }
        self.steps.append(step)
        if self.echo is not None and state.is_world_process_zero:
            self.echo(
                f"step {step['step']}: rollout {step['rollout_s']:.1f} s, update {step['update_s']:.1f} s "
                f"({self._generated:,} tokens generated, {self._trained:,} trained)"
            )
