"""Per-model decoding and client settings, read from a Table-15-like file or from the paper's own
Table 15 (Appendix K; ``--settings paper`` / ``paper:<Model>``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from robustcall.core import DEFAULTS, PAPER_MODELS_FILE, InputError, PaperModel, load_config_file, paper_reference
from robustcall.models._api import Mode

DEFAULT_CONCURRENCY = DEFAULTS.concurrency
"""Requests in flight at once when a command is not told otherwise (every command, every backend;
``robustcall.core.DEFAULTS``)."""


@dataclass
class ModelSettings:
    """Decoding, retries and timeouts for one model; the defaults are ``robustcall.core.DEFAULTS``
    (Table 15: temperature 0, 1024 tokens)."""

    temperature: float | None = DEFAULTS.temperature
    """``None`` (``temperature: null`` in a settings file): not sent, the endpoint's default applies
    (reasoning models such as gpt-5 reject any other value)."""
    max_tokens: int = DEFAULTS.max_tokens
    mode: Mode = "prompt"
    timeout_s: float = DEFAULTS.timeout_s
    """Per-request timeout, the whole request (never unbounded)."""
    connect_timeout_s: float = DEFAULTS.connect_timeout_s
    """TCP (and TLS) connect; 0: only ``timeout_s`` applies."""
    first_byte_timeout_s: float = DEFAULTS.first_byte_timeout_s
    """From sending the request to the first byte of the answer, which for a non-streamed chat
    completion is the whole generation; 0: only ``timeout_s`` applies."""
    idle_timeout_s: float = DEFAULTS.idle_timeout_s
    """Longest silence once the answer has begun; 0: only ``timeout_s`` applies."""
    max_response_bytes: int = DEFAULTS.max_response_bytes
    """Largest response body read; a bigger one is an infra error, not retried."""
    max_retries: int = DEFAULTS.max_retries
    """Retries after the first attempt on 429 / 5xx / timeouts / dropped connections."""
    backoff_base_s: float = DEFAULTS.backoff_base_s
    backoff_max_s: float = DEFAULTS.backoff_max_s
    max_retry_wait_s: float = DEFAULTS.max_retry_wait_s
    """Longest one request waits between its retries in all; past it the request is an infra error
    (a 429 with ``Retry-After: 300`` on every retry would otherwise hold a record for 25 minutes)."""
    tool_choice: str | None = None
    """fc mode: ``auto``, ``required`` or ``none`` sent as ``tool_choice``; unset sends none (the server's default)."""
    parallel_tool_calls: bool | None = None
    """fc mode: sent as ``parallel_tool_calls`` when set; unset sends none (the server's default)."""
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Merged into the request body (e.g. ``chat_template_kwargs: {enable_thinking: false}``)."""
    entry: str | None = field(default=None, compare=False)
    """Where these settings came from: ``paper:<Model>`` (the paper's Table 15 row), or
    ``<file>:<key>[+<key>]`` (the ``default`` and model entries of a settings file that applied);
    ``None``: the defaults. Recorded in ``run.json``; not a setting a file may give."""


TOOL_CHOICES = ("auto", "required", "none")
_FIELDS = {f.name: f for f in dataclasses.fields(ModelSettings) if f.name != "entry"}
PAPER = "paper"
"""``--settings paper`` (the Table 15 row matching the model's name) or ``paper:<Model>`` (that row)."""


class SettingsError(InputError):
    """A settings file that cannot be read as ``{model_name: {field: value}}``."""


def _read(path: Path) -> dict[str, Any]:
    try:
        data = load_config_file(path)
    except InputError as exc:
        raise SettingsError(str(exc)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: expected a mapping of model name -> settings, got {type(data).__name__}")
    return data


def _coerce(path: Path, model: str, raw: dict[str, Any]) -> ModelSettings:
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in _FIELDS:
            known = ", ".join(sorted(_FIELDS))
            raise SettingsError(f"{path}: model {model!r}: unknown setting {key!r} (known: {known})")
        if key == "mode":
            mode = str(value).lower()
            if mode not in get_args(Mode):
                raise SettingsError(f"{path}: model {model!r}: mode must be 'fc' or 'prompt', got {value!r}")
            kwargs[key] = mode
        elif key == "tool_choice":
            if value is not None and value not in TOOL_CHOICES:
                raise SettingsError(f"{path}: model {model!r}: tool_choice must be one of {', '.join(TOOL_CHOICES)}")
            kwargs[key] = value
        elif key == "parallel_tool_calls":
            if value is not None and not isinstance(value, bool):
                raise SettingsError(f"{path}: model {model!r}: parallel_tool_calls must be true or false")
            kwargs[key] = value
        elif key == "temperature" and value is None:
            kwargs[key] = None
        elif key == "extra_body":
            if not isinstance(value, dict):
                raise SettingsError(f"{path}: model {model!r}: extra_body must be a mapping")
            kwargs[key] = dict(value)
        else:
            default = getattr(ModelSettings(), key)
            try:
                kwargs[key] = float(value) if key == "temperature" else type(default)(value)
            except (TypeError, ValueError) as exc:
                raise SettingsError(f"{path}: model {model!r}: {key}={value!r}: {exc}") from exc
    return ModelSettings(**kwargs)


def paper_choice(path: Path | None) -> str | None:
    """For ``--settings paper`` the empty string, for ``paper:<Model>`` the model asked for; ``None``
    for a settings file (or none). A file literally named ``paper`` needs another path (``/abs/paper``)."""
    text = "" if path is None else str(path)
    if text == PAPER:
        return ""
    return text.removeprefix(f"{PAPER}:") if text.startswith(f"{PAPER}:") else None


def settings_source(path: Path | None) -> Path | None:
    """The file behind ``--settings``: the package's ``paper_models.yaml`` for ``paper[:<Model>]``."""
    return PAPER_MODELS_FILE if paper_choice(path) is not None else path


def paper_entry(choice: str, model: str) -> PaperModel:
    """The paper's model ``choice`` names, or (``choice`` empty) the one whose name or HF id is
    ``model``; ``SettingsError`` when none matches or the model has no Table 15 row."""
    reference = paper_reference()
    key = choice or model
    found = reference.find(key)
    if found is None:
        names = ", ".join(m.name for m in reference.models if m.serving is not None)
        how = f"{PAPER}:{choice}" if choice else f"{PAPER} (matched by the model's name)"
        raise SettingsError(
            f"--settings {how}: no row of the paper's Table 15 is named {key!r}\n"
            f"hint: give paper:<Model> with one of {names} (or its HF id)"
        )
    if found.serving is None:
        raise SettingsError(
            f"--settings {PAPER}: {found.name} has no row in the paper's Table 15 (it ran on OpenAI's API); "
            "give a settings file"
        )
    return found


def paper_settings(entry: PaperModel, defaults: dict[str, Any] | None = None) -> ModelSettings:
    """The request settings Table 15 gives ``entry``: mode, temperature, max_tokens, and Qwen3-style
    thinking off (``chat_template_kwargs: {enable_thinking: false}``) where its Thinking column says off."""
    serving = entry.serving
    assert serving is not None  # paper_entry refuses a model without a row
    extra = {"chat_template_kwargs": {"enable_thinking": False}} if serving.thinking is False else {}
    return dataclasses.replace(
        ModelSettings(**(defaults or {})),
        mode=serving.mode,
        temperature=serving.temperature,
        max_tokens=serving.max_tokens,
        extra_body=extra,
        entry=f"{PAPER}:{entry.name}",
    )


def load_settings(path: Path | None, model: str, defaults: dict[str, Any] | None = None) -> ModelSettings:
    """Settings for ``model`` from ``path`` (YAML or JSON ``{model_name: {temperature, ...}}``).

    A ``default`` entry, when present, applies to every model and the model's own entry overrides
    it. No file, or a model not listed, gives the Table 15 defaults. An unknown setting in any
    entry raises ``SettingsError`` naming it. ``defaults``: a backend's own defaults, under the file's.
    ``path`` ``paper`` / ``paper:<Model>``: the paper's own Table 15 row (``paper_settings``).
    """
    if path is None:
        return ModelSettings(**(defaults or {}))
    choice = paper_choice(path)
    if choice is not None:
        return paper_settings(paper_entry(choice, model), defaults)
    data = _read(path)
    for key, entry in data.items():  # every entry is checked: a typo is an error whichever model runs
        if entry is not None and not isinstance(entry, dict):
            raise SettingsError(f"{path}: entry {key!r} must be a mapping, got {type(entry).__name__}")
        _coerce(path, str(key), entry or {})
    merged: dict[str, Any] = dict(defaults or {})
    for key in ("default", model):
        merged.update(data.get(key) or {})
    applied = "+".join(key for key in ("default", model) if key in data)
    return dataclasses.replace(_coerce(path, model, merged), entry=f"{path}:{applied}" if applied else None)
