"""Replay: answer from a predictions file's stored raw text, to re-parse and re-score without inference."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from robustcall.core import ErrorKind, OutputCut, ToolCall, iter_json_lines, validate_line
from robustcall.models._api import Mode, ModelRequest, ModelResponse


class _StoredPrediction(BaseModel):
    model_config = ConfigDict(extra="ignore")

    raw_output: str = ""
    raw_output_cut: OutputCut | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    error: str | None = None
    error_kind: ErrorKind | None = None
    transition_injected: bool | None = None
    pass1_raw_output: str | None = None
    pass1_raw_output_cut: OutputCut | None = None
    pass1_tool_calls: list[ToolCall] | None = None

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _null_is_not_given(cls, value: object) -> object:
        return [] if value is None else value  # released files write null: the text is parsed instead


class _StoredRecord(BaseModel):
    """The part of a ``PredictionRecord`` replay reads; other fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    id: str
    prediction: _StoredPrediction


class ReplayModel:
    """A ``ChatModel`` that returns what a previous run's model said on each sample and pass.

    Pass 0 of a transition record is its ``pass1_raw_output`` (the scored text is pass 2); every
    other record's pass 0 is ``raw_output``. In prompt mode only the text is replayed
    (``tool_calls=None``) so the current parser reads it again, except for records with no text but
    structured calls; in fc mode (by default the replayed run's own) the stored calls are replayed.
    """

    def __init__(self, path: Path, *, mode: Mode = "prompt") -> None:
        self.path = Path(path)
        self.name = f"replay:{path}"
        self.mode: Mode = mode
        self._records: dict[str, _StoredPrediction] = {}
        for lineno, obj in iter_json_lines(self.path):
            rec = validate_line(self.path, lineno, obj, _StoredRecord)
            self._records[rec.id] = rec.prediction

    def __len__(self) -> int:
        return len(self._records)

    async def complete(self, req: ModelRequest) -> ModelResponse:
        pred = self._records.get(req.sample.id)
        if pred is None:
            return _missing(f"sample {req.sample.id!r} not in replay file {self.path}")
        if pred.error_kind == "infra":
            return _missing(f"replayed infra error: {pred.error}")
        two_pass = bool(pred.transition_injected)
        if req.pass_index == 0:
            text = (pred.pass1_raw_output or "") if two_pass else pred.raw_output
            calls = (pred.pass1_tool_calls or []) if two_pass else pred.tool_calls
            error, kind = (None, None) if two_pass else (pred.error, pred.error_kind)
            cut = pred.pass1_raw_output_cut if two_pass else pred.raw_output_cut
        elif two_pass:
            text, calls, error, kind = pred.raw_output, pred.tool_calls, pred.error, pred.error_kind
            cut = pred.raw_output_cut
        else:
            return _missing(f"sample {req.sample.id!r}: pass {req.pass_index} not in replay file {self.path}")
        # fc: the calls the run read are the answer (a text beside them, or a text with none, was not
        # read as calls there, and re-reading it would ask for a transition's pass 2 never made). A
        # text kept cut (longer than the parser reads) is not read again either: its calls are the
        # run's (none), and its error the run's refusal
        structured = list(calls) if self.mode == "fc" or (not text and calls) or cut is not None else None
        return ModelResponse(text=text or "", tool_calls=structured, error=error, error_kind=kind)

    async def aclose(self) -> None:
        return None


def _missing(reason: str) -> ModelResponse:
    return ModelResponse(text="", tool_calls=None, error=reason, error_kind="infra")
