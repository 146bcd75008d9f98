"""A veRL GRPO launch for the ToolRL-DR (000, Table 16) and ToolRM (004, Table 9) recipes.

``robustcall train grpo`` runs the recipes on TRL (one machine); this module writes the same recipe
as the Hydra overrides of veRL's ``verl.trainer.main_ppo`` (Ray: one node or a cluster) with our
reward loaded through veRL's ``custom_reward_function`` (``verl_reward.py``). veRL's batch sizes are
in prompts, as the papers give them, so Table 16 / Table 9 map one to one:

| recipe value | veRL override |
|---|---|
| train batch (prompts) | ``data.train_batch_size`` |
| PPO mini-batch (prompts) | ``actor_rollout_ref.actor.ppo_mini_batch_size`` |
| PPO micro-batch / GPU | ``actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu`` (and the log-prob passes) |
| max tokens / GPU (12,288) | ``actor_rollout_ref.actor.ppo_max_token_len_per_gpu`` (binds: ``use_dynamic_bsz`` is on) |
| rollout group K | ``actor_rollout_ref.rollout.n`` |
| prompt / response length | ``data.max_prompt_length`` / ``data.max_response_length`` (overlong prompts filtered) |
| learning rate | ``actor_rollout_ref.actor.optim.lr`` |
| epochs | ``trainer.total_epochs`` |
| checkpoint / eval freq. (steps) | ``trainer.save_freq`` / ``trainer.test_freq`` |
| validation batch (Table 9: 128) | ``data.val_batch_size`` |

KL and batching are ToolRL's launch (``TOOLRL_LAUNCH``): both papers train with ToolRL's code base
(000: "follow the public ToolRL repository unchanged"; 004: "the code base ... provided by ToolRL").
Rollouts use vLLM with tensor parallel 1 (Table 16).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robustcall.core import InputError
from robustcall.train._grpo import RECIPES
from robustcall.train._rewards import REWARDS

VERL_ENTRY = "verl.trainer.main_ppo"
VERL_REQUIREMENTS = ("verl", "ray", "hydra", "vllm")
"""Modules a launch needs; ``missing_for_launch`` names the absent ones."""

_PLAIN = re.compile(r"[A-Za-z0-9_./\-+]*\Z")

TOOLRL_LAUNCH: tuple[tuple[str, Any], ...] = (
    ("algorithm.use_kl_in_reward", True),
    ("algorithm.kl_penalty", "kl"),
    ("algorithm.kl_ctrl.type", "fixed"),
    ("algorithm.kl_ctrl.kl_coef", 0.001),
    ("actor_rollout_ref.actor.use_kl_loss", False),
    ("actor_rollout_ref.actor.use_dynamic_bsz", True),
)
"""ToolRL's ``examples/grpo_trainer/run_grpo.sh`` and ``ray_trainer.py`` (commit 8cee13e) in veRL 0.5+ names:
its script sets ``use_kl_loss=False``, ``algorithm.kl_ctrl.kl_coef=0.001`` and ``use_dynamic_bsz=True``, and
its trainer then subtracts the KL penalty from the reward (``apply_kl_penalty``, the ``kl`` estimator of its
default config, a fixed controller); newer veRL asks for that with ``use_kl_in_reward``. Dynamic batching
makes ``ppo_max_token_len_per_gpu`` (Table 16's 12,288) the bound; the log-prob passes follow it."""

VAL_BATCH = {"toolrm": 128}
"""Validation batch sizes the recipes give (Table 9); Table 16 gives none (veRL: the whole split)."""


@dataclass(frozen=True)
class VerlLaunch:
    """One veRL GRPO launch: the recipe and what the user gave."""

    recipe: str
    model: str
    train: Path
    eval: Path
    out: Path
    gpus_per_node: int = 2
    nodes: int = 1
    rewards: tuple[str, ...] = ()
    """Reward terms summed by ``verl_reward.compute_score``; empty: the recipe's."""
    toolrm_scorer: str | None = None
    experiment: str = ""
    extra: tuple[str, ...] = field(default_factory=tuple)
    """More Hydra overrides, appended last (they win)."""

    def reward_names(self) -> list[str]:
        return list(self.rewards) or list(RECIPES[self.recipe]["rewards"])


def reward_module_path() -> Path:
    """The file veRL loads as ``custom_reward_function.path``."""
    from robustcall.train import verl_reward

    return Path(verl_reward.__file__).resolve()


def _value(v: Any) -> str:
    """A value in Hydra's override grammar (quoted unless plain)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ",".join(_value(x) for x in v) + "]"
    s = str(v)
    return s if _PLAIN.match(s) and s else "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def check_launch(launch: VerlLaunch) -> None:
    """Refuse what veRL would only reject after Ray and the GPUs are up."""
    if launch.recipe not in RECIPES:
        raise InputError(f"unknown recipe {launch.recipe!r}; valid: {', '.join(RECIPES)}")
    unknown = [r for r in launch.reward_names() if r not in REWARDS]
    if unknown:
        raise InputError(f"unknown reward {unknown[0]!r}; valid: {', '.join(REWARDS)}")
    if "toolrm" in launch.reward_names() and not launch.toolrm_scorer:
        raise InputError("the toolrm reward needs --toolrm-scorer (e.g. pooling:<model>@<base_url>)")
    for path in (launch.train, launch.eval):
        if path.suffix != ".parquet":
            raise InputError(f"{path}: veRL reads parquet (robustcall train dr-data writes it)")
    r = RECIPES[launch.recipe]
    gpus = launch.gpus_per_node * launch.nodes
    if gpus < 1:
        raise InputError("--gpus and --nodes must be at least 1")
    # veRL 0.9's own rules for FSDP without dynamic batch sizes: validate_config (verl/utils/config.py)
    # wants the rollout batch split evenly over the GPUs (ActorConfig.validate: a mini-batch no larger
    # than the batch, true of every recipe), and the actor's update (workers/engine_workers.py) each
    # mini-batch's rollouts. A GPU's share need not be a multiple of the micro-batch: the last
    # micro-batch is simply smaller.
    for what, prompts in (("batch", r["train_batch_size"]), ("mini-batch", r["mini_batch_size"])):
        if (prompts * r["num_generations"]) % gpus:
            raise InputError(
                f"{gpus} GPUs do not divide a {what} of {prompts} prompts x {r['num_generations']} rollouts "
                "evenly (veRL needs every GPU to get the same share)"
            )


def overrides(launch: VerlLaunch) -> list[str]:
    """The Hydra overrides of ``verl.trainer.main_ppo`` for ``launch`` (veRL >= 0.5 layout)."""
    check_launch(launch)
    r = RECIPES[launch.recipe]
    kwargs: dict[str, Any] = {"rewards": launch.reward_names()}
    if launch.toolrm_scorer:
        kwargs["toolrm_scorer"] = launch.toolrm_scorer
    micro = r["micro_batch_size"]
    items: list[tuple[str, Any]] = [
        ("algorithm.adv_estimator", "grpo"),
        *TOOLRL_LAUNCH,
        ("data.train_files", str(launch.train.resolve())),
        ("data.val_files", str(launch.eval.resolve())),
        ("data.train_batch_size", r["train_batch_size"]),
        ("data.max_prompt_length", r["max_prompt_length"]),
        ("data.max_response_length", r["max_completion_length"]),
        ("data.filter_overlong_prompts", True),
        ("data.truncation", "error"),
        ("actor_rollout_ref.model.path", launch.model),
        ("actor_rollout_ref.model.enable_gradient_checkpointing", True),
        ("actor_rollout_ref.actor.optim.lr", r["learning_rate"]),
        ("actor_rollout_ref.actor.ppo_mini_batch_size", r["mini_batch_size"]),
        ("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", micro),
        ("actor_rollout_ref.actor.ppo_max_token_len_per_gpu", 12288),
        ("actor_rollout_ref.rollout.name", "vllm"),
        ("actor_rollout_ref.rollout.n", r["num_generations"]),
        ("actor_rollout_ref.rollout.tensor_model_parallel_size", 1),
        ("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu", micro),
        ("actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu", micro),
        ("reward.custom_reward_function.path", str(reward_module_path())),
        ("reward.custom_reward_function.name", "compute_score"),
        ("trainer.n_gpus_per_node", launch.gpus_per_node),
        ("trainer.nnodes", launch.nodes),
        ("trainer.total_epochs", int(r["num_train_epochs"])),
        ("trainer.save_freq", r["save_steps"]),
        ("trainer.test_freq", r["eval_steps"]),
        ("trainer.critic_warmup", 0),
        ("trainer.logger", ["console"]),
        ("trainer.project_name", "robustcall"),
        ("trainer.experiment_name", launch.experiment or f"{launch.recipe}-{Path(launch.train).stem}"),
        ("trainer.default_local_dir", str((launch.out / "checkpoints").resolve())),
    ]
    if launch.recipe in VAL_BATCH:
        after = [k for k, _ in items].index("data.train_batch_size") + 1
        items.insert(after, ("data.val_batch_size", VAL_BATCH[launch.recipe]))
    out = [f"{k}={_value(v)}" for k, v in items]
    out += [f"++reward.custom_reward_function.reward_kwargs.{k}={_value(v)}" for k, v in kwargs.items()]
    return out + list(launch.extra)


def command(launch: VerlLaunch, python: str = "python3") -> list[str]:
    """The argv that starts the launch (on a Ray cluster: the same, run on its head node)."""
    return [python, "-m", VERL_ENTRY, *overrides(launch)]


def shell_script(launch: VerlLaunch, ray_address: str | None = None) -> str:
    """A bash script starting the launch; ``ray_address`` joins an existing Ray cluster."""
    lines = ["#!/usr/bin/env bash", "# written by robustcall train verl", "set -euo pipefail"]
    if ray_address:
        lines.append(f"export RAY_ADDRESS={shlex.quote(ray_address)}")
    python, flag, entry, *args = command(launch)
    lines.append(" \\\n  ".join([f"{python} {flag} {entry}", *(shlex.quote(a) for a in args)]))
    return "\n".join(lines) + "\n"


def missing_for_launch() -> list[str]:
    """The modules a launch needs that are not installed (veRL, Ray, Hydra, vLLM)."""
    return [m for m in VERL_REQUIREMENTS if importlib.util.find_spec(m) is None]


def verl_config_dir() -> Path | None:
    """The installed veRL's Hydra config folder (``verl/trainer/config``), if veRL is installed."""
    spec = importlib.util.find_spec("verl")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "trainer" / "config"
    return folder if folder.is_dir() else None


def compose(launch: VerlLaunch) -> Any:
    """veRL's own trainer config with the launch's overrides applied by Hydra (what ``main_ppo``
    composes at start): raises Hydra's error on an override veRL does not accept."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    folder = verl_config_dir()
    if folder is None:
        raise InputError("veRL is not installed: pip install 'robustcall[verl]'")
    args = overrides(launch)
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(folder), version_base=None):
            return hydra_compose(config_name="ppo_trainer", overrides=args)
    except Exception as exc:  # Hydra's override / composition errors (several classes)
        raise InputError(f"veRL's config rejects the launch: {str(exc).splitlines()[0]}") from None
    finally:
        GlobalHydra.instance().clear()
