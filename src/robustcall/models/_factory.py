"""``make_model``: one spec string names any backend."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from robustcall.core import InputError, NotReadyError, UserError, read_run_meta
from robustcall.models._api import ChatModel, Mode
from robustcall.models._chance import ChanceModel
from robustcall.models._openai import OpenAIChatModel
from robustcall.models._registry import ModelKind, ModelSpec, parse_spec, register_model_kind, spec_help
from robustcall.models._replay import ReplayModel
from robustcall.models._scripted import make_scripted
from robustcall.models._settings import DEFAULT_CONCURRENCY, load_settings, paper_choice, paper_entry

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""Where ``openai/<model>`` goes with neither ``--base-url`` nor ``OPENAI_BASE_URL`` (the SDK's default)."""

KEY_HOSTS = frozenset({"api.openai.com"})
"""Hosts that answer nothing without an API key (``OPENAI_API_KEY``): a spec that goes there without
one is refused before any request."""


LOCAL_TIMEOUT_S = 1800.0
"""The embedded model's whole-request timeout: 1,024 tokens at 0.6 tokens/s, about the slowest
generation seen on 2 loaded cores (``free_threads``). Its server is ours and watched (a dead one fails
the request at once), so a timeout only throws the generation away and asks again: under load the
endpoints' 120 s cut long answers of the main job, which then took minutes each and were answered on
a retry (an infrastructure error when every retry timed out), so the table depended on the load."""

LOCAL_DEFAULTS: dict[str, float] = {"first_byte_timeout_s": 0.0, "timeout_s": LOCAL_TIMEOUT_S}
"""The embedded model answers a non-streamed completion only once the whole generation is done, on
a CPU: its first byte is its last, so only the total ``timeout_s`` bounds it, at
:data:`LOCAL_TIMEOUT_S` (a settings file may say otherwise)."""


def _http_url(url: str, spec: str) -> str:
    for part in split_urls(url) or [url]:
        try:
            parts = urlsplit(part)
            port = parts.port  # raises on a port that is not a number in 0-65535
        except ValueError as exc:
            raise InputError(f"bad base URL {part!r} for model {spec!r}: {exc}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
            raise InputError(f"bad base URL {part!r} for model {spec!r}: expected http(s)://host[:port][/v1]")
    return url


def split_urls(urls: str) -> list[str]:
    """A comma list of base URLs (several replicas of one model) as a list."""
    return [u.strip() for u in urls.split(",") if u.strip()]


def resolve_base_url(spec: str, base_url: str | None = None) -> tuple[str, str]:
    """``(model name, base URL)`` of an OpenAI-compatible spec: ``openai:<model>@<url>`` names its
    URL; ``openai/<model>`` takes ``base_url``, else ``$OPENAI_BASE_URL``, else OpenAI's own API, as
    the openai SDK does. Raises ``InputError`` (a ``ValueError``) on a malformed spec."""
    if spec.startswith("openai/"):
        model = spec.removeprefix("openai/")
        if not model:
            raise InputError(f"bad model spec {spec!r}: expected openai/<model>")
        url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL
        return model, _http_url(url, spec)
    model, sep, url = spec.removeprefix("openai:").rpartition("@")
    if not spec.startswith("openai:") or not sep or not model or not url.startswith(("http://", "https://")):
        raise InputError(
            f"bad model spec {spec!r}: expected openai:<model>@<http(s)://base_url> or openai/<model> with --base-url"
        )
    if base_url is not None and base_url != url:
        raise InputError(
            f"model spec {spec!r} names its own base URL; drop --base-url {base_url} or use openai/<model>"
        )
    return model, _http_url(url, spec)


def _implicit_source(spec: str, base_url: str | None) -> str | None:
    """Where an ``openai/<model>`` spec's URL came from when the command line did not name it."""
    if not spec.startswith("openai/") or base_url:
        return None
    return "OPENAI_BASE_URL" if os.environ.get("OPENAI_BASE_URL") else "no --base-url or OPENAI_BASE_URL"


def _check_key(spec: str, url: str, source: str | None) -> None:
    """Refuse a spec whose endpoint needs an API key when ``OPENAI_API_KEY`` is not set."""
    if os.environ.get("OPENAI_API_KEY"):
        return
    needy = [u for u in split_urls(url) if (urlsplit(u).hostname or "") in KEY_HOSTS]
    if needy:
        why = f" ({source})" if source else ""
        raise NotReadyError(
            f"{spec} would send its requests to {needy[0]}{why}, which needs OPENAI_API_KEY; "
            "set it, or name your own server with --base-url or OPENAI_BASE_URL"
        )


def _check_openai(spec: ModelSpec) -> None:
    _, url = resolve_base_url(spec.spec, spec.base_url)
    _check_key(spec.spec, url, _implicit_source(spec.spec, spec.base_url))


def _openai(spec: ModelSpec) -> ChatModel:
    model, url = resolve_base_url(spec.spec, spec.base_url)
    source = _implicit_source(spec.spec, spec.base_url)
    _check_key(spec.spec, url, source)
    settings = load_settings(spec.settings_file, model)
    name = spec.spec if spec.spec.startswith("openai:") else f"openai:{model}@{url}"
    # a URL the command line did not name is said before the first request goes there
    notice = f"{spec.spec}: requests go to {url} ({source})" if source else None
    return OpenAIChatModel(
        model, split_urls(url), settings, mode=spec.mode, concurrency=spec.concurrency, name=name, notice=notice
    )


def _local(spec: ModelSpec) -> ChatModel:
    from robustcall.models.local import LocalModel

    settings = load_settings(spec.settings_file, "local", LOCAL_DEFAULTS)
    return LocalModel(settings, mode=spec.mode, concurrency=spec.concurrency, gguf=spec.rest or None)


def _replay(spec: ModelSpec) -> ChatModel:
    path = Path(spec.rest)
    return ReplayModel(path, mode=spec.mode or replayed_mode(path))


def replayed_mode(predictions: Path) -> Mode:
    """The mode of the run a predictions file comes from (its ``run.json``), else ``prompt``: an fc
    run replayed in prompt mode parses text the fc run never read as calls, and then asks for a
    transition's pass 2 that was never made (every transition record an infrastructure error)."""
    try:
        meta = read_run_meta(predictions.parent)
    except UserError:
        return "prompt"
    return meta.mode or "prompt"


def _scripted(spec: ModelSpec) -> ChatModel:
    if spec.rest.startswith("chance:"):  # parametrised: scripted:chance:<p>[,<type>=<p>...]
        return ChanceModel(spec.rest.removeprefix("chance:"), mode=spec.mode or "fc")
    return make_scripted(spec.rest, spec.mode)


register_model_kind(ModelKind("local", "local | local:<gguf>", _local, needs_rest=False))
register_model_kind(
    ModelKind(
        "openai",
        "openai/<model> (with --base-url or OPENAI_BASE_URL) | openai:<model>@<base_url>",
        _openai,
        check=_check_openai,
        needs_rest=False,
        separators=":/",
        base_url=True,
    )
)
register_model_kind(ModelKind("replay", "replay:<predictions.jsonl>", _replay))
register_model_kind(ModelKind("scripted", "scripted:<policy>", _scripted))

SPEC_HELP = spec_help()
"""The built-in kinds' usage (``spec_help()`` lists kinds registered later too)."""


def check_spec(spec: str, base_url: str | None = None) -> None:
    """Raise ``ValueError`` for a spec ``make_model`` would refuse, without building anything."""
    parse_spec(spec, base_url=base_url)


def make_model(
    spec: str,
    *,
    mode: Mode | None = None,
    settings_file: Path | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    base_url: str | None = None,
) -> ChatModel:
    """A backend from a spec string (see ``spec_help()``; kinds in ``MODEL_KINDS``); ``mode``
    overrides the settings file's mode.

    Settings are looked up under the spec's model name (``local``, the ``<model>`` of an openai spec).
    ``base_url`` (the CLI's ``--base-url``) serves ``openai/<model>`` specs only. A comma list of
    base URLs (in ``base_url`` or after the ``@``) spreads the requests over those replicas.
    ``concurrency``: requests in flight at once; the connection pool is sized to it.
    Raises ``InputError`` (a ``ValueError``) on a malformed spec, ``LocalModelNotReady`` when ``local`` is not set up.
    """
    choice = paper_choice(settings_file)
    if choice:  # paper:<Model> must name a Table 15 row, whichever backend runs
        paper_entry(choice, spec)
    elif settings_file is not None and choice is None:  # a typo anywhere in a file is an error for every backend
        load_settings(settings_file, spec)
    kind, parsed = parse_spec(spec, mode=mode, settings_file=settings_file, concurrency=concurrency, base_url=base_url)
    return kind.build(parsed)
