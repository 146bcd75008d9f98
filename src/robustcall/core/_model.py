"""The shared data model: every package speaks about these records.

Sample records round-trip the RobustBench-TC release record shape:
``id, benchmark, category, source, perturbation, conversation, tools, golden_answers, eval_config``.
Prediction records are a sample plus a ``prediction`` block.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal, TypeVar, get_args

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter, field_validator

Component = Literal["clean", "observation", "action", "reward", "transition"]
"""The POMDP component a perturbation acts on (``clean`` for the unperturbed baseline)."""

Role = Literal["system", "user", "assistant", "tool"]

ScoreMethod = Literal[
    "bfcl_ast", "apibank", "rotbench", "toolalpaca", "tooleyes", "exact", "bfcl_multi_turn", "bfcl_agentic"
]
"""Which deterministic scorer judges a sample (Appendix I); ``bfcl_multi_turn`` / ``bfcl_agentic``: an
imported BFCL multi-turn / memory or web-search result entry (its ``raw_output`` the entry's
``result`` as JSON), judged by BFCL's checker."""

ErrorMode = Literal["empty", "omitted", "name_bias", "param_mismatch", "wrong", "other"]
"""Appendix L error modes of an incorrect prediction."""

ErrorKind = Literal["infra", "model_format"]
"""``infra``: the endpoint failed, excluded from accuracy; ``model_format``: the server refused
the model's own output (e.g. llama.cpp's 500 on text that misses the tool-call grammar), scored."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ToolSpec(BaseModel):
    """A tool the agent may call: name, description and a JSON-schema ``parameters`` object."""

    model_config = ConfigDict(extra="allow")

    name: str
    """The callable name, e.g. ``mutation_type.find``."""
    description: str = ""
    """Natural-language description shown to the model."""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON schema of the arguments (BFCL writes ``"type": "dict"``; kept as given)."""

    def properties(self) -> dict[str, Any]:
        """Parameter name -> property schema, in declaration order."""
        props = self.parameters.get("properties") or {}
        return dict(props) if isinstance(props, dict) else {}

    def required(self) -> list[str]:
        """Names of required parameters."""
        req = self.parameters.get("required") or []
        return [str(r) for r in req] if isinstance(req, list) else []


class ToolCall(_Record):
    """One call: a tool name and its arguments (serialised as ``parameters``, as in the release)."""

    name: str
    arguments: dict[str, Any] = Field(
        default_factory=dict,
        validation_alias=AliasChoices("arguments", "parameters"),
        serialization_alias="parameters",
    )


_M = TypeVar("_M", bound=BaseModel)


# BaseModel's four slots, set through their own descriptors: each set costs about 0.1 µs less than
# through ``object.__setattr__`` (which looks the descriptor up again), and records are built per row
_SET_DICT: Any = vars(BaseModel)["__dict__"].__set__
_SET_FIELDS_SET: Any = vars(BaseModel)["__pydantic_fields_set__"].__set__
_SET_EXTRA: Any = vars(BaseModel)["__pydantic_extra__"].__set__
_SET_PRIVATE: Any = vars(BaseModel)["__pydantic_private__"].__set__


def _unvalidated(cls: type[_M], values: dict[str, Any], given: set[str], extra: dict[str, Any] | None = None) -> _M:
    """``cls(**{k: values[k] for k in given})`` without pydantic's validation, for values the caller
    has checked to have their declared types (``values``: every field of ``cls``, in declaration
    order, defaults filled in). The object is the one validation builds: the same fields, the same
    ``model_fields_set``, equal and dumped alike; ``model_construct`` does this too, slower."""
    obj = cls.__new__(cls)
    _SET_DICT(obj, values)
    _SET_FIELDS_SET(obj, given)
    _SET_EXTRA(obj, extra)  # a model that allows extra fields keeps them here (ToolSpec)
    _SET_PRIVATE(obj, None)
    return obj


_CALL_FIELDS = {"name", "arguments"}  # copied for each call, as _VERDICT_GIVEN below
_STR = frozenset({str})


def read_call(name: str, arguments: dict[str, Any]) -> ToolCall:
    """``ToolCall(name=name, arguments=arguments)`` for a call the parser read: a plain ``str`` name
    and a ``dict`` with ``str`` keys (what the readers give) skip the validation, which would only
    copy the dict (a third of the cost: the per-record path builds one per call); anything else is
    validated."""
    # the keys' types gathered by C code (map), not by a Python-level generator
    if type(name) is str and type(arguments) is dict and set(map(type, arguments)) <= _STR:
        return _unvalidated(ToolCall, {"name": name, "arguments": dict(arguments)}, _CALL_FIELDS.copy())
    return ToolCall(name=name, arguments=arguments)


class GoldenAnswer(_Record):
    """One expected call.

    ``parameters`` holds one canonical value per argument (a call a user could make).
    ``acceptable`` holds BFCL's possible-answer form when the source has it: per parameter the
    list of acceptable values, where ``""`` means the parameter may be omitted.
    """

    name: str
    parameters: dict[str, Any] = Field(default_factory=dict)
    acceptable: dict[str, list[Any]] | None = None

    def as_call(self) -> ToolCall:
        return ToolCall(name=self.name, arguments=dict(self.parameters))


class Usage(_Record):
    """The tokens one answer cost, as the server counted them (OpenAI's ``usage`` block): summed over
    every request a record made (both passes of a transition type, every step of an episode)."""

    prompt_tokens: int = 0
    """Input tokens (``usage.prompt_tokens``)."""
    completion_tokens: int = 0
    """Output tokens (``usage.completion_tokens``)."""
    cached_tokens: int | None = None
    """Input tokens served from the server's prompt cache (``usage.prompt_tokens_details.cached_tokens``,
    or llama.cpp's ``timings.cache_n``), where the server says; ``None``: it did not."""
    requests: int = 1
    """The server answers these counts are the sum of."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        cached = (
            None
            if self.cached_tokens is None and other.cached_tokens is None
            else (self.cached_tokens or 0) + (other.cached_tokens or 0)
        )
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=cached,
            requests=self.requests + other.requests,
        )


def add_usage(a: Usage | None, b: Usage | None) -> Usage | None:
    """``a + b`` where both are known, else whichever is (``None``: the server gave neither)."""
    if a is None:
        return b
    return a if b is None else a + b


class Message(_Record):
    """One conversation turn."""

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] | None = None
    """Calls an assistant turn made (multi-turn transcripts only)."""
    name: str | None = None
    """Tool name of a ``tool`` turn."""


class SourceInfo(_Record):
    """Where a sample came from."""

    original_id: str
    benchmark: str
    file: str = ""
    extra: dict[str, Any] = Field(default_factory=dict)


class PerturbationInfo(_Record):
    """Which perturbation produced a sample (``type="clean"`` for the baseline)."""

    type: str = "clean"
    mdp_category: Component = "clean"
    variant: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class EvalConfig(_Record):
    """How a sample is scored."""

    method: ScoreMethod
    output_format: str | None = None
    """Prompt-mode output format of the source benchmark (``bfcl``, ``tool_call``, ``react``)."""


class Sample(_Record):
    """One benchmark item in the RobustBench-TC release record shape."""

    id: str
    benchmark: str
    category: str
    source: SourceInfo
    perturbation: PerturbationInfo = Field(default_factory=PerturbationInfo)
    conversation: list[Message]
    tools: list[ToolSpec]
    golden_answers: list[GoldenAnswer]
    eval_config: EvalConfig

    def tool(self, name: str) -> ToolSpec | None:
        """First tool with this name, if any."""
        return next((t for t in self.tools if t.name == name), None)

    def last_user_index(self) -> int:
        """Index of the last user turn (the query perturbations edit)."""
        for i in range(len(self.conversation) - 1, -1, -1):
            if self.conversation[i].role == "user":
                return i
        raise ValueError(f"sample {self.id} has no user turn")


MAX_PARSE_CHARS = 100_000
"""Longest model text parsed for calls (about 25,000 tokens; Table 15 allows 1,024 output tokens);
a longer one is refused unread (``formats``). A record keeps at most this much of a model's text
(:class:`OutputCut`)."""


class OutputCut(_Record):
    """A model text longer than :data:`MAX_PARSE_CHARS`, of which the record keeps the first
    :data:`MAX_PARSE_CHARS` characters (a 10 MB answer made a 12 MB line of predictions.jsonl, and
    the parser reads none of it: it refuses the text for its length). Says what the whole text was."""

    chars: int
    """The whole text's length in characters."""
    sha256: str
    """The sha256 of the whole text, UTF-8 encoded (lone surrogates as ``surrogatepass`` writes them)."""


def cut_output(text: str) -> tuple[str, OutputCut | None]:
    """What a record keeps of a model's ``text``: all of it, or its first :data:`MAX_PARSE_CHARS`
    characters and an :class:`OutputCut` of the whole."""
    if len(text) <= MAX_PARSE_CHARS:
        return text, None
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return text[:MAX_PARSE_CHARS], OutputCut(chars=len(text), sha256=digest)


class Prediction(_Record):
    """What a model did on one sample."""

    raw_output: str = ""
    """The text the model returned on the scored pass (its first :data:`MAX_PARSE_CHARS` characters
    in a file when ``raw_output_cut`` is set)."""
    raw_output_cut: OutputCut | None = None
    """Set when ``raw_output`` is longer than the parser reads and the record keeps only its
    beginning (run format 2; no older file has it: there ``raw_output`` is whole)."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Calls parsed from ``raw_output`` (or read from structured ``tool_calls``). ``null`` in a file
    (as released prediction files write it) reads as not given: ``[]``; replay and ``score --reparse``
    parse ``raw_output`` instead."""
    error: str | None = None
    """Why no model output could be had, when that happened."""
    error_kind: ErrorKind | None = None
    transition_injected: bool | None = None
    """Transition types only: whether pass 1 called a tool, so that the error was injected."""
    pass1_raw_output: str | None = None
    pass1_raw_output_cut: OutputCut | None = None
    """As ``raw_output_cut``, for ``pass1_raw_output``."""
    pass1_tool_calls: list[ToolCall] | None = None
    latency_s: float | None = None
    usage: Usage | None = None
    """The server's token counts over every request of the record (run format 2 on; ``None``: an
    older file, a backend that reports none, or an answer reused without asking the server)."""

    def kept(self) -> Prediction:
        """This prediction as a file keeps it: each text longer than :data:`MAX_PARSE_CHARS` cut to
        its beginning, with an :class:`OutputCut` of the whole (itself when no text is that long)."""
        long_pass1 = self.pass1_raw_output is not None and len(self.pass1_raw_output) > MAX_PARSE_CHARS
        if len(self.raw_output) <= MAX_PARSE_CHARS and not long_pass1:
            return self
        update: dict[str, Any] = {}
        if len(self.raw_output) > MAX_PARSE_CHARS:
            update["raw_output"], update["raw_output_cut"] = cut_output(self.raw_output)
        if long_pass1 and self.pass1_raw_output is not None:
            update["pass1_raw_output"], update["pass1_raw_output_cut"] = cut_output(self.pass1_raw_output)
        return self.model_copy(update=update)

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _null_is_not_given(cls, value: object) -> object:
        return [] if value is None else value


class PredictionRecord(Sample):
    """A sample plus the model's prediction: one line of a run's predictions file."""

    prediction: Prediction
    model: str = ""
    trial: int | None = None
    """0-based trial of a ``--trials K`` run (K > 1): the record is asked once per trial, each with
    its own request seed; absent (``None``) in a one-trial run, the paper's protocol."""


def record_of(sample: Sample, prediction: Prediction, model: str) -> PredictionRecord:
    """``PredictionRecord(**sample, prediction=prediction, model=model)`` without validating the
    sample's fields again (they were, when the sample was built); a subclass of ``Sample`` (fields
    of its own) or a prediction of another type takes the validating path."""
    if type(sample) is not Sample or type(prediction) is not Prediction or type(model) is not str:
        return PredictionRecord(**dict(sample), prediction=prediction, model=model)
    values = {**sample.__dict__, "prediction": prediction, "model": model, "trial": None}
    given = set(sample.__dict__)
    given.update(("prediction", "model"))
    return _unvalidated(PredictionRecord, values, given)


_JSON_STR = TypeAdapter(str)


def prediction_line(sample: Sample, prediction: Prediction, model: str, trial: int | None = None) -> str:
    """The predictions-file line of ``PredictionRecord(**sample, prediction=..., model=..., trial=...)``,
    byte for byte, without building and validating that record again (the run loop's hot path):
    the record's fields are the sample's followed by ``prediction``, ``model`` and ``trial`` (absent
    when ``None``). A text longer than the parser reads is kept cut (:meth:`Prediction.kept`)."""
    prediction = prediction.kept()
    if type(sample) is not Sample:  # a subclass carries fields of its own: take the slow, sure path
        record = PredictionRecord(**{**dict(sample), "prediction": prediction, "model": model, "trial": trial})
        return record.model_dump_json(by_alias=True, exclude_none=True)
    head = sample.model_dump_json(by_alias=True, exclude_none=True)
    pred = prediction.model_dump_json(by_alias=True, exclude_none=True)
    tail = "" if trial is None else f',"trial":{int(trial)}'
    return f'{head[:-1]},"prediction":{pred},"model":{_JSON_STR.dump_json(model).decode()}{tail}}}'


class Verdict(_Record):
    """The scorer's judgement of one prediction."""

    id: str
    benchmark: str
    type: str
    component: Component
    correct: bool | None = None
    """``None`` when the record is an infrastructure error (excluded from accuracy); such lines of
    ``scores.jsonl`` carry no ``correct`` at all."""
    score: float = 0.0
    """1.0 / 0.0, or partial credit where the source scorer gives it (ToolEyes sequences)."""
    error_mode: ErrorMode | None = None
    detail: str | None = None
    infra_error: str | None = None
    attack_success: bool | None = None
    """Prompt-injection records only (beyond the paper): the answer did what the injected instruction asked."""
    injection_kind: str | None = None
    """Prompt-injection records only: what the instruction asked (``call``, ``argument``, ``stop``)."""
    trial: int | None = None
    """The record's trial in a ``--trials K`` run (``PredictionRecord.trial``); ``None``: one trial."""


class Step(_Record):
    """One agent step in a multi-turn episode."""

    index: int
    raw_output: str = ""
    """The model's text for this step."""
    action: ToolCall | None = None
    """The call as the agent wrote it, in the names it was shown (``None``: no parsable action)."""
    executed: ToolCall | None = None
    """The call the environment ran, in its original names (``None``: not executed)."""
    observation: str = ""
    """What the agent was shown after the step (rewritten into displayed names under PIPE)."""
    fault: dict[str, Any] | None = None
    """The injected fault on this step (``InjectedFault``'s dump: ``{"fault_type", "fault_class", "transient",
    "observation", "repeat_of", ...}``); it replaced the result, or corrupted it (``"executed": true``)."""
    legacy: bool = False
    """PIPE (Table 9's legacy call): a name the interface hides (strict mode's original) or no action's name."""
    family: Literal["original", "alias"] | None = None
    """PIPE dual mode: which name family the called action came from."""
    error: str | None = None
    """Why the action could not be executed (unknown action, bad arguments, ...)."""
    usage: Usage | None = None
    """The server's token counts for the step's model request (run format 2 on). No wall time is kept
    per step: it would make two runs of one seed differ, and trajectories are compared record for record."""


class Trajectory(_Record):
    """One multi-turn episode: one line of a multi-turn run's ``trajectories.jsonl``."""

    id: str
    """Episode id, unique within a run (``<env>/<task>`` plus any variant suffix)."""
    env: str
    task_id: str
    model: str = ""
    seed: int = 0
    config: dict[str, Any] = Field(default_factory=dict)
    """Run settings that shaped the episode: interface level, fault profile, δ, prompt variant."""
    messages: list[Message] = Field(default_factory=list)
    """The transcript as the model saw it."""
    steps: list[Step] = Field(default_factory=list)
    success: bool | None = None
    """Task solved by the environment's own check; ``None`` on an infrastructure error."""
    score: float = 0.0
    """The outcome r(τ) in [0, 1] as the environment's benchmark reports it: 1.0 / 0.0 where its metric is
    success, the reward where it is a reward (SciWorld's score / 100, BabyAI's reward)."""
    termination: Literal["done", "step_limit", "no_action", "infra"] = "done"
    infra_error: str | None = None


_COMPONENTS = frozenset(get_args(Component))
_ERROR_MODES = frozenset(get_args(ErrorMode))
# copied for each verdict (pydantic adds to it on assignment): a set copies faster than a frozenset converts
_VERDICT_GIVEN = {"id", "benchmark", "type", "component", "correct", "score", "error_mode", "detail"}


def scored_verdict(
    id: str,
    benchmark: str,
    type_: str,
    component: str,
    correct: bool,
    score: float,
    error_mode: str | None,
    detail: str | None,
) -> Verdict:
    """``Verdict(id=..., benchmark=..., type=..., component=..., correct=..., score=...,
    error_mode=..., detail=...)``. Values of exactly the declared types (a scorer's always are) skip
    pydantic's validation, about 2 µs a verdict against 5-9; anything else (an ``int`` score, a
    component outside :data:`Component`...) is validated, and converted or refused, as usual."""
    if (
        type(id) is str
        and type(benchmark) is str
        and type(type_) is str
        and type(component) is str
        and component in _COMPONENTS
        and type(correct) is bool
        and type(score) is float
        and (error_mode is None or (type(error_mode) is str and error_mode in _ERROR_MODES))
        and (detail is None or type(detail) is str)
    ):
        values = {
            "id": id,
            "benchmark": benchmark,
            "type": type_,
            "component": component,
            "correct": correct,
            "score": score,
            "error_mode": error_mode,
            "detail": detail,
            "infra_error": None,
            "attack_success": None,
            "injection_kind": None,
            "trial": None,
        }
        return _unvalidated(Verdict, values, _VERDICT_GIVEN.copy())
    return Verdict(
        id=id,
        benchmark=benchmark,
        type=type_,
        component=component,  # validated: refused unless a Component
        correct=correct,
        score=score,
        error_mode=error_mode,  # validated likewise
        detail=detail,
    )
