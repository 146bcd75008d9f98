"""The rewriter options ``build`` and ``train dr-data`` share, and the judge model of ``audit``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from robustcall.cli._errors import CommandError

if TYPE_CHECKING:
    from robustcall.perturb import Rewriter

console = Console(stderr=True)

RewriterOpt = Annotated[str, typer.Option("--rewriter", help="offline (no model) or llm.")]
LLMModelOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--llm-model",
        "--model",
        help="Model of --rewriter llm (also spelt --model): a model spec (openai:<model>@<url>, local), or a bare "
        "model name with "
        "--llm-base-url. FAMILY=SPEC gives one family (typos, paraphrases, tools) a model of its own, as the "
        "paper did (typos=gpt-4o-mini, the rest gpt-5-mini). Repeatable.",
    ),
]
LLMBaseUrlOpt = Annotated[
    str | None,
    typer.Option("--llm-base-url", "--base-url", help="OpenAI-compatible base URL for bare --llm-model names."),
]
LLMSettingsOpt = Annotated[
    Path | None,
    typer.Option(
        "--llm-settings",
        help="Settings file of the rewriter's models (YAML/JSON {model: {temperature, timeout_s, max_retries, "
        "...}}); temperature: null sends none (models that reject one).",
    ),
]


def make_rewriter(kind: str, models: list[str] | None, base_url: str | None, settings: Path | None) -> Rewriter:
    """The rewriter the options name; a bad combination is a ``typer.BadParameter``."""
    from robustcall.models import SettingsError
    from robustcall.perturb import LLMRewriter, OfflineRewriter, model_specs

    if kind == "offline":
        return OfflineRewriter()
    if kind != "llm":
        raise typer.BadParameter(f"--rewriter must be offline or llm, got {kind!r}")
    try:
        default, per_family = model_specs(models or [], base_url)
        return LLMRewriter(default, family_models=per_family, settings_file=settings)
    except (ValueError, SettingsError) as exc:
        raise typer.BadParameter(str(exc)) from None


@contextmanager
def model_errors() -> Iterator[None]:
    """A model that cannot answer (refused, or retries spent) ends the command with its message, no
    traceback; what was rewritten so far is cached, so running again resumes."""
    from robustcall.models import TextModelError

    try:
        yield
    except TextModelError as exc:
        raise CommandError(f"model error: {exc}") from None


def close(rewriter: Rewriter) -> None:
    closer = getattr(rewriter, "close", None)
    if closer is not None:
        closer()
