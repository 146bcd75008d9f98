"""Issue 43, item 10: reads come from a cache keyed by the board's version (ETag, 304), and uploads
are scored in a process of their own, off the serving loop."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from sqlalchemy import event
from starlette.testclient import TestClient

from robustcall.web import create_app
from robustcall.web._cache import VERSION_POLL_S
from robustcall.web._scoring import SCORING_NICE

READS = ["/", "/?page=2", "/api/submissions", "/api/submissions?limit=3", "/api/paper"]


def _client(lb_data: dict[str, Path], db_url: str) -> TestClient:
    return TestClient(create_app(lb_data["bench"], db_url, admin_token="s3cret"))


def test_reads_carry_an_etag_and_a_matching_if_none_match_gets_304(lb_data: dict[str, Path], db_url: str) -> None:
    data = lb_data["partial"].read_bytes()
    with _client(lb_data, db_url) as client:
        sid = client.post("/api/submissions?model=first", content=data).json()["id"]
        reads = [*READS, f"/submissions/{sid}", f"/api/submissions/{sid}", f"/api/submissions/{sid}/verdicts"]
        tags = {}
        for path in reads:
            r = client.get(path)
            assert r.status_code == 200, path
            assert r.headers["cache-control"] == "no-cache"
            tags[path] = r.headers["etag"]
            again = client.get(path, headers={"If-None-Match": tags[path]})
            assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", tags[path])
            assert again.headers["x-frame-options"] == "DENY"
            assert client.get(path, headers={"If-None-Match": f'"other", W/{tags[path]}'}).status_code == 304
            assert client.get(path, headers={"If-None-Match": '"other"'}).status_code == 200
        assert len(set(tags.values())) == len(reads)  # one tag per resource
        missing = client.get("/api/submissions/999")
        assert missing.status_code == 404 and "etag" not in missing.headers
        # an upload changes the version: every old tag is stale, and the pages show the new row
        client.post("/api/submissions?model=second", content=data)
        for path in READS:
            r = client.get(path, headers={"If-None-Match": tags[path]})
            assert r.status_code == 200 and r.headers["etag"] != tags[path], path
        assert "second" in client.get("/").text
        listed = [row["model"] for row in client.get("/api/submissions").json()]
        assert sorted(listed) == ["first", "second"]
        # so does a deletion
        before = client.get("/api/submissions").headers["etag"]
        assert client.delete(f"/api/submissions/{sid}", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        after = client.get("/api/submissions", headers={"If-None-Match": before})
        assert after.status_code == 200 and [row["model"] for row in after.json()] == ["second"]
        assert client.get(f"/submissions/{sid}").status_code == 404


def test_cached_reads_do_not_query_the_submissions(lb_data: dict[str, Path], db_url: str) -> None:
    with _client(lb_data, db_url) as client:
        client.post("/api/submissions?model=m", content=lb_data["partial"].read_bytes())
        first = {path: client.get(path).content for path in READS}
        statements: list[str] = []
        event.listen(client.app.state.store.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))  # type: ignore[attr-defined]
        for _ in range(20):
            assert {path: client.get(path).content for path in READS} == first
    # at most the version row, read again when older than the poll interval
    assert [s for s in statements if "board_state" not in s] == []


def test_a_write_by_another_process_shows_within_the_poll_interval(lb_data: dict[str, Path], db_url: str) -> None:
    """Two apps on one database stand for two ``--workers``: one's upload is on the other's pages
    once its version is read again (at most ``VERSION_POLL_S`` later)."""
    data = lb_data["partial"].read_bytes()
    with _client(lb_data, db_url) as reader, _client(lb_data, db_url) as writer:
        assert reader.get("/api/submissions").json() == []
        assert writer.post("/api/submissions?model=elsewhere", content=data).status_code == 201
        time.sleep(VERSION_POLL_S)
        # the first request past the poll interval reads the version in the background and is
        # answered from what was read before; the next ones see the new version once that read is in
        deadline = time.monotonic() + 10
        while (rows := reader.get("/api/submissions").json()) == [] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [row["model"] for row in rows] == ["elsewhere"]
        assert "elsewhere" in reader.get("/").text


def test_uploads_are_scored_in_a_lower_priority_process(
    lb_data: dict[str, Path], db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def not_here(*_a: object, **_k: object) -> None:
        raise AssertionError("scored on the serving process")

    monkeypatch.setattr("robustcall.web._scoring.score_upload", not_here)
    data = lb_data["partial"].read_bytes()
    with _client(lb_data, db_url) as client:
        scorer = client.app.state.scorer  # type: ignore[attr-defined]
        assert scorer.pids() == []  # started on the first upload
        assert client.post("/api/submissions?model=m", content=data).status_code == 201
        [pid] = scorer.pids()
        assert pid != os.getpid()
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, ours + SCORING_NICE)
        # a scoring process that dies costs the upload in it (503), not the service
        os.kill(pid, signal.SIGKILL)
        r = client.post("/api/submissions?model=m", content=data)
        assert (r.status_code, r.json()) == (
            503,
            {"error": "the scoring process stopped (out of memory?); nothing was stored"},
        )
        assert client.post("/api/submissions?model=m", content=data).status_code == 201
        assert scorer.pids() != [pid]
        assert client.get("/").status_code == 200


def test_readers_asking_at_once_for_a_page_not_yet_kept_render_it_once(lb_data: dict[str, Path], db_url: str) -> None:
    """After an upload every page is new; the readers that ask for one while it is rendered wait
    for that answer instead of each querying and rendering it again."""
    import asyncio

    app = create_app(lb_data["bench"], db_url)
    statements: list[str] = []
    event.listen(app.state.store.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))

    async def get(path: str) -> tuple[int, bytes]:
        sent: list[dict[str, object]] = []

        async def receive() -> dict[str, object]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, object]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
                 "headers": [], "http_version": "1.1", "scheme": "http", "server": ("test", 80),
                 "client": ("127.0.0.1", 1), "root_path": ""}  # fmt: skip
        await app(scope, receive, send)  # type: ignore[arg-type]
        return int(sent[0]["status"]), b"".join(m.get("body", b"") for m in sent[1:])  # type: ignore[misc, call-overload]

    async def ten() -> list[tuple[int, bytes]]:
        return await asyncio.gather(*(get("/") for _ in range(10)))

    answers = asyncio.run(ten())
    app.state.store.dispose()
    assert len(set(answers)) == 1 and answers[0][0] == 200
    assert len([s for s in statements if "FROM submissions" in s]) == 1
