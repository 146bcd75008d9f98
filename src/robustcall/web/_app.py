"""The leaderboard web service: upload page, ranked table, per-submission pages, JSON API."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

import robustcall
from robustcall.core import TAXONOMY, TYPES
from robustcall.metrics import Summary, frac, heat_text
from robustcall.web._bench_index import BenchIndex
from robustcall.web._cache import BoardVersion, ReadCache
from robustcall.web._guard import BodyLimit, RateLimiter, SecurityHeaders, TokenBook
from robustcall.web._reference import ReferenceRow, merged_page, reference_rows
from robustcall.web._scoring import SCORING_NICE, Scorer, ScoringUnavailable
from robustcall.web._store import MAX_ID, NameTaken, StorageFull, Store, Submission
from robustcall.web._upload import UploadError

COMPONENTS = ("observation", "action", "reward", "transition")
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
DEFAULT_MAX_STORAGE = 2 * 1024**3
DEFAULT_UPLOADS_PER_HOUR = 30
DEFAULT_PAGE_SIZE = 50
MAX_API_LIMIT = 500
UPLOADED = "uploaded"
"""Where every stored row's predictions come from: an uploader's file, self-reported and scored
here; the server runs no model itself, so no row is ``server-run`` (docs/leaderboard.md, "What the
board can verify")."""
FORM_OVERHEAD = 64 * 1024
"""Room for the multipart framing and the other fields of a form upload."""


def _natural(raw: str) -> int | None:
    """A non-negative decimal integer of at most 19 ASCII digits (ids are below 2^63), else ``None``:
    "²", "١" and 5,000-digit strings are not numbers here (``int`` would refuse or choke on them)."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        return None
    return int(raw)


def _pct(x: float | None) -> str:
    """An accuracy as the report and ``score`` write it: a fraction (Table 2's scale)."""
    return frac(x)


def _row(sub: Submission, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "id": sub.id,
        "model": sub.model_name,
        "type": sub.model_type or "—",
        "partial": sub.partial,
        "origin": UPLOADED,
        "pert": _pct(sub.pert_acc),
        "clean": _pct(sub.clean_acc),
        **{c: _pct(sub.component_acc(c)) for c in COMPONENTS},
        "beyond": _pct(sub.beyond_acc),
        "asr": _pct(sub.attack_success),
        "records": f"{sub.answered:,}/{sub.expected:,}",
        "date": sub.created_at.strftime("%Y-%m-%d"),
    }


def _paper_row(ref: ReferenceRow, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "paper": True,
        "type": ref.type,
        "model": ref.name,
        "partial": False,
        "pert": _pct(ref.pert_acc),
        "clean": _pct(ref.clean_acc),
        **{c: _pct(ref.components.get(c)) for c in COMPONENTS},
        "beyond": "—",
        "asr": "—",
        "records": "—",
        "date": "paper",
    }


def _api_row(sub: Submission) -> dict[str, Any]:
    return {
        "id": sub.id,
        "model": sub.model_name,
        "type": sub.model_type,
        "submitted": sub.created_at.isoformat(),
        "bench_version": sub.bench_version,
        "origin": UPLOADED,
        "partial": sub.partial,
        "answered": sub.answered,
        "expected": sub.expected,
        "pert_acc": sub.pert_acc,
        "clean": sub.clean_acc,
        "components": {c: v for c in COMPONENTS if (v := sub.component_acc(c)) is not None},
        "beyond": {"accuracy": sub.beyond_acc, "attack_success": sub.attack_success},
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
            strength = min(1.0, abs(drop) / 0.5)  # full colour at a drop of 0.5
            rgb = (214, 39, 40) if drop > 0 else (31, 119, 180)
            mix = tuple(round(255 - strength * (255 - ch)) for ch in rgb)
            ink = "#fff" if strength > 0.6 else "#1d2430"
            cells.append(
                {"code": t.code, "display": t.display, "text": heat_text(drop), "color": f"rgb{mix}", "ink": ink}
            )
        out.append({"name": comp.capitalize(), "cells": cells})
    return out


def _groups(summary: Summary) -> list[dict[str, Any]]:
    def group(name: str, cell: Any, drop: float | None, bold: bool) -> dict[str, Any]:
        ci = "" if cell.ci95 is None else f"± {cell.ci95:.3f}"
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
    for code, cell in summary.beyond_by_type.items():  # Appendix N, apart from the paper's numbers
        name = f"Beyond the paper: {TYPES[code].display} ({code})"
        rows.append(group(name, cell, summary.beyond_drop_by_type.get(code), False))
    if summary.attack_success is not None:
        rows.append(group("Beyond the paper: injection attack success ↓", summary.attack_success, None, False))
    return rows


def _pp(drop: float | None) -> str:
    return "" if drop is None else frac(drop, signed=True)


@dataclass(frozen=True)
class Limits:
    """What the service accepts (all configurable; docs/leaderboard.md)."""

    max_upload_bytes: int = DEFAULT_MAX_BYTES
    """Largest request body; refused with 413 by Content-Length, or as soon as a streamed body passes it."""
    max_storage_bytes: int | None = DEFAULT_MAX_STORAGE
    """Total stored (compressed uploads, verdicts, summaries); a submission past it gets 507."""
    uploads_per_hour: int = DEFAULT_UPLOADS_PER_HOUR
    """Upload attempts per client address in any hour (0: no limit); past it, 429."""
    page_size: int = DEFAULT_PAGE_SIZE
    """Rows per page of the ranked table (``GET /?page=N``; the API's default ``limit``)."""


def create_app(
    bench_dir: Path,
    db_url: str,
    *,
    admin_token: str | None = None,
    max_bytes: int | None = None,
    tokens: TokenBook | None = None,
    limits: Limits | None = None,
    paper_rows: bool = True,
    scoring_nice: int = SCORING_NICE,
) -> Starlette:
    """The ASGI app. ``admin_token``: required (as ``Authorization: Bearer …``) to delete; none
    disables deletion. ``tokens``: operator-issued upload tokens (none: anonymous uploads).
    ``max_bytes`` overrides ``limits.max_upload_bytes``. ``paper_rows``: the paper's 21 models ranked
    among the submissions, marked as the paper's (``GET /api/paper`` lists them). ``scoring_nice``:
    how much lower the scoring process's CPU priority is (``web._scoring``)."""
    limits = limits or Limits()
    if max_bytes is not None:
        limits = dataclasses.replace(limits, max_upload_bytes=max_bytes)
    max_upload = limits.max_upload_bytes
    book = tokens or TokenBook({})
    bench = BenchIndex.load(bench_dir)
    store = Store(db_url, max_storage_bytes=limits.max_storage_bytes)
    uploads = RateLimiter(limits.uploads_per_hour, 3600.0)
    # uploads are parsed, scored and stored one at a time in a scoring process of their own, so
    # that the serving loop never waits on them (web/_scoring.py)
    scorer = Scorer(bench_dir, db_url, limits.max_storage_bytes, scoring_nice)
    version = BoardVersion(store.version)
    env = Environment(loader=PackageLoader("robustcall.web", "templates"), autoescape=select_autoescape())
    refs = reference_rows() if paper_rows else []

    def page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        html = env.get_template(name).render(
            version=bench.version,
            max_mb=max_upload // 2**20,
            tokens=book.required,
            versus_paper=bench.versus_paper,
            **ctx,
        )
        return HTMLResponse(html, status_code=status)

    async def accept(
        request: Request, model: str, token: str | None, data: bytes, model_type: str | None = None
    ) -> Submission | tuple[int, str]:
        """Store an upload, or ``(status, reason)``."""
        if len(data) > max_upload:
            return 413, f"rejected: the upload is {len(data):,} bytes; the limit is {max_upload:,}"
        try:
            owner = book.owner(token or None, model.strip())
            sid = await scorer.ingest(model, data, owner, model_type, max_upload)
        except PermissionError as exc:
            return 403, str(exc)
        except NameTaken as exc:
            return 409, str(exc)
        except StorageFull as exc:
            return 507, str(exc)
        except UploadError as exc:
            return 400, str(exc)
        except (RecursionError, ValueError, OverflowError) as exc:  # bad input no check above caught
            return 400, f"rejected: unreadable upload ({type(exc).__name__}: {str(exc)[:200]})"
        except ScoringUnavailable as exc:
            return 503, str(exc)
        version.changed()
        sub = await run_in_threadpool(store.get, sid)
        if sub is None:  # deleted between its commit and now
            return 404, "rejected: the submission was deleted as it was stored"
        return sub

    def throttled(request: Request) -> Response | None:
        wait = uploads.hit(request.client.host if request.client else "unknown")
        if wait is None:
            return None
        return JSONResponse(
            {"error": f"rejected: at most {limits.uploads_per_hour} uploads per hour from one address"},
            status_code=429,
            headers={"Retry-After": str(int(wait) + 1)},
        )

    def page_number(request: Request) -> int | None:
        number = _natural(request.query_params.get("page", "1"))
        return number if number is not None and 0 < number <= 1_000_000 else None

    async def table(request: Request, number: int, status: int = 200, error: str | None = None) -> Response:
        merged = await run_in_threadpool(merged_page, store.page, refs, number, limits.page_size)
        rows = [
            _paper_row(row, rank) if isinstance(row, ReferenceRow) else _row(row, rank) for rank, row in merged.entries
        ]
        return page(
            "index.html", status, rows=rows, page=number, more=merged.more, error=error, empty=merged.no_submissions
        )

    async def api_paper(request: Request) -> Response:
        return JSONResponse([dataclasses.asdict(r) for r in refs])

    async def index(request: Request) -> Response:
        number = page_number(request)
        if number is None:
            return HTMLResponse("bad page number", status_code=400)
        return await table(request, number)

    async def submit_form(request: Request) -> Response:
        limited = throttled(request)
        if limited is not None:
            return limited
        form = await request.form(max_part_size=max_upload + 1)
        upload = form.get("file")
        model = form.get("model")
        token = form.get("token")
        declared = form.get("type")
        if upload is None or isinstance(upload, str) or not isinstance(model, str):
            return await table(request, 1, 400, "rejected: choose a file and give a model name")
        data = await upload.read()
        header = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        kind = declared.strip() or None if isinstance(declared, str) else None
        got = await accept(request, model, (token if isinstance(token, str) else "") or header, data, kind)
        if isinstance(got, tuple):
            return await table(request, 1, got[0], got[1])
        return RedirectResponse(f"/submissions/{got.id}", status_code=303)

    def submission_id(request: Request) -> int | Response:
        raw: str = request.path_params["sid"]
        if not (raw.isascii() and raw.isdigit()):
            return JSONResponse({"error": f"no such submission: {raw[:40]!r} is not an id"}, status_code=404)
        sid = _natural(raw)
        if sid is None or sid > MAX_ID:
            shown = raw if len(raw) <= 40 else f"{raw[:20]}… ({len(raw):,} digits)"
            return JSONResponse({"error": f"bad submission id: ids are below 2^63, got {shown}"}, status_code=400)
        return sid

    async def submission_page(request: Request) -> Response:
        sid = submission_id(request)
        if isinstance(sid, Response):
            return sid
        sub = await run_in_threadpool(lambda: store.get(sid, full=True))
        if sub is None:
            return HTMLResponse("no such submission", status_code=404)
        summary = Summary.model_validate_json(sub.summary_json)
        missing = ", ".join(
            f"{TYPES[t].display if t in TYPES else t}: {n}" for t, n in json.loads(sub.coverage_json).items()
        )
        return page(
            "submission.html",
            sub=sub,
            origin=UPLOADED,
            date=sub.created_at.strftime("%Y-%m-%d %H:%M UTC"),
            groups=_groups(summary),
            heat=_heat(summary),
            infra=len(summary.infra_error_ids),
            missing=missing,
        )

    async def api_list(request: Request) -> Response:
        q = request.query_params
        offset, limit = _natural(q.get("offset", "0")), _natural(q.get("limit", str(limits.page_size)))
        if offset is None or limit is None or limit > MAX_API_LIMIT or offset > MAX_ID:
            return JSONResponse(
                {"error": f"bad paging: offset 0..2^63-1 and limit 0..{MAX_API_LIMIT} (decimal integers)"},
                status_code=400,
            )
        subs = await run_in_threadpool(store.page, offset, limit)
        return JSONResponse([_api_row(s) for s in subs])

    async def api_create(request: Request) -> Response:
        limited = throttled(request)
        if limited is not None:
            return limited
        model = request.query_params.get("model", "")
        token = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        data = await request.body()  # BodyLimit stops it at the limit
        got = await accept(request, model, token, data, request.query_params.get("type", "").strip() or None)
        if isinstance(got, tuple):
            return JSONResponse({"error": got[1]}, status_code=got[0])
        return JSONResponse(_api_row(got), status_code=201)

    async def api_get(request: Request) -> Response:
        sid = submission_id(request)
        if isinstance(sid, Response):
            return sid
        sub = await run_in_threadpool(lambda: store.get(sid, full=True))
        if sub is None:
            return JSONResponse({"error": "no such submission"}, status_code=404)
        body = _api_row(sub) | {
            "summary": json.loads(sub.summary_json),
            "missing_by_type": json.loads(sub.coverage_json),
        }
        return JSONResponse(body)

    async def api_verdicts(request: Request) -> Response:
        sid = submission_id(request)
        if isinstance(sid, Response):
            return sid
        text = await run_in_threadpool(store.verdicts, sid)
        if text is None:
            return JSONResponse({"error": "no such submission"}, status_code=404)
        return Response(text, media_type="application/x-ndjson")

    async def api_delete(request: Request) -> Response:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if admin_token is None or not hmac.compare_digest(given.encode(), admin_token.encode()):
            return JSONResponse({"error": "deleting needs the admin token (Authorization: Bearer …)"}, status_code=403)
        sid = submission_id(request)
        if isinstance(sid, Response):
            return sid
        found = await run_in_threadpool(store.delete, sid)
        version.changed()
        return JSONResponse({"deleted": found}, status_code=200 if found else 404)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    routes = [
        Route("/", index),
        Route("/submit", submit_form, methods=["POST"]),
        Route("/submissions/{sid}", submission_page),
        Route("/api/submissions", api_list),
        Route("/api/submissions", api_create, methods=["POST"]),
        Route("/api/submissions/{sid}", api_get),
        Route("/api/submissions/{sid}", api_delete, methods=["DELETE"]),
        Route("/api/submissions/{sid}/verdicts", api_verdicts),
        Route("/api/paper", api_paper),
    ]

    running = [0]  # lifespans open now: a test may run one app under several clients at once

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        running[0] += 1
        try:
            yield
        finally:
            running[0] -= 1
            if not running[0]:
                scorer.shutdown()
                store.dispose()

    # what the pages depend on besides the stored submissions: part of every ETag
    settings = f"{robustcall.__version__}|{bench.version}|{limits}|{book.required}|{paper_rows}"
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[
            Middleware(ReadCache, version=version, settings=hashlib.sha256(settings.encode()).hexdigest()[:8]),
            Middleware(SecurityHeaders),
            Middleware(BodyLimit, max_bytes=max_upload + FORM_OVERHEAD),
        ],
        exception_handlers={HTTPException: http_error},
    )
    app.state.store = store
    app.state.scorer = scorer
    app.state.bench = bench
    return app
