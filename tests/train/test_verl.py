"""The veRL reward module against ``train grpo``'s rewards, value for value, through veRL's own loader.

Rows are DR-Full rows built from ToolRL's rlla test split (../shared/data, read in place); each row
gets a correct, two partially correct and two malformed completions (400 in all). The tests that need
veRL skip with a reason where it is not installed (CI installs it: .ci/run).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.rewards import load_scorer
from robustcall.rewards._pooling import RewardEndpointError
from robustcall.train import VerlLaunch, build_dr_data, compose_verl, load_rows, reward_functions, verl_overrides
from robustcall.train._grpo_data import grpo_rows
from robustcall.train.verl_reward import compute_score, compute_score_batch

TEST = "toolrl/dataset/rlla_4k/test.parquet"


@pytest.fixture(scope="module")
def dr_full(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = shared_data / TEST
    if not src.is_file():
        pytest.skip("ToolRL rlla data not found under ../shared/data/toolrl")
    out = tmp_path_factory.mktemp("dr")
    build_dr_data([src], out, seed=0)
    return out / "dr_full" / "test.parquet"


def _variants(gt: str) -> list[str]:
    """A correct, two partially correct and two malformed completions for ground truth ``gt``."""
    out = [gt]
    a, b = gt.find("<tool_call>"), gt.find("</tool_call>")
    if a >= 0 and b > a:
        lines = [ln for ln in gt[a + len("<tool_call>") : b].strip().splitlines() if ln.strip()]
        calls = [json.loads(ln) for ln in lines]
        first = calls[0]
        wrong_value = {**first, "parameters": {k: f"{v}x" for k, v in first["parameters"].items()}}
        dropped = {**first, "parameters": dict(list(first["parameters"].items())[:-1])}
        for changed in (wrong_value, dropped):
            block = "\n".join(json.dumps(c) for c in [changed, *calls[1:]])
            out.append(gt[:a] + "<tool_call>\n" + block + "\n" + gt[b:])
        out.append(gt[:a] + "<tool_call>\n{not json\n" + gt[b:])  # malformed call line
    else:
        out += [gt.replace("<response>", "<response>Sure. "), gt + "\n<tool_call>\n{}\n</tool_call>", gt[:10]]
    out.append("no tags at all")  # format 0
    return out


def _grpo_values(rows: list[dict[str, Any]], names: list[str], scorer: str | None = None) -> list[float]:
    """What ``train grpo`` (TRL) computes: the sum of its reward functions for each completion."""
    fns = reward_functions(names, scorer)
    values: list[float] = []
    for row in rows:
        for text in _variants(row["ground_truth"]):
            cols = {
                "prompts": [row["prompt"]],
                "completions": [[{"role": "assistant", "content": text}]],
                "ground_truth": [row["ground_truth"]],
                "tools": [row["tools"]],
            }
            values.append(sum(fn(**cols)[0] for fn in fns))
    return values


def _verl_calls(parquet: Path) -> list[dict[str, Any]]:
    """The keyword arguments veRL's naive reward manager passes, per completion."""
    calls = []
    for row in load_rows(parquet):
        info = {**row["extra_info"], "num_turns": None, "rollout_reward_scores": {}}
        for text in _variants(row["reward_model"]["ground_truth"]):
            calls.append(
                {
                    "data_source": row["data_source"],
                    "solution_str": text,
                    "ground_truth": row["reward_model"]["ground_truth"],
                    "extra_info": info,
                }
            )
    return calls


@pytest.mark.parametrize("names", [["toolrl_format", "toolrl_correctness"], ["toolrl_format", "schema"]])
def test_compute_score_equals_grpo_reward(dr_full: Path, names: list[str]) -> None:
    expected = _grpo_values(grpo_rows(dr_full), names)
    got = [compute_score(**c, rewards=names)["score"] for c in _verl_calls(dr_full)]
    assert len(got) >= 200
    assert got == expected
    assert {v for v in got if v < 0} and {v for v in got if v == 4.0 or v == 2.0}  # all kinds present
    calls = _verl_calls(dr_full)
    batch = compute_score_batch(
        [c["data_source"] for c in calls],
        [c["solution_str"] for c in calls],
        [c["ground_truth"] for c in calls],
        [c["extra_info"] for c in calls],
        rewards=names,
    )
    assert [b["score"] for b in batch] == expected


def _verl_loader() -> Any:
    pytest.importorskip("hydra", reason="hydra-core is not installed (pip install 'robustcall[verl]')")
    reward = pytest.importorskip("verl.trainer.ppo.reward", reason="veRL is not installed (robustcall[verl])")
    return reward.get_custom_reward_fn


def _launch(dr_full: Path, tmp_path: Path, **kw: Any) -> VerlLaunch:
    return VerlLaunch(model="Qwen/Qwen2.5-0.5B-Instruct", train=dr_full, eval=dr_full, out=tmp_path, **kw)


def test_verl_loads_our_reward_and_matches_grpo(dr_full: Path, tmp_path: Path) -> None:
    get_custom_reward_fn = _verl_loader()
    cfg = compose_verl(_launch(dr_full, tmp_path, recipe="toolrl-dr"))  # veRL's own config parser
    assert cfg.data.train_batch_size == 64 and cfg.actor_rollout_ref.actor.ppo_mini_batch_size == 32
    assert cfg.actor_rollout_ref.rollout.n == 4 and cfg.trainer.total_epochs == 3
    # ToolRL's launch as veRL resolves it: KL in the reward, dynamic batching bound by 12,288 tokens / GPU
    assert cfg.algorithm.use_kl_in_reward and not cfg.actor_rollout_ref.actor.use_kl_loss
    assert cfg.algorithm.kl_ctrl.kl_coef == 0.001 and cfg.algorithm.kl_penalty == "kl"
    assert cfg.actor_rollout_ref.actor.use_dynamic_bsz and cfg.actor_rollout_ref.ref.log_prob_use_dynamic_bsz
    assert cfg.actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu == 12288
    fn = get_custom_reward_fn(cfg)
    got = [fn(**c)["score"] for c in _verl_calls(dr_full)]
    assert got == _grpo_values(grpo_rows(dr_full), ["toolrl_format", "toolrl_correctness"])


class _RewardModel(BaseHTTPRequestHandler):
    """vLLM's /pooling answer for a one-label classifier: a logit from the assistant turn's text."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        if self.path != "/pooling":
            self.send_error(404)
            return
        answer = body["messages"][-1]["content"]
        logit = (len(answer) % 17) / 4.0 - 2.0 + (1.0 if "```json" in answer else 0.0)
        data = json.dumps({"data": [{"index": 0, "data": [logit]}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def reward_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RewardModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_toolrm_reward_through_a_pooling_endpoint(dr_full: Path, reward_server: str) -> None:
    spec = f"pooling:toolrm@{reward_server}"
    names = ["toolrl_format", "toolrm"]
    rows = grpo_rows(dr_full)[:12]
    expected = _grpo_values(rows, names, spec)
    calls = [c for c in _verl_calls(dr_full) if any(c["ground_truth"] == r["ground_truth"] for r in rows)]
    got = [compute_score(**c, rewards=names, toolrm_scorer=spec)["score"] for c in calls]
    assert got == expected and len(set(got)) > 3
    system = _RewardModel.seen[-1]["messages"][0]["content"]
    assert _RewardModel.seen[-1]["model"] == "toolrm" and "tools" not in _RewardModel.seen[-1]
    assert system.startswith("You are") and "[\n    {" in system  # Listing 1's catalog


def test_pooling_endpoint_down_is_an_infrastructure_error() -> None:
    scorer = load_scorer("pooling:toolrm@http://127.0.0.1:9/v1")
    scorer.max_retries = 1  # type: ignore[attr-defined]
    scorer.backoff_base_s = 0.01  # type: ignore[attr-defined]
    with pytest.raises(RewardEndpointError, match=r"reward model at http://127\.0\.0\.1:9/pooling failed") as exc:
        scorer.score([], [], ["x"])
    assert exc.value.exit_code == 3


def test_overrides_are_the_recipes(dr_full: Path, tmp_path: Path) -> None:
    dr = dict(o.split("=", 1) for o in verl_overrides(_launch(dr_full, tmp_path, recipe="toolrl-dr")))
    assert dr["data.train_batch_size"] == "64" and dr["actor_rollout_ref.actor.ppo_mini_batch_size"] == "32"
    assert dr["actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"] == "16"
    assert dr["actor_rollout_ref.actor.ppo_max_token_len_per_gpu"] == "12288"
    # ToolRL's run_grpo.sh (8cee13e): use_kl_loss=False, use_dynamic_bsz=True, algorithm.kl_ctrl.kl_coef=0.001;
    # its ray_trainer.py then puts the KL penalty (estimator 'kl', fixed controller) in the reward
    toolrl = {
        "actor_rollout_ref.actor.use_kl_loss": "false",
        "actor_rollout_ref.actor.use_dynamic_bsz": "true",
        "algorithm.kl_ctrl.kl_coef": "0.001",
        "algorithm.kl_ctrl.type": "fixed",
        "algorithm.kl_penalty": "kl",
        "algorithm.use_kl_in_reward": "true",
    }
    assert {k: dr[k] for k in toolrl} == toolrl
    assert not {k for k in dr if "kl_loss_" in k}  # no KL-loss settings that would not apply
    assert dr["trainer.save_freq"] == "5" and dr["trainer.test_freq"] == "10"
    assert dr["++reward.custom_reward_function.reward_kwargs.rewards"] == "[toolrl_format,toolrl_correctness]"
    rm = dict(
        o.split("=", 1)
        for o in verl_overrides(_launch(dr_full, tmp_path, recipe="toolrm", toolrm_scorer="pooling:rm@http://h:1/v1"))
    )
    assert rm["data.train_batch_size"] == "512" and rm["actor_rollout_ref.actor.ppo_mini_batch_size"] == "128"
    assert rm["trainer.total_epochs"] == "15" and rm["data.val_batch_size"] == "128"
    assert rm["++reward.custom_reward_function.reward_kwargs.toolrm_scorer"] == "'pooling:rm@http://h:1/v1'"
    assert {k: rm[k] for k in toolrl} == toolrl  # ToolRM trains with ToolRL's code base too (004, Appendix)
    assert list(rm).index("data.val_batch_size") == list(rm).index("data.train_batch_size") + 1


def test_cli_dry_run_writes_a_launch_veRL_accepts(dr_full: Path, tmp_path: Path) -> None:
    out = tmp_path / "launch"
    args = ["train", "verl", "--train", str(dr_full), "--eval", str(dr_full), "--out", str(out), "--dry-run"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    script = (out / "verl_launch.sh").read_text()
    assert "-m verl.trainer.main_ppo" in script and "reward.custom_reward_function.name=compute_score" in script
    assert script in res.output


def test_cli_refuses_what_verl_would_reject(dr_full: Path, tmp_path: Path) -> None:
    base = ["train", "verl", "--train", str(dr_full), "--eval", str(dr_full), "--out", str(tmp_path), "--dry-run"]
    res = CliRunner().invoke(app, [*base, "--reward", "toolrm"])
    assert res.exit_code == 2 and "needs --toolrm-scorer" in res.output  # a command-line mistake
    res = CliRunner().invoke(app, [*base, "--gpus", "3"])
    assert res.exit_code == 1 and "do not divide" in res.output
    res = CliRunner().invoke(app, [*base, "--gpus", "8", "--nodes", "2"])  # README's launch
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, [*base[:3], str(tmp_path / "missing.parquet"), *base[4:]])
    assert res.exit_code == 1 and "No such file or directory" in res.output


@pytest.mark.parametrize("recipe", ["toolrl-dr", "toolrm"])
def test_the_batch_check_is_verls_own(dr_full: Path, tmp_path: Path, recipe: str) -> None:
    """Our refusal of a GPU count equals veRL's: its validate_config, then the actor's even split
    of each mini-batch's rollouts over the GPUs (engine_workers.py), on every count up to 3 x 16."""
    _verl_loader()
    from omegaconf import open_dict
    from verl.utils.config import validate_config

    from robustcall.core import InputError
    from robustcall.train._verl import check_launch

    kw: dict[str, Any] = {"recipe": recipe, "toolrm_scorer": "schema" if recipe == "toolrm" else None}
    cfg = compose_verl(_launch(dr_full, tmp_path, **kw))
    mini = cfg.actor_rollout_ref.actor.ppo_mini_batch_size * cfg.actor_rollout_ref.rollout.n
    refused = {True: 0, False: 0}
    for nodes in (1, 2, 3):
        for gpus in range(1, 17):
            with open_dict(cfg):
                cfg.trainer.n_gpus_per_node, cfg.trainer.nnodes = gpus, nodes
            try:
                validate_config(cfg, use_reference_policy=True, use_critic=False)
                verl_refuses = mini % (gpus * nodes) != 0
            except (AssertionError, ValueError):
                verl_refuses = True
            try:
                check_launch(_launch(dr_full, tmp_path, gpus_per_node=gpus, nodes=nodes, **kw))
                we_refuse = False
            except InputError:
                we_refuse = True
            assert we_refuse == verl_refuses, (gpus, nodes)
            refused[we_refuse] += 1
    assert refused[True] and refused[False]
