"""The model kinds by name: the first word of a spec (``local``, ``openai``, ``replay``, ``scripted``)
picks a registered factory. Adding a backend is one ``register_model_kind`` call in its own module."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import InputError
from robustcall.models._api import ChatModel, Mode


@dataclass(frozen=True)
class ModelSpec:
    """A spec string cut at its kind, with what the caller asked for besides."""

    spec: str
    """The whole spec, as given (``openai:gpt-4o@http://h/v1``)."""
    kind: str
    """The registered kind it names (``openai``)."""
    rest: str
    """What follows the kind and its separator (``gpt-4o@http://h/v1``); ``""`` for a bare kind."""
    mode: Mode | None = None
    """``fc`` / ``prompt`` asked for; ``None``: the settings file's, else the kind's own default."""
    settings_file: Path | None = None
    """A model settings file (``ModelSettings`` per model name), if any."""
    concurrency: int = 0
    """Requests in flight at once (the connection pool follows it); ``make_model`` fills it in."""
    base_url: str | None = None
    """``--base-url``: only kinds registered with ``base_url=True`` take one."""


@dataclass(frozen=True)
class ModelKind:
    """One kind of backend: how its specs read, and how to build one."""

    name: str
    """The spec's first word."""
    usage: str
    """How its specs read, for help texts and errors (``replay:<predictions.jsonl>``)."""
    build: Callable[[ModelSpec], ChatModel]
    """The backend for a checked spec (raises ``InputError`` for a spec it cannot serve)."""
    check: Callable[[ModelSpec], None] | None = None
    """Raises ``InputError`` for a spec ``build`` would refuse, without building anything (beyond
    the generic checks below); ``None``: none."""
    needs_rest: bool = True
    """A bare ``<kind>`` (nothing after it) is malformed."""
    separators: str = ":"
    """The characters that may follow the kind (``openai/<model>`` and ``openai:<model>@<url>``)."""
    base_url: bool = False
    """Takes ``--base-url``."""


MODEL_KINDS: dict[str, ModelKind] = {}
"""Registered kinds, in registration order (the order of ``spec_help()``)."""

_KIND = re.compile(r"[A-Za-z_][\w-]*")


def register_model_kind(kind: ModelKind) -> ModelKind:
    """Register (or replace) a kind of backend under ``kind.name``."""
    MODEL_KINDS[kind.name] = kind
    return kind


def spec_help() -> str:
    """Every registered kind's usage, ``|``-separated."""
    return " | ".join(k.usage for k in MODEL_KINDS.values())


def bad_spec(spec: str) -> InputError:
    """The error for a spec no registered kind reads."""
    return InputError(f"bad model spec {spec!r}: expected {spec_help()}")


def parse_spec(
    spec: str,
    *,
    mode: Mode | None = None,
    settings_file: Path | None = None,
    concurrency: int = 0,
    base_url: str | None = None,
) -> tuple[ModelKind, ModelSpec]:
    """The registered kind a spec names and the spec cut at it, checked (``InputError`` when malformed:
    an unknown kind, a separator or a missing part the kind does not take, ``--base-url`` where it does
    not apply, or whatever the kind's own ``check`` refuses)."""
    m = _KIND.match(spec)
    name = m.group(0) if m else ""
    kind = MODEL_KINDS.get(name)
    if kind is None:
        raise bad_spec(spec)
    sep, rest = spec[len(name) : len(name) + 1], spec[len(name) + 1 :]
    if sep and sep not in kind.separators:
        raise bad_spec(spec)
    if base_url is not None and not kind.base_url:
        raise InputError(f"--base-url applies to openai/<model> specs, not {spec!r}")
    if kind.needs_rest and not rest:
        raise bad_spec(spec)
    parsed = ModelSpec(spec, name, rest, mode, settings_file, concurrency, base_url)
    if kind.check is not None:
        kind.check(parsed)
    return kind, parsed
