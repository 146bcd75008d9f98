"""Read latency of the leaderboard under many readers, with and without big uploads being scored.

Starts ``robustcall leaderboard serve`` (from ``--src``, so that an older checkout can be measured
the same way: ``--src /path/to/old/src``) on a board seeded with ``--seed-subs`` submissions, then
for each reader count (``--readers 8,64``) runs ``--seconds`` of closed-loop readers (each sends
its next request as soon as the last one is answered, over its own keep-alive connection) with
and without an uploader that posts a ``--upload-mb`` MiB valid predictions file (the oracle run's
records padded with an ignored field) again and again. The readers cycle through ``GET /``,
``GET /api/submissions``, ``GET /submissions/{id}`` and ``GET /api/submissions/{id}``; the load
client is one asyncio process beside the server, on the same machine (its time counts in the
latency, as a real client's would). ``--conditional``: readers send ``If-None-Match`` with the last
ETag they got (a browser revalidating); by default every read is a full 200.

Prints p50 / p99 / max latency, requests per second, non-200 answers and uploads finished per
scenario, with the load average before each: the machine may be shared, so repeat and compare
runs made under the same load. Goal (issue 43, item 10): p99 < 200 ms at 64 readers while uploads
are scored, on 2 cores with the client beside the server.

usage: python benchmarks/leaderboard_load.py [--src SRC] [--workers N] [--db URL] [--seconds 10]
       [--readers 8,64] [--upload-mb 20] [--seed-subs 30] [--bench DIR] [--conditional]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _cli(src: Path, *args: str, **kw: object) -> subprocess.CompletedProcess[bytes]:
    env = os.environ | {"PYTHONPATH": str(src), "ROBUSTCALL_PURE_PYTHON": os.environ.get("ROBUSTCALL_PURE_PYTHON", "1")}
    return subprocess.run([sys.executable, "-m", "robustcall.cli.main", *args], env=env, check=True, **kw)  # type: ignore[call-overload]


def _padded(lines: list[bytes], size: int) -> bytes:
    """The records with an ignored ``pad`` field so that, with newlines, they are ``size`` bytes."""
    room = size - sum(len(line) + 1 for line in lines)
    each, extra = divmod(room, len(lines))
    out = []
    for i, line in enumerate(lines):
        obj = json.loads(line)
        obj["pad"] = ""
        base = len(json.dumps(obj).encode())
        obj["pad"] = "x" * (each - (base - len(line)) + (extra if i == 0 else 0))
        out.append(json.dumps(obj).encode())
    return b"\n".join(out) + b"\n"


def _post(base: str, name: str, body: bytes) -> int:
    req = urllib.request.Request(f"{base}/api/submissions?model={name}", data=body, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=600) as resp:
            json.loads(resp.read())
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


# --- the load client (run as a child process: ``--client JSON``) ---------------------------------


async def _reader(host: str, port: int, paths: list[str], start: int, until: float, warm: float, conditional: bool,
                  out: list[float], bad: list[int]) -> None:  # fmt: skip
    reader, writer = await asyncio.open_connection(host, port)
    etags: dict[str, bytes] = {}
    i = start
    while True:
        now = time.perf_counter()
        if now >= until:
            break
        path = paths[i % len(paths)]
        i += 1
        extra = b"If-None-Match: " + etags[path] + b"\r\n" if conditional and path in etags else b""
        writer.write(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: bench\r\n" + extra + b"\r\n")
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"etag":
                etags[path] = value.strip()
        if length:
            await reader.readexactly(length)
        done = time.perf_counter()
        if now >= warm:
            out.append(done - now)
            if status not in (200, 304):
                bad.append(status)
    writer.close()


async def _client(spec: dict[str, object]) -> dict[str, object]:
    readers = int(spec["readers"])  # type: ignore[call-overload]
    seconds = float(spec["seconds"])  # type: ignore[arg-type]
    paths = list(spec["paths"])  # type: ignore[call-overload]
    t0 = time.perf_counter()
    warm, until = t0 + 1.0, t0 + 1.0 + seconds
    out: list[float] = []
    bad: list[int] = []
    await asyncio.gather(
        *(
            _reader("127.0.0.1", int(spec["port"]), paths, k * 7, until, warm, bool(spec["conditional"]), out, bad)  # type: ignore[call-overload]
            for k in range(readers)
        )
    )
    out.sort()
    n = len(out)
    return {
        "n": n,
        "rps": n / seconds,
        "p50_ms": 1000 * out[n // 2] if n else None,
        "p99_ms": 1000 * out[min(n - 1, int(n * 0.99))] if n else None,
        "max_ms": 1000 * out[-1] if n else None,
        "non_2xx_3xx": len(bad),
    }


# --- the driver ----------------------------------------------------------------------------------


def _scenario(port: int, base: str, readers: int, seconds: float, paths: list[str], conditional: bool,
              upload: bytes | None, tag: str) -> dict[str, object]:  # fmt: skip
    stop = threading.Event()
    uploads: list[tuple[int, float]] = []

    def upload_loop() -> None:
        k = 0
        while not stop.is_set():
            t = time.perf_counter()
            status = _post(base, f"load-{tag}-{k}", upload)  # type: ignore[arg-type]
            uploads.append((status, time.perf_counter() - t))
            k += 1

    thread = threading.Thread(target=upload_loop, daemon=True) if upload is not None else None
    if thread is not None:
        thread.start()
        time.sleep(1.0)  # the first upload is being received and scored
    load = os.getloadavg()[0]
    spec = {"port": port, "readers": readers, "seconds": seconds, "paths": paths, "conditional": conditional}
    got = subprocess.run(
        [sys.executable, __file__, "--client", json.dumps(spec)], check=True, capture_output=True, text=True
    )
    result: dict[str, object] = json.loads(got.stdout)
    stop.set()
    if thread is not None:
        thread.join()
    result["load_before"] = load
    result["uploads"] = [(s, round(d, 1)) for s, d in uploads]
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--client", help=argparse.SUPPRESS)
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the robustcall source tree to serve from")
    ap.add_argument("--workers", type=int, default=0, help="pass --workers N to the server (0: leave it out)")
    ap.add_argument("--db", default="", help="database URL (default: a fresh SQLite file); its table is dropped")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--readers", default="8,64")
    ap.add_argument("--upload-mb", type=int, default=20)
    ap.add_argument("--seed-subs", type=int, default=30)
    ap.add_argument("--bench", type=Path, help="a built benchmark (default: build the BFCL one)")
    ap.add_argument("--conditional", action="store_true", help="readers revalidate with If-None-Match")
    ap.add_argument("--port", type=int, default=8731)
    args = ap.parse_args()
    if args.client:
        print(json.dumps(asyncio.run(_client(json.loads(args.client)))))
        return
    src = args.src.resolve()
    work = Path(tempfile.mkdtemp(prefix="lb-load-"))
    try:
        bench = args.bench
        if bench is None:
            bench = work / "bench"
            _cli(src, "build", "--sources", "bfcl", "--seed", "0", "--out", str(bench), stdout=subprocess.DEVNULL)
        _cli(src, "run", "--bench", str(bench), "--model", "scripted:oracle", "--out", str(work / "oracle"),
             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        oracle = (work / "oracle" / "predictions.jsonl").read_bytes()
        big = _padded(oracle.splitlines(), args.upload_mb * 2**20)
        db = args.db or f"sqlite:///{work / 'lb.db'}"
        if args.db:
            from sqlalchemy import create_engine, text

            engine = create_engine(args.db)
            with engine.begin() as conn:
                conn.execute(text("DROP TABLE IF EXISTS submissions"))
                conn.execute(text("DROP TABLE IF EXISTS board_state"))
            engine.dispose()
        limits = ["--uploads-per-hour", "0", "--max-storage-mb", "0", "--max-upload-mb", str(args.upload_mb + 1)]
        serve = ["leaderboard", "serve", "--bench", str(bench), "--db", db, "--port", str(args.port), *limits]
        if args.workers:
            serve += ["--workers", str(args.workers)]
        env = os.environ | {"PYTHONPATH": str(src), "ROBUSTCALL_PURE_PYTHON": "1"}
        cmd = [sys.executable, "-m", "robustcall.cli.main", *serve]
        server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{args.port}"
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(f"{base}/api/submissions", timeout=2).read()
                    break
                except OSError:
                    assert server.poll() is None, "the server exited"
                    time.sleep(0.2)
            for k in range(args.seed_subs):
                assert _post(base, f"seed-{k}", oracle) == 201
            rows = json.loads(urllib.request.urlopen(f"{base}/api/submissions?limit=500").read())
            ids = [r["id"] for r in rows]
            paths = []
            for sid in ids:
                paths += ["/", "/api/submissions", f"/submissions/{sid}", f"/api/submissions/{sid}"]
            commit = subprocess.run(["git", "-C", str(src), "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()  # fmt: skip
            print(f"# src {src} ({commit or '?'}), workers {args.workers or '-'}, db {db.split(':')[0]}, "
                  f"{len(ids)} submissions, upload {len(big) / 2**20:.0f} MiB, {args.seconds:g} s per scenario, "
                  f"{os.cpu_count()} CPUs, conditional={args.conditional}")  # fmt: skip
            for readers in (int(r) for r in args.readers.split(",")):
                for with_uploads in (False, True):
                    tag = f"{readers}{'u' if with_uploads else ''}"
                    r = _scenario(args.port, base, readers, args.seconds, paths, args.conditional,
                                  big if with_uploads else None, tag)  # fmt: skip
                    ups = r["uploads"]
                    print(f"readers {readers:3d}  uploads {'on ' if with_uploads else 'off'}  "
                          f"p50 {r['p50_ms']:7.1f} ms  p99 {r['p99_ms']:7.1f} ms  max {r['max_ms']:7.1f} ms  "
                          f"{r['rps']:7.0f} req/s  non-2xx/304 {r['non_2xx_3xx']}  "
                          f"uploads {len(ups)} {ups}  load {r['load_before']:.1f}", flush=True)  # type: ignore[arg-type]  # fmt: skip
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
