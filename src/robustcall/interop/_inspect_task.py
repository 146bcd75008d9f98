"""RobustBench-TC as an Inspect AI task: the dataset is a built benchmark, the solver is our own
answer path (prompt rendering, tolerant parsing, the two-pass transition harness) over whatever
model Inspect was given, and the scorer is ours.

``inspect eval robustcall/inspect_task.py@robustbench -T bench=bench -T types=static --model ...``
(or ``robustcall.inspect_task.robustbench`` from Python). Needs the ``inspect`` extra.
"""

from __future__ import annotations

import json
from pathlib import Path

from robustcall.core import DEFAULTS, Prediction, PredictionRecord, Sample
from robustcall.interop._inspect_log import chat_messages
from robustcall.models import Mode, ModelRequest, ModelResponse
from robustcall.run import answer, parse_types, plan_work
from robustcall.score import score_records

try:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.dataset import Sample as InspectSample
    from inspect_ai.model import ChatMessageAssistant, GenerateConfig, Model, ModelOutput, get_model
    from inspect_ai.scorer import Score, Scorer, Target, accuracy, grouped, scorer
    from inspect_ai.solver import Generate, Solver, TaskState, solver
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("the Inspect task needs the `inspect` extra: pip install 'robustcall[inspect]'") from exc

RECORD = "robustcall_sample"
PREDICTION = "robustcall_prediction"


class InspectChatModel:
    """Inspect's model behind our ``ChatModel`` interface, in prompt mode (tools rendered into the
    system prompt, the answer parsed by robustcall), at temperature 0 and 1024 tokens (Table 15)."""

    mode: Mode = "prompt"

    def __init__(self, model: Model, max_tokens: int = DEFAULTS.max_tokens) -> None:
        self._model = model
        self.name = f"inspect:{model}"
        self._config = GenerateConfig(temperature=DEFAULTS.temperature, max_tokens=max_tokens)

    async def complete(self, req: ModelRequest) -> ModelResponse:
        out = await self._model.generate(chat_messages(req.messages), config=self._config)
        if out.error:
            return ModelResponse(text="", tool_calls=None, error=out.error, error_kind="infra")
        return ModelResponse(text=out.completion, tool_calls=None)

    async def aclose(self) -> None:
        return None


@solver
def robustcall_solver() -> Solver:
    """Answer the sample as ``robustcall run`` does (both passes for a transition type)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        sample = Sample.model_validate(state.metadata[RECORD])
        pred = await answer(sample, InspectChatModel(get_model()))
        state.metadata[PREDICTION] = pred.model_dump(mode="json", exclude_none=True)
        message = ChatMessageAssistant(content=pred.raw_output)
        state.messages.append(message)
        state.output = ModelOutput.from_content(str(get_model()), pred.raw_output)
        return state

    return solve


@scorer(metrics=[accuracy(), grouped(accuracy(), "type")])
def robustcall_scorer() -> Scorer:
    """Our deterministic verdict: 1 correct, 0 wrong, with the error mode and detail as explanation."""

    async def score(state: TaskState, target: Target) -> Score:
        sample = Sample.model_validate(state.metadata[RECORD])
        pred = Prediction.model_validate(state.metadata[PREDICTION])
        (verdict,) = score_records([PredictionRecord(**dict(sample), prediction=pred)])
        explanation = "correct" if verdict.correct else f"wrong: {verdict.error_mode or 'other'}"
        if verdict.infra_error:
            explanation = f"infra error: {verdict.infra_error}"
        elif verdict.detail:
            explanation += f"; {verdict.detail}"
        return Score(
            value=1 if verdict.correct else 0,
            answer=json.dumps([c.model_dump(mode="json") for c in pred.tool_calls], ensure_ascii=False),
            explanation=explanation,
            metadata={"error_mode": verdict.error_mode, "type": verdict.type, "infra_error": verdict.infra_error},
        )

    return score


def robustbench_task(bench: str, types: str | list[str] = "all", limit: int | None = None) -> Task:
    """The task over ``bench`` (a directory written by ``robustcall build``), the ``types`` of
    ``robustcall run --types`` and its ``--limit`` (the first N clean samples, paired across types)."""
    spec = types if isinstance(types, str) else ",".join(types)  # ``-T types=a,b`` arrives as a list
    items = plan_work(Path(bench), parse_types(spec), None if limit is None else int(limit))
    samples = [
        InspectSample(
            id=it.sample.id,
            input=it.sample.conversation[it.sample.last_user_index()].content,
            target=json.dumps([g.model_dump(mode="json") for g in it.sample.golden_answers], ensure_ascii=False),
            metadata={"type": it.type, "benchmark": it.sample.benchmark, RECORD: it.sample.model_dump(mode="json")},
        )
        for it in items
    ]
    return Task(
        dataset=MemoryDataset(samples, name=Path(bench).name, location=str(bench)),
        solver=robustcall_solver(),
        scorer=robustcall_scorer(),
        name="robustbench",
    )
