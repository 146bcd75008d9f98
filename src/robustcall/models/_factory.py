"""``make_model``: one spec string names any backend."""

from __future__ import annotations

from pathlib import Path

from robustcall.core import InputError
from robustcall.models._api import ChatModel, Mode
from robustcall.models._openai import OpenAIChatModel
from robustcall.models._replay import ReplayModel
from robustcall.models._scripted import ScriptedModel
from robustcall.models._settings import load_settings

SPEC_HELP = "local | openai:<model>@<base_url> | replay:<predictions.jsonl> | scripted:<policy>"


def make_model(
    spec: str,
    *,
    mode: Mode | None = None,
    settings_file: Path | None = None,
    concurrency: int = 8,
) -> ChatModel:
    """A backend from a spec string (see ``SPEC_HELP``); ``mode`` overrides the settings file's mode.

    Settings are looked up under the spec's model name (``local``, the ``<model>`` of an openai spec).
    Raises ``ValueError`` on a malformed spec, ``LocalModelNotReady`` when ``local`` is not set up.
    """
    kind, _, rest = spec.partition(":")
    if settings_file is not None:  # a typo in the file is an error for every backend, used or not
        load_settings(settings_file, spec)
    if kind == "local" and not rest:
        from robustcall.models.local import LocalModel

        return LocalModel(load_settings(settings_file, "local"), mode=mode, concurrency=concurrency)
    if kind == "openai":
        model, sep, base_url = rest.rpartition("@")
        if not sep or not model or not base_url.startswith(("http://", "https://")):
            raise InputError(f"bad model spec {spec!r}: expected openai:<model>@<http(s)://base_url>")
        settings = load_settings(settings_file, model)
        return OpenAIChatModel(model, base_url, settings, mode=mode, concurrency=concurrency)
    if kind == "replay" and rest:
        return ReplayModel(Path(rest), mode=mode or "prompt")
    if kind == "scripted" and rest:
        return ScriptedModel(rest, mode=mode or "fc")
    raise InputError(f"bad model spec {spec!r}: expected {SPEC_HELP}")


def spec_identity(spec: str) -> tuple[str, str | None]:
    """``(name, endpoint)``: what names the model whose answers a spec gets, and where it is served.

    The endpoint (``openai:<model>@<base_url>``'s URL) does not decide the answers: a run resumed
    against ``localhost`` instead of ``127.0.0.1`` is the same run. Other specs have no endpoint.
    """
    kind, _, rest = spec.partition(":")
    if kind == "openai":
        model, sep, base_url = rest.rpartition("@")
        if sep and model:
            return f"openai:{model}", base_url
    return spec, None
