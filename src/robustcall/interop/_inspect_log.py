"""A run as an Inspect AI eval log (``robustcall export inspect RUN --out LOG``), so that
``inspect view`` browses every record: the conversation, the tools, the model's output (both passes
of a transition type), our verdict with its error mode and detail, and the perturbation as metadata.

Needs the ``inspect`` extra (``inspect-ai``). The log is deterministic: ids come from a digest of
the predictions file and the times from its modification time, so the same run gives the same log.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from robustcall.core import (
    PREDICTIONS,
    RUN_META,
    SCORES,
    InputError,
    Message,
    PredictionRecord,
    ToolCall,
    Verdict,
    read_checkpoint,
    read_jsonl,
    read_run_meta,
    record_key,
    type_info,
)
from robustcall.models import Mode, tool_parameters
from robustcall.run import transition_turns
from robustcall.score import score_records

try:
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalSample,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessage,
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
        GenerateConfig,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.scorer import Score
    from inspect_ai.tool import ToolCall as InspectToolCall
    from inspect_ai.tool import ToolInfo
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("Inspect export needs the `inspect` extra: pip install 'robustcall[inspect]'") from exc

SCORER = "robustcall"


def _calls(calls: Sequence[ToolCall], prefix: str) -> list[InspectToolCall]:
    return [
        InspectToolCall(id=f"{prefix}_{k}", function=c.name, arguments=dict(c.arguments)) for k, c in enumerate(calls)
    ]


def chat_messages(messages: Sequence[Message], ids: str | None = None) -> list[ChatMessage]:
    """Our conversation turns as Inspect chat messages (tool turns answer the calls before them);
    with ``ids``, message ids are ``<ids>/<index>`` instead of random ones."""
    out: list[ChatMessage] = []
    pending: list[str] = []
    for i, msg in enumerate(messages):
        mid = f"{ids}/{i}" if ids is not None else None
        if msg.role == "system":
            out.append(ChatMessageSystem(id=mid, content=msg.content))
        elif msg.role == "user":
            out.append(ChatMessageUser(id=mid, content=msg.content))
        elif msg.role == "assistant":
            calls = _calls(msg.tool_calls or [], f"call_{i}")
            pending = [c.id for c in calls]
            out.append(ChatMessageAssistant(id=mid, content=msg.content, tool_calls=calls or None))
        else:
            call_id = pending.pop(0) if pending else None
            out.append(ChatMessageTool(id=mid, content=msg.content, tool_call_id=call_id, function=msg.name))
    return out


def _tool_infos(rec: PredictionRecord) -> list[ToolInfo]:
    infos = []
    for tool in rec.tools:
        try:
            infos.append(
                ToolInfo(name=tool.name, description=tool.description, parameters=tool_parameters(tool.parameters))
            )
        except ValueError:  # a schema keyword Inspect's ToolParams does not model
            infos.append(ToolInfo(name=tool.name, description=tool.description))
    return infos


def _explanation(v: Verdict) -> str:
    if v.infra_error:
        return f"infra error (excluded from accuracy): {v.infra_error}"
    head = "correct" if v.correct else f"wrong: {v.error_mode or 'other'}"
    return f"{head}; {v.detail}" if v.detail else head


def _count(usage: object, *names: str) -> int | None:
    """The first of ``names`` that ``usage`` (a record or a mapping) holds as a whole number."""
    for name in names:
        value = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def token_usage(pred: object) -> ModelUsage | None:
    """The tokens a prediction records (its ``usage``: input / prompt and output / completion
    tokens), as Inspect counts them; ``None`` when the record has none."""
    usage = getattr(pred, "usage", None)
    if usage is None:
        return None
    tokens_in = _count(usage, "input_tokens", "prompt_tokens")
    tokens_out = _count(usage, "output_tokens", "completion_tokens")
    if tokens_in is None and tokens_out is None:
        return None
    total = _count(usage, "total_tokens")
    tin, tout = tokens_in or 0, tokens_out or 0
    return ModelUsage(input_tokens=tin, output_tokens=tout, total_tokens=total if total is not None else tin + tout)


def _sample(rec: PredictionRecord, verdict: Verdict, model: str, when: str, mode: Mode) -> EvalSample:
    pred = rec.prediction
    conversation = chat_messages(rec.conversation, ids=rec.id)
    info = type_info(verdict.type)
    messages = list(conversation)
    if pred.transition_injected and pred.pass1_raw_output is not None and pred.pass1_tool_calls:
        # pass 1's answer and the injected error as pass 2's prompt carried them (``mode``'s turns)
        follow = transition_turns(rec, mode, pred.pass1_raw_output, pred.pass1_tool_calls[0])
        messages = chat_messages([*rec.conversation, *follow], ids=rec.id)
    answer = ChatMessageAssistant(
        id=f"{rec.id}/{len(messages)}",
        content=pred.raw_output,
        tool_calls=_calls(pred.tool_calls, "out") or None,
        model=model,
    )
    messages.append(answer)
    usage = token_usage(pred)
    seconds = float(pred.latency_s or 0.0)  # both passes of a transition type
    output = ModelOutput(
        model=model, choices=[ChatCompletionChoice(message=answer, stop_reason="stop")], usage=usage, time=seconds
    )
    metadata: dict[str, Any] = {
        "type": verdict.type,
        "type_display": info.display,
        "latency_s": seconds,
        "component": verdict.component,
        "benchmark": rec.benchmark,
        "category": rec.category,
        "source_id": rec.source.original_id,
        "perturbation": rec.perturbation.model_dump(mode="json", exclude_none=True),
        "error_mode": verdict.error_mode,
        "detail": verdict.detail,
        "error_kind": pred.error_kind,
        "transition_injected": pred.transition_injected,
        "pass1_tool_calls": [c.model_dump(mode="json") for c in pred.pass1_tool_calls or []],
        "tools": [t.model_dump(mode="json") for t in rec.tools],
    }
    scores = None
    error = None
    if verdict.infra_error:
        error = EvalError(message=verdict.infra_error, traceback="", traceback_ansi="")
    else:
        scores = {
            SCORER: Score(
                value=1 if verdict.correct else 0,
                answer=json.dumps([c.model_dump(mode="json") for c in pred.tool_calls], ensure_ascii=False),
                explanation=_explanation(verdict),
                metadata={"error_mode": verdict.error_mode, "detail": verdict.detail, "type": verdict.type},
            )
        }
    event = ModelEvent(
        model=model,
        input=conversation,
        tools=_tool_infos(rec),
        tool_choice="auto",
        config=GenerateConfig(),
        output=output,
        timestamp=when,
        uuid=f"{rec.id}/model",
        working_start=0.0,
        working_time=seconds,
        completed=when,
    )
    return EvalSample(
        id=rec.id,
        epoch=1,
        input=conversation,
        target=json.dumps([g.model_dump(mode="json") for g in rec.golden_answers], ensure_ascii=False),
        messages=messages,
        output=output,
        scores=scores,
        metadata=metadata,
        error=error,
        events=[event],
        total_time=seconds,
        working_time=seconds,
        model_usage={model: usage} if usage is not None else {},
    )


def _accuracy(verdicts: Sequence[Verdict]) -> float:
    scored = [v for v in verdicts if v.correct is not None and not v.infra_error]
    return sum(1 for v in scored if v.correct) / len(scored) if scored else 0.0


def load_run(run_dir: Path) -> tuple[dict[str, Any], list[PredictionRecord], list[Verdict]]:
    """A run's meta, records (last per key, in file order) and verdicts (``scores.jsonl`` when the run
    was scored, else scored now), matched by record."""
    path = run_dir / PREDICTIONS
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: is {run_dir} a run directory?")
    meta_path = run_dir / RUN_META
    # as the file gives it (a newer format is refused)
    meta: dict[str, Any] = (
        read_run_meta(meta_path).model_dump(mode="json", exclude_unset=True) if meta_path.is_file() else {}
    )
    by_key: dict[tuple[str, str], PredictionRecord] = {}
    for rec in read_checkpoint(path, PredictionRecord):
        by_key[record_key(rec)] = rec
    records = list(by_key.values())
    scores = run_dir / SCORES
    if scores.is_file():
        stored = {(v.id, v.type): v for v in read_jsonl(scores, Verdict)}
        if all(k in stored for k in by_key):
            return meta, records, [stored[k] for k in by_key]
    return meta, records, score_records(records)


def _total_usage(samples: Sequence[EvalSample], model: str) -> dict[str, ModelUsage]:
    """The run's tokens over every sample that recorded them (none: an empty mapping)."""
    used = [s.model_usage[model] for s in samples if model in s.model_usage]
    if not used:
        return {}
    return {
        model: ModelUsage(
            input_tokens=sum(u.input_tokens for u in used),
            output_tokens=sum(u.output_tokens for u in used),
            total_tokens=sum(u.total_tokens for u in used),
        )
    }


def export_inspect(run_dir: Path, out: Path) -> EvalLog:
    """Write ``run_dir`` as an Inspect eval log at ``out`` (``.eval`` or ``.json``); return the log."""
    if out.suffix not in (".eval", ".json"):
        raise InputError(f"{out}: an Inspect log is written as .eval or .json, not {out.suffix or 'a bare name'}")
    meta, records, verdicts = load_run(run_dir)
    digest = hashlib.sha256((run_dir / PREDICTIONS).read_bytes()).hexdigest()
    stamp = datetime.fromtimestamp((run_dir / PREDICTIONS).stat().st_mtime, tz=UTC).isoformat()
    model = str(meta.get("model_name") or meta.get("model") or (records[0].model if records else "unknown"))
    mode: Mode = "fc" if meta.get("mode") == "fc" else "prompt"  # the mode pass 2's prompt was built in
    samples = [_sample(r, v, model, stamp, mode) for r, v in zip(records, verdicts, strict=True)]
    by_type: dict[str, list[Verdict]] = {}
    for v in verdicts:
        by_type.setdefault(v.type, []).append(v)
    metrics = {"accuracy": EvalMetric(name="accuracy", value=_accuracy(verdicts))}
    for code, group in by_type.items():  # the paper's names, as score, report and the card print them
        name = type_info(code).display
        metrics[name] = EvalMetric(name=name, value=_accuracy(group), metadata={"type": code})
    scored = sum(1 for v in verdicts if not v.infra_error)
    bench = str(meta.get("bench") or "")
    spec = EvalSpec(
        eval_id=digest[:22],
        run_id=digest[22:44],
        task_id=digest[44:64],
        created=stamp,
        task="robustcall/robustbench",
        task_args={k: meta.get(k) for k in ("bench", "types", "limit", "shard") if meta.get(k) is not None},
        dataset=EvalDataset(
            name=Path(bench).name or None,
            location=bench or None,
            samples=len(samples),
            sample_ids=[s.id for s in samples],  # read_eval_log_samples streams a log by these
        ),
        model=model,
        model_base_url=meta.get("base_url"),
        config=EvalConfig(),
        metadata={"robustcall_run": str(run_dir), "run": meta},
    )
    log = EvalLog(
        status="success",
        eval=spec,
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=scored,
            scores=[
                EvalScore(
                    name=SCORER,
                    scorer=SCORER,
                    scored_samples=scored,
                    unscored_samples=len(samples) - scored,
                    metrics=metrics,
                )
            ],
        ),
        stats=EvalStats(started_at=stamp, completed_at=stamp, model_usage=_total_usage(samples, model)),
        samples=samples,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out))
    return log
