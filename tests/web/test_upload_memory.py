"""Uploads at the size limit are handled in bounded memory (issue 30, item 3): a live server's RSS,
read from /proc while it works, stays under 300 MB through each kind of upload and after them, and
so does its scoring process's (issue 43).
Old main grew by about 1.25 GB per 20 MB upload of ``1`` lines and kept it."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from _live_server import LiveServer

LIMIT_MB = 20
LIMIT = LIMIT_MB * 2**20
RSS_CAP_MB = 300


def _fill_to(lines: list[bytes], size: int, pad_key: str = "pad") -> list[bytes]:
    """The records padded (an ignored field) so that, with newlines, they add up to ``size`` bytes."""
    room = size - sum(len(line) + 1 for line in lines)
    each, extra = divmod(room, len(lines))
    out = []
    for i, line in enumerate(lines):
        obj = json.loads(line)
        obj[pad_key] = ""
        text = json.dumps(obj).encode()
        obj[pad_key] = "x" * (each - (len(text) - len(line)) + (extra if i == 0 else 0))
        out.append(json.dumps(obj).encode())
    assert sum(len(line) + 1 for line in out) == size
    return out


def _uploads(oracle: Path) -> dict[str, bytes]:
    records = oracle.read_bytes().splitlines()
    first = json.loads(records[0])
    head = json.dumps({"id": first["id"], "prediction": {"raw_output": ""}})[:-2]  # ...{"raw_output": ""
    one_line = json.dumps({"id": first["id"], "prediction": {"raw_output": ""}})
    one_line = one_line.replace('""', '"' + "y" * (LIMIT - len(one_line)) + '"', 1)
    depth = (LIMIT - len(head) - 10) // 2
    nested = head + ', "x": ' + "[" * depth + "]" * depth + "}}"
    dupes = [json.dumps({"id": json.loads(r)["id"]}).encode() for r in records]
    errors = [dupes[i % len(dupes)] for i in range(100_000)]
    tail = b"\n".join(errors) + b"\n"  # every record once, then 100,000 repeated ids
    with_errors = b"\n".join(_fill_to(records, LIMIT - len(tail))) + b"\n" + tail
    return {
        "ones": b"1\n" * (LIMIT // 2),
        "one line": one_line.encode(),
        "nested": nested.encode() + b" " * (LIMIT - len(nested)),
        "valid with 100k errors": with_errors,
        "valid": b"\n".join(_fill_to(records, LIMIT)) + b"\n",
    }


def _post(server: LiveServer, name: str, body: bytes) -> tuple[int, str]:
    url = f"{server.base}/api/submissions?model={name.replace(' ', '-')}"
    req = urllib.request.Request(url, data=body, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=300) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_uploads_at_the_size_limit_keep_the_server_under_300_mb(
    lb_data: dict[str, Path], serve: Callable[..., LiveServer]
) -> None:
    uploads = _uploads(lb_data["oracle"])
    assert all(len(body) == LIMIT for body in uploads.values()), {k: len(v) for k, v in uploads.items()}
    server = serve("--max-upload-mb", str(LIMIT_MB), "--uploads-per-hour", "0")
    peak = [server.rss_mb()]
    helpers: dict[int, float] = {}  # the scoring process (and the forkserver it comes from): peak each
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak.append(server.rss_mb())
            for pid, mb in server.helpers_rss_mb().items():
                helpers[pid] = max(mb, helpers.get(pid, 0.0))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    got = {}
    try:
        for _ in range(2):  # the second round finds the memory the first one freed
            for name, body in uploads.items():
                got[name] = _post(server, name, body)
    finally:
        done.set()
        sampler.join(5)
    after = server.rss_mb()
    print(f"RSS: start {peak[0]:.0f} MB, peak {max(peak):.0f} MB, after {after:.0f} MB; helpers' peaks {helpers}")
    assert got["ones"][0] == 400 and "expected an object" in got["ones"][1], got["ones"]
    assert got["nested"][0] == 400 and "nested too deeply" in got["nested"][1], got["nested"]
    errors = got["valid with 100k errors"]
    assert errors[0] == 400 and "duplicate id" in errors[1] and "reading stopped" in errors[1], errors[1][:300]
    assert got["one line"][0] == 201, got["one line"]
    assert got["valid"][0] == 201 and json.loads(got["valid"][1])["pert_acc"] == 1.0, got["valid"][1][:300]
    assert max(peak) < RSS_CAP_MB, f"peak RSS {max(peak):.0f} MB over {len(peak)} samples"
    assert after < RSS_CAP_MB, f"RSS after the uploads: {after:.0f} MB"
    # since issue 43 the upload is parsed and scored in a scoring process: it is bounded the same way
    assert helpers and max(helpers.values()) < RSS_CAP_MB, helpers
