"""The one async interface every model backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from robustcall.core import ErrorKind, Message, Sample, ToolCall, ToolSpec, Usage

Mode = Literal["fc", "prompt"]
"""``fc``: tools passed as OpenAI ``tools=``, structured calls read back;
``prompt``: tools already rendered into the system prompt, the model's text parsed by ``formats``."""


@dataclass(frozen=True)
class ModelRequest:
    """One chat completion to make."""

    messages: list[Message]
    """Already rendered (in prompt mode the system prompt carries the tools); may hold assistant
    turns with ``tool_calls`` and ``tool`` turns (pass 2 of the transition harness)."""
    tools: list[ToolSpec]
    """Passed as OpenAI ``tools=`` in fc mode only."""
    sample: Sample
    """The sample being answered (scripted policies and replay read it)."""
    pass_index: int = 0
    """0 = first/only pass, 1 = second pass after an injected tool error."""
    max_tokens: int | None = None
    """A lower output-token cap for this request (the settings' ``max_tokens`` applies when lower)."""
    seed: int | None = None
    """The sampling seed of this request (one per trial of a ``--trials K`` run); ``None``: none sent."""


@dataclass(frozen=True)
class ModelResponse:
    """What a backend got back: text, structured calls, or an error."""

    text: str
    """Raw model text (``""`` if none)."""
    tool_calls: list[ToolCall] | None
    """Structured calls (fc mode, scripted policies); ``None`` = parse ``text`` yourself."""
    error: str | None = None
    """Why no (valid) model output could be had."""
    error_kind: ErrorKind | None = None
    """``infra`` after retries are exhausted; ``model_format`` = the server rejected the model's output."""
    latency_s: float = 0.0
    """Wall time over all attempts, backoff included."""
    attempts: int = 1
    """HTTP attempts made (1 when the first one answered)."""
    usage: Usage | None = None
    """The server's token counts for the answer (its ``usage`` block), where it gave them."""


@runtime_checkable
class ChatModel(Protocol):
    """A model backend: ``complete`` never raises on endpoint errors, it reports them."""

    name: str
    mode: Mode

    async def complete(self, req: ModelRequest) -> ModelResponse: ...

    async def aclose(self) -> None: ...
