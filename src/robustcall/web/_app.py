"""The leaderboard web service: upload page, ranked table, per-submission pages, JSON API."""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from robustcall.core import TAXONOMY, TYPES, dump_record
from robustcall.metrics import Summary
from robustcall.web._bench import BenchIndex
from robustcall.web._store import NewSubmission, Store, Submission
from robustcall.web._upload import UploadError, score_upload

COMPONENTS = ("observation", "action", "reward", "transition")
DEFAULT_MAX_BYTES = 50 * 1024 * 1024


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def _row(sub: Submission) -> dict[str, Any]:
    summary = Summary.model_validate_json(sub.summary_json)
    comp = {c: summary.by_component[c].accuracy if c in summary.by_component else None for c in COMPONENTS}
    return {
        "id": sub.id,
        "model": sub.model_name,
        "partial": sub.partial,
        "pert": _pct(sub.pert_acc),
        "clean": _pct(sub.clean_acc),
        **{c: _pct(v) for c, v in comp.items()},
        "records": f"{sub.answered:,}/{sub.expected:,}",
        "date": sub.created_at.strftime("%Y-%m-%d"),
    }


def _api_row(sub: Submission) -> dict[str, Any]:
    summary = Summary.model_validate_json(sub.summary_json)
    return {
        "id": sub.id,
        "model": sub.model_name,
        "submitted": sub.created_at.isoformat(),
        "bench_version": sub.bench_version,
        "partial": sub.partial,
        "answered": sub.answered,
        "expected": sub.expected,
        "pert_acc": sub.pert_acc,
        "clean": sub.clean_acc,
        "components": {c: summary.by_component[c].accuracy for c in COMPONENTS if c in summary.by_component},
    }


def _heat(summary: Summary) -> list[dict[str, Any]]:
    out = []
    for comp in COMPONENTS:
        cells = []
        for t in (t for t in TAXONOMY if t.component == comp):
            drop = summary.drop_by_type.get(t.code)
            if drop is None:
                cells.append({"code": t.code, "display": t.display, "text": "—", "color": "#f1f3f5", "ink": "#6b7480"})
                continue
            strength = min(1.0, abs(drop) / 0.5)  # full colour at a 50 pp difference
            rgb = (214, 39, 40) if drop > 0 else (31, 119, 180)
            mix = tuple(round(255 - strength * (255 - ch)) for ch in rgb)
            ink = "#fff" if strength > 0.6 else "#1d2430"
            cells.append(
                {"code": t.code, "display": t.display, "text": f"{100 * drop:+.0f}", "color": f"rgb{mix}", "ink": ink}
            )
        out.append({"name": comp.capitalize(), "cells": cells})
    return out


def _groups(summary: Summary) -> list[dict[str, Any]]:
    def group(name: str, cell: Any, drop: float | None, bold: bool) -> dict[str, Any]:
        ci = "" if cell.ci95 is None else f"± {100 * cell.ci95:.1f}"
        return {"name": name, "n": cell.n, "acc": _pct(cell.accuracy), "ci": ci, "drop": _pp(drop), "bold": bold}

    rows = [group("Clean", summary.clean, None, True), group("Pert. Acc.", summary.perturbed, None, True)]
    for comp in COMPONENTS:
        if comp in summary.by_component:
            cell = summary.by_component[comp]
            rows.append(group(comp.capitalize(), cell, summary.component_delta(comp), True))
    for code, cell in summary.by_type.items():
        if code != "clean":
            name = f"{TYPES[code].display} ({code})" if code in TYPES else code
            rows.append(group(name, cell, summary.drop_by_type.get(code), False))
    return rows


def _pp(drop: float | None) -> str:
    return "" if drop is None else f"{100 * drop:+.1f}"


def create_app(
    bench_dir: Path, db_url: str, *, admin_token: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> Starlette:
    """The ASGI app. ``admin_token``: required (as ``Authorization: Bearer …``) to delete; none disables deletion."""
    bench = BenchIndex.load(bench_dir)
    store = Store(db_url)
    env = Environment(loader=PackageLoader("robustcall.web", "templates"), autoescape=select_autoescape())

    def page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        html = env.get_template(name).render(version=bench.version, max_mb=max_bytes // 2**20, **ctx)
        return HTMLResponse(html, status_code=status)

    def ingest(model: str, data: bytes) -> Submission:
        model = model.strip()
        if not model or len(model) > 200:
            raise UploadError("rejected: a model name of 1 to 200 characters is required")
        scored = score_upload(data, bench, max_bytes=max_bytes)
        cov = scored.coverage
        return store.add(
            NewSubmission(
                model_name=model,
                bench_version=bench.version,
                partial=cov.partial,
                answered=cov.answered,
                expected=cov.expected,
                pert_acc=scored.summary.perturbed.accuracy,
                clean_acc=scored.summary.clean.accuracy,
                summary_json=scored.summary.model_dump_json(),
                coverage_json=json.dumps(cov.missing_by_type, sort_keys=True),
                verdicts_jsonl="".join(dump_record(v) + "\n" for v in scored.verdicts),
                raw_upload=data,
            )
        )

    async def index(request: Request) -> Response:
        rows = [_row(s) for s in await run_in_threadpool(store.ranked)]
        return page("index.html", rows=rows)

    async def submit_form(request: Request) -> Response:
        form = await request.form(max_part_size=max_bytes + 1)
        upload = form.get("file")
        model = form.get("model")
        if upload is None or isinstance(upload, str) or not isinstance(model, str):
            rows = [_row(s) for s in await run_in_threadpool(store.ranked)]
            return page("index.html", 400, rows=rows, error="rejected: choose a file and give a model name")
        data = await upload.read()
        try:
            sub = await run_in_threadpool(ingest, model, data)
        except UploadError as exc:
            rows = [_row(s) for s in await run_in_threadpool(store.ranked)]
            return page("index.html", 400, rows=rows, error=str(exc))
        return RedirectResponse(f"/submissions/{sub.id}", status_code=303)

    async def submission_page(request: Request) -> Response:
        sub = await run_in_threadpool(store.get, int(request.path_params["sid"]))
        if sub is None:
            return HTMLResponse("no such submission", status_code=404)
        summary = Summary.model_validate_json(sub.summary_json)
        missing = ", ".join(
            f"{TYPES[t].display if t in TYPES else t}: {n}" for t, n in json.loads(sub.coverage_json).items()
        )
        return page(
            "submission.html",
            sub=sub,
            date=sub.created_at.strftime("%Y-%m-%d %H:%M UTC"),
            groups=_groups(summary),
            heat=_heat(summary),
            infra=len(summary.infra_error_ids),
            missing=missing,
        )

    async def api_list(request: Request) -> Response:
        return JSONResponse([_api_row(s) for s in await run_in_threadpool(store.ranked)])

    async def api_create(request: Request) -> Response:
        model = request.query_params.get("model", "")
        data = await request.body()
        try:
            sub = await run_in_threadpool(ingest, model, data)
        except UploadError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(_api_row(sub), status_code=201)

    async def api_get(request: Request) -> Response:
        sub = await run_in_threadpool(store.get, int(request.path_params["sid"]))
        if sub is None:
            return JSONResponse({"error": "no such submission"}, status_code=404)
        body = _api_row(sub) | {
            "summary": json.loads(sub.summary_json),
            "missing_by_type": json.loads(sub.coverage_json),
        }
        return JSONResponse(body)

    async def api_verdicts(request: Request) -> Response:
        sub = await run_in_threadpool(store.get, int(request.path_params["sid"]))
        if sub is None:
            return JSONResponse({"error": "no such submission"}, status_code=404)
        return Response(sub.verdicts_jsonl, media_type="application/x-ndjson")

    async def api_delete(request: Request) -> Response:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if admin_token is None or not hmac.compare_digest(given.encode(), admin_token.encode()):
            return JSONResponse({"error": "deleting needs the admin token (Authorization: Bearer …)"}, status_code=403)
        found = await run_in_threadpool(store.delete, int(request.path_params["sid"]))
        return JSONResponse({"deleted": found}, status_code=200 if found else 404)

    routes = [
        Route("/", index),
        Route("/submit", submit_form, methods=["POST"]),
        Route("/submissions/{sid:int}", submission_page),
        Route("/api/submissions", api_list),
        Route("/api/submissions", api_create, methods=["POST"]),
        Route("/api/submissions/{sid:int}", api_get),
        Route("/api/submissions/{sid:int}", api_delete, methods=["DELETE"]),
        Route("/api/submissions/{sid:int}/verdicts", api_verdicts),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        store.dispose()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.store = store
    app.state.bench = bench
    return app
