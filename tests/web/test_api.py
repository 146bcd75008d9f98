"""The leaderboard through its JSON API and form endpoint, against SQLite and a real PostgreSQL."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from starlette.testclient import TestClient

from robustcall.core import Verdict
from robustcall.score import score_run
from robustcall.web import create_app


def _client(lb_data: dict[str, Path], db_url: str, **kw: object) -> TestClient:
    return TestClient(create_app(lb_data["bench"], db_url, admin_token="s3cret", **kw))  # type: ignore[arg-type]


def test_upload_scores_server_side_and_ranks(lb_data: dict[str, Path], db_url: str) -> None:
    with _client(lb_data, db_url) as client:
        first = client.post("/api/submissions?model=first-tool", content=lb_data["first_tool"].read_bytes())
        assert first.status_code == 201, first.text
        oracle = client.post("/api/submissions?model=oracle", content=lb_data["oracle"].read_bytes())
        assert oracle.status_code == 201, oracle.text
        body = oracle.json()
        assert body["partial"] is False and body["answered"] == body["expected"]
        assert body["pert_acc"] == 1.0 and body["clean"] == 1.0
        ranked = client.get("/api/submissions").json()
        assert [r["model"] for r in ranked] == ["oracle", "first-tool"]  # by Pert. Acc.
        # the stored verdicts are exactly what `robustcall score` gives on the same predictions
        stored = client.get(f"/api/submissions/{first.json()['id']}/verdicts").text
        local = score_run(lb_data["first_tool"].parent, resamples=0)[0]
        assert [Verdict.model_validate_json(line) for line in stored.splitlines()] == local
        page = client.get("/").text
        assert page.index("oracle") < page.index("first-tool")


def test_golden_answers_come_from_the_server(lb_data: dict[str, Path], db_url: str, tmp_path: Path) -> None:
    """A submitter who edits the golden answers in their file gains nothing."""
    lines = lb_data["first_tool"].read_text().splitlines()
    forged = []
    for line in lines:
        rec = json.loads(line)
        rec["golden_answers"] = [
            {"name": c["name"], "parameters": c["parameters"]} for c in rec["prediction"]["tool_calls"]
        ]
        forged.append(json.dumps(rec))
    with _client(lb_data, db_url) as client:
        honest = client.post("/api/submissions?model=a", content="\n".join(lines).encode()).json()
        cheat = client.post("/api/submissions?model=b", content="\n".join(forged).encode()).json()
    assert cheat["pert_acc"] == honest["pert_acc"] < 1.0


def test_rejections_are_clear_and_leave_the_store_untouched(lb_data: dict[str, Path], db_url: str) -> None:
    good = lb_data["oracle"].read_text().splitlines()
    cases = {
        "line 2: not JSON": good[0] + "\n{oops\n",
        "line 1: id 'nope' is not in benchmark version": '{"id": "nope", "prediction": {}}\n',
        "line 2: duplicate id": good[0] + "\n" + good[0] + "\n",
        "line 1: prediction.tool_calls": json.dumps({"id": json.loads(good[0])["id"], "prediction": {"tool_calls": 3}}),
        "answers no record": "\n\n",
        "a model name of 1 to 200 characters": good[0],
    }
    with _client(lb_data, db_url, max_bytes=len(lb_data["oracle"].read_bytes()) - 1) as client:
        for expected, body in cases.items():
            model = "" if "model name" in expected else "m"
            r = client.post(f"/api/submissions?model={model}", content=body.encode())
            assert r.status_code == 400 and expected in r.json()["error"], (expected, r.text)
        too_big = client.post("/api/submissions?model=m", content=lb_data["oracle"].read_bytes())
        assert too_big.status_code == 413 and "the limit is" in too_big.json()["error"]
        form = client.post("/submit", data={"model": "m"}, files={"file": ("p.jsonl", b"{oops\n")})
        assert form.status_code == 400 and "line 1: not JSON" in form.text
        assert client.get("/api/submissions").json() == []


def test_partial_submissions_are_marked(lb_data: dict[str, Path], db_url: str) -> None:
    with _client(lb_data, db_url) as client:
        r = client.post("/api/submissions?model=partial", content=lb_data["partial"].read_bytes())
        assert r.status_code == 201 and r.json()["partial"] is True
        detail = client.get(f"/api/submissions/{r.json()['id']}").json()
        assert detail["answered"] < detail["expected"] and detail["missing_by_type"]["clean"] == 32 - 4
        assert "partial" in client.get("/").text


def test_deletion_needs_the_admin_token(lb_data: dict[str, Path], db_url: str) -> None:
    with _client(lb_data, db_url) as client:
        sid = client.post("/api/submissions?model=m", content=lb_data["partial"].read_bytes()).json()["id"]
        assert client.delete(f"/api/submissions/{sid}").status_code == 403
        assert client.delete(f"/api/submissions/{sid}", headers={"Authorization": "Bearer wrong"}).status_code == 403
        assert client.delete(f"/api/submissions/{sid}", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert client.get(f"/api/submissions/{sid}").status_code == 404


def test_concurrent_uploads_lose_nothing(lb_data: dict[str, Path], db_url: str) -> None:
    data = lb_data["partial"].read_bytes()
    app = create_app(lb_data["bench"], db_url, admin_token="s3cret")
    codes: list[int] = []

    def upload(i: int) -> None:
        with TestClient(app) as client:
            codes.append(client.post(f"/api/submissions?model=m{i}", content=data).status_code)

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [201] * 8
    with TestClient(app) as client:
        ranked = client.get("/api/submissions").json()
    assert sorted(r["model"] for r in ranked) == [f"m{i}" for i in range(8)]
    assert len({r["id"] for r in ranked}) == 8
