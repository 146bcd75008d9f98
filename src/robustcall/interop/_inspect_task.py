"""RobustBench-TC as an Inspect AI task: the dataset is a built benchmark, the solver is our own
answer path (prompt rendering, tolerant parsing, the two-pass transition harness) over whatever
model Inspect was given, and the scorer is ours.

``inspect eval robustcall/robustbench --model openai/<name> --model-base-url URL`` (the task is
registered under Inspect's ``inspect_ai`` entry point; ``robustcall.inspect_task.robustbench`` from
Python). Needs the ``inspect`` extra.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

from robustcall.core import CLEAN_SAMPLES, DEFAULTS, InputError, Prediction, PredictionRecord, Sample, type_info
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

try:  # Inspect's own rules; private modules, so a later Inspect without them leaves models as given
    from inspect_ai._util.error import PrerequisiteError
    from inspect_ai.model._openai import is_latest_model
    from inspect_ai.model._providers.openai import OpenAIAPI
except ImportError:  # pragma: no cover - depends on the installed Inspect
    PrerequisiteError = InputError  # type: ignore[misc,assignment]
    OpenAIAPI = None  # type: ignore[misc,assignment]

RECORD = "robustcall_sample"
PREDICTION = "robustcall_prediction"
DEFAULT_BENCHES = (Path("bench"), Path("runs/bench/bench"))
"""The task's default benchmark, the first that exists (relative to the working directory): README's
``robustcall build ... --out bench``, then where ``robustcall bench`` builds it."""
CHAT_SERVICE = "openai"
"""The service part of the ``openai-api/<service>/<name>`` model :func:`served_model` substitutes."""


def served_model(model: Model) -> Model:
    """The model to ask: ``model`` itself, except Inspect's ``openai/<name>`` for a name Inspect does
    not know as an OpenAI model, served at a base URL other than OpenAI's (a vLLM, SGLang or
    llama.cpp server). Inspect takes such a name for OpenAI's newest model: it sends it to the
    Responses API, which those servers lack, and drops the temperature. The same server and key
    through Inspect's generic ``openai-api`` provider instead: chat completions, temperature sent.
    ``-M responses_api=true`` keeps Inspect's choice."""
    api = model.api
    if OpenAIAPI is None or not isinstance(api, OpenAIAPI) or model.model_args.get("responses_api") is True:
        return model
    host = urlsplit(str(api.client.base_url)).hostname or ""
    if api.service is not None or host.endswith("openai.com") or not is_latest_model(api.model_name):
        return model
    return get_model(
        f"openai-api/{CHAT_SERVICE}/{api.model_name}",
        base_url=str(api.client.base_url),
        api_key=api.api_key or "none",
        config=model.config,
    )


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
        pred = await answer(sample, InspectChatModel(served_model(get_model())))
        state.metadata[PREDICTION] = pred.model_dump(mode="json", exclude_none=True)
        message = ChatMessageAssistant(content=pred.raw_output)
        state.messages.append(message)
        state.output = ModelOutput.from_content(str(get_model()), pred.raw_output)
        return state

    return solve


@scorer(metrics=[accuracy(), grouped(accuracy(), "type_display")])  # the paper's names; the code is "type"
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


def robustbench_task(bench: str | None = None, types: str | list[str] = "all", limit: int | None = None) -> Task:
    """The task over ``bench`` (a directory written by ``robustcall build``; default: the first of
    :data:`DEFAULT_BENCHES` that holds one), the ``types`` of ``robustcall run --types`` and its
    ``--limit`` (the first N clean samples, paired across types)."""
    if bench is None:
        found = [d for d in DEFAULT_BENCHES if (d / CLEAN_SAMPLES).is_file()]
        if not found:
            raise PrerequisiteError(
                f"robustbench: no benchmark in ./{DEFAULT_BENCHES[0]} or ./{DEFAULT_BENCHES[1]} (the defaults); "
                "pass -T bench=DIR, a folder written by `robustcall build`"
            )
        bench = str(found[0])
    spec = types if isinstance(types, str) else ",".join(types)  # ``-T types=a,b`` arrives as a list
    items = plan_work(Path(bench), parse_types(spec, Path(bench)), None if limit is None else int(limit))
    samples = [
        InspectSample(
            id=it.sample.id,
            input=it.sample.conversation[it.sample.last_user_index()].content,
            target=json.dumps([g.model_dump(mode="json") for g in it.sample.golden_answers], ensure_ascii=False),
            metadata={
                "type": it.type,
                "type_display": type_info(it.type).display,
                "benchmark": it.sample.benchmark,
                RECORD: it.sample.model_dump(mode="json"),
            },
        )
        for it in items
    ]
    return Task(
        dataset=MemoryDataset(samples, name=Path(bench).name, location=str(bench)),
        solver=robustcall_solver(),
        scorer=robustcall_scorer(),
        name="robustbench",
    )
