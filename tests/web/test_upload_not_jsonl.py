"""Uploading a JSON file that is not JSONL (a summary.json) is refused once, not line by line."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from robustcall.web import create_app


def test_a_pretty_printed_json_document_is_not_jsonl(lb_data: dict[str, Path], tmp_path: Path) -> None:
    summary = json.dumps({"clean": {"n": 32, "accuracy": 1.0}, "by_type": {"CD": {"n": 26}}}, indent=2)
    listing = json.dumps([json.loads(line) for line in lb_data["oracle"].read_text().splitlines()[:3]], indent=1)
    with TestClient(create_app(lb_data["bench"], f"sqlite:///{tmp_path / 'lb.db'}")) as client:
        for body in (summary, listing):
            r = client.post("/api/submissions?model=m", content=body.encode())
            error = r.json()["error"]
            assert r.status_code == 400 and "not JSONL" in error, r.text
            assert error.count("not JSON") == 1 and "line 2" not in error, error
        form = client.post("/submit", data={"model": "m"}, files={"file": ("summary.json", summary.encode())})
        assert form.status_code == 400 and form.text.count("not JSON") == 1
