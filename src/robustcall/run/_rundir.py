"""A run directory's ``run.json`` (what was asked, :class:`robustcall.core.RunMeta`) and the rule a
resumed run must follow; scoring the directory is ``robustcall.score``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robustcall.core import ExistingOutputError, RunMeta
from robustcall.models import ModelSettings, resolve_base_url

RESUME_IDENTITY = ("model_name", "mode", "answer_settings", "bench_digest", "shard")
"""What decides a run's answers (and which slice it answers): a resume must agree on all of these.
The endpoint, the bench folder's path, the types and the limit may change; an endpoint not used
before is added to ``endpoint_history`` in ``run.json``."""
ENDPOINT_HISTORY = "endpoint_history"


def write_meta(run_dir: Path, meta: RunMeta | dict[str, Any]) -> None:
    """Write ``run.json`` atomically (a kill leaves the old file or the new one, never a torn one),
    stamped with this robustcall's format, release and scorer versions."""
    record = meta if isinstance(meta, RunMeta) else RunMeta.model_validate(meta)
    record.write(run_dir)


def _identity_of(before: RunMeta) -> dict[str, Any]:
    """The identity fields of a ``run.json``; files written before they existed give what they can."""
    got = {k: getattr(before, k) for k in RESUME_IDENTITY if before.given(k)}
    spec = before.model
    if "model_name" not in got and isinstance(spec, str):
        got["model_name"] = _endpoint_of(spec, before.base_url)[0]
    return got


def _endpoint_of(spec: str, base_url: object) -> tuple[str, str | None]:
    """``(model name, endpoint)`` of a spec as ``run`` records them (no endpoint off openai specs)."""
    if spec.startswith(("openai/", "openai:")):
        try:
            return resolve_base_url(spec, base_url if isinstance(base_url, str) else None)
        except ValueError:
            return spec, None
    return spec, None


def _history_of(before: RunMeta) -> list[str]:
    if before.endpoint_history is not None:
        return list(before.endpoint_history)
    spec = before.model
    endpoint = _endpoint_of(spec, before.base_url)[1] if isinstance(spec, str) else None
    return [endpoint] if endpoint else []


def resume_meta(run_dir: Path, meta: RunMeta, before: RunMeta | None) -> RunMeta:
    """``meta`` for a run that goes on in ``run_dir``, checked against ``before`` (its ``run.json``,
    ``None`` when there is none or it was unreadable).

    A resume must agree on ``RESUME_IDENTITY`` (else ``ExistingOutputError`` names what differs);
    an endpoint the run was not answered from before is added to ``endpoint_history`` (oldest
    first)."""
    history: list[str] = []
    if before is not None:
        old = _identity_of(before)
        now = {k: getattr(meta, k) for k in RESUME_IDENTITY if meta.given(k)}
        changed = [k for k in RESUME_IDENTITY if k in old and k in now and old[k] != now[k]]
        if changed:
            diff = "; ".join(f"{k}: {old[k]!r} then, {now[k]!r} now" for k in changed)
            raise ExistingOutputError(
                f"{run_dir} holds a run with a different {', '.join(changed)} ({diff}): use another --out"
            )
        if before.trial_seed != meta.trial_seed:  # trial t's seed derives from it: the trials would not match
            was = "one trial, no seed" if before.trial_seed is None else f"trial seed {before.trial_seed}"
            asked = "one trial, no seed" if meta.trial_seed is None else f"trial seed {meta.trial_seed}"
            raise ExistingOutputError(
                f"{run_dir} holds a run asked with {was}, this one with {asked}: "
                "resume with the same --seed (and --trials > 1, or 1), or use another --out"
            )
        history = _history_of(before)
    endpoint = meta.endpoint
    if isinstance(endpoint, str) and endpoint not in history:
        history.append(endpoint)
    return meta.model_copy(update={ENDPOINT_HISTORY: history}) if history else meta.model_copy()


def settings_meta(model: object) -> dict[str, Any]:
    """The ``run.json`` fields a backend's settings give: ``answer_settings`` (what decides its
    answers: part of ``RESUME_IDENTITY``), ``model_settings`` (every ``ModelSettings`` field it runs
    with, ``mode`` as resolved) and ``settings_entry`` (which ``--settings`` entry); all ``None`` for
    scripted and replay models."""
    import dataclasses

    settings = getattr(model, "settings", None)
    if not isinstance(settings, ModelSettings):
        return {"answer_settings": None, "model_settings": None, "settings_entry": None}
    fields = {k: v for k, v in dataclasses.asdict(settings).items() if k != "entry"}  # in settings_entry
    return {
        "answer_settings": {
            "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
            "extra_body": settings.extra_body,
        },
        "model_settings": {**fields, "mode": getattr(model, "mode", settings.mode)},
        "settings_entry": settings.entry,
    }
