"""Issue 43, item 10: ``leaderboard serve --workers N``: several serving processes on one port and
one database (SQLite here, PostgreSQL too when ``ROBUSTCALL_TEST_PG_URL`` is set), writers serialised
across them, every worker stopped with the server."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from _live_server import LiveServer

PG_URL = os.environ.get("ROBUSTCALL_TEST_PG_URL")


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _post(server: LiveServer, name: str, body: bytes, token: str) -> int:
    req = urllib.request.Request(
        f"{server.base}/api/submissions?model={urllib.request.quote(name)}",
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_workers_share_the_port_and_serialise_look_alike_uploads(
    lb_data: dict[str, Path], serve: Callable[..., LiveServer], store: str
) -> None:
    db: list[str] = []
    if store == "postgresql":
        if not PG_URL:
            pytest.skip("ROBUSTCALL_TEST_PG_URL not set (.ci/run starts PostgreSQL and sets it)")
        from sqlalchemy import create_engine, text

        engine = create_engine(PG_URL)
        with engine.begin() as conn:
            conn.execute(text("DROP TABLE IF EXISTS submissions"))
            conn.execute(text("DROP TABLE IF EXISTS board_state"))
        engine.dispose()
        db = ["--db", PG_URL]
    server = serve("--workers", "2", "--uploads-per-hour", "0", *db)
    workers = _children(server.proc.pid)
    assert len(workers) == 2
    data = lb_data["partial"].read_bytes()
    # each round: two owners at once under names that look alike; one of the two must be refused,
    # whichever worker each lands on (the name check and the insert hold across processes)
    codes: list[tuple[int, int]] = []
    for k in range(3):
        got: list[int] = []

        def upload(name: str, token: str, got: list[int] = got) -> None:
            got.append(_post(server, name, data, token))

        threads = [
            threading.Thread(target=upload, args=(f"race-{k}", "token-of-uploader-a-1234")),
            threading.Thread(target=upload, args=(f"race-{k}\u2800", "token-of-uploader-b-5678")),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes.append((min(got), max(got)))
    assert codes == [(201, 409)] * 3
    # each worker reads the board's version again every 0.2 s (in the background): soon every answer,
    # whichever worker gives it, is the same board
    expected = ["race-0", "race-1", "race-2"]
    same, deadline = 0, time.monotonic() + 20
    while same < 10 and time.monotonic() < deadline:
        rows = json.loads(urllib.request.urlopen(f"{server.base}/api/submissions", timeout=10).read())
        same = same + 1 if sorted(r["model"].rstrip("\u2800") for r in rows) == expected else 0
        time.sleep(0.02)
    assert same == 10
    server.proc.terminate()
    server.proc.wait(30)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in workers if Path(f"/proc/{pid}").exists()] == []
    assert server.proc.returncode == 0


def test_the_workers_socket_gets_tcp_nodelay_on_every_connection() -> None:
    """asyncio sets TCP_NODELAY only on sockets made with ``IPPROTO_TCP``; without it a keep-alive
    answer written in two parts (headers, body) waited about 40 ms for a delayed ACK (the first
    ``--workers 2`` measurement: 166 requests/s at 8 readers)."""
    import asyncio
    import socket

    from robustcall.web import listening_socket

    sock = listening_socket("127.0.0.1", 0, 8)
    assert sock.proto == socket.IPPROTO_TCP
    seen: list[int] = []

    async def main() -> None:
        def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(on_connect, sock=sock)
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        while not seen:
            await asyncio.sleep(0.01)
        writer.close()
        server.close()

    asyncio.run(main())
    assert seen == [1]


def test_workers_on_a_taken_port_is_one_line_and_exit_3(lb_data: dict[str, Path], tmp_path: Path) -> None:
    import socket

    from typer.testing import CliRunner

    from robustcall.cli.main import app

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        res = CliRunner().invoke(
            app,
            ["leaderboard", "serve", "--bench", str(lb_data["bench"]), "--db", f"sqlite:///{tmp_path / 'lb.db'}",
             "--port", str(port), "--workers", "2"],
        )  # fmt: skip
    assert res.exit_code == 3, res.output
    assert res.output.strip().splitlines() == [f"error: cannot listen on 127.0.0.1:{port}: Address already in use"]
