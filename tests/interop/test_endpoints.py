"""Several endpoints in one run: replicas of one model balanced by least outstanding requests, with
per-endpoint health; one replica dies mid-run and no record is lost or duplicated."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from mock_servers import ChatServer, completion
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.models._endpoints import EndpointPool
from robustcall.run import parse_types, plan_work

runner = CliRunner()


async def _answer(body: dict[str, Any]) -> dict[str, Any]:
    await asyncio.sleep(0.02)  # keeps several requests in flight per replica
    user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    return completion("[]" if len(user) % 2 == 0 else "[f()]")


def _records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]


def test_three_replicas_one_dies_mid_run_no_record_lost_or_duplicated(tiny_bench: Path, tmp_path: Path) -> None:
    victim_box: list[ChatServer] = []
    killed = threading.Event()

    async def dying(body: dict[str, Any]) -> dict[str, Any]:
        if len(victim_box[0].seen) == 6 and not killed.is_set():
            killed.set()
            threading.Thread(target=victim_box[0].kill).start()  # dies with requests in flight
            await asyncio.sleep(1)
        return await _answer(body)

    a, victim, c = ChatServer(_answer), ChatServer(dying), ChatServer(_answer)
    victim_box.append(victim)
    settings = tmp_path / "s.yaml"
    settings.write_text("m: {backoff_base_s: 0.05, backoff_max_s: 0.2}\n")
    try:
        res = runner.invoke(
            app,
            ["run", "--bench", str(tiny_bench), "--out", str(tmp_path / "multi"), "--types", "static",
             "--model", "openai/m", "--base-url", a.base_url, "--base-url", victim.base_url,
             "--base-url", c.base_url, "--concurrency", "9", "--settings", str(settings)],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        single = ChatServer(_answer)
        res1 = runner.invoke(
            app,
            ["run", "--bench", str(tiny_bench), "--out", str(tmp_path / "one"), "--types", "static",
             "--model", "openai/m", "--base-url", single.base_url, "--concurrency", "9"],
        )  # fmt: skip
        single.stop()
        assert res1.exit_code == 0, res1.output
    finally:
        for server in (a, victim, c):
            server.stop()
    assert killed.is_set()
    records = _records(tmp_path / "multi")
    planned = {it.key for it in plan_work(tiny_bench, parse_types("static"))}
    keys = [(r["id"], r["perturbation"]["type"], r.get("trial", 0)) for r in records]  # K = 1: no trial field
    assert len(keys) == len(set(keys)) == len(planned) and set(keys) == planned  # none lost, none twice
    assert [r for r in records if r["prediction"].get("error_kind") == "infra"] == []
    meta = json.loads((tmp_path / "multi" / "run.json").read_text())
    eps = {e["url"]: e for e in meta["endpoints"]}
    dead = eps[victim.base_url + "/chat/completions"]
    assert dead["failed"] >= 1 and dead["marked_down"] >= 1 and not dead["healthy"]
    assert (eps[a.base_url + "/chat/completions"]["ok"], eps[c.base_url + "/chat/completions"]["ok"]) == (
        len(a.seen),
        len(c.seen),
    )
    assert dead["ok"] == 5  # the 6th request it received killed it
    assert dead["requests"] == dead["ok"] + dead["failed"]  # the rest failed over
    assert sum(e["ok"] for e in eps.values()) == len(records)  # one answer per record
    assert len(a.seen) > 6 and len(c.seen) > 6  # the survivors took the rest
    assert "endpoints" in res.output
    for run in ("multi", "one"):
        assert runner.invoke(app, ["score", str(tmp_path / run), "--bootstrap", "100"]).exit_code == 0
    assert (tmp_path / "multi" / "scores.jsonl").read_bytes() == (tmp_path / "one" / "scores.jsonl").read_bytes()


def test_least_outstanding_and_health_rules() -> None:
    async def go() -> None:
        pool = EndpointPool(["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1", "http://127.0.0.1:3/v1"], limit=4,
                            headers={})  # fmt: skip
        a, b, c = pool.endpoints
        assert pool.pick(0.0) is a
        a.outstanding, a.sent = 2, 2
        b.outstanding, b.sent = 1, 5
        c.outstanding, c.sent = 1, 3
        assert pool.pick(0.0) is c  # fewest outstanding, then fewest sent
        pool._failed(c, now=10.0)
        assert (c.healthy, c.down_until, c.marked_down) == (False, 11.0, 1)
        assert pool.pick(10.5) is b  # c cools down
        c.outstanding = 0
        assert pool.pick(11.0) is c  # cooled down, no probe in flight: it gets one probe
        c.outstanding = 1
        assert pool.pick(11.0) is b  # its probe is in flight: nothing more
        pool._failed(c, now=12.0)
        assert (c.down_until, c.marked_down, c.streak) == (14.0, 1, 2)  # the cooldown doubles
        for ep in (a, b):
            pool._failed(ep, now=12.0)
        assert pool.pick(12.5) is b  # all down: the one back soonest (a and b tie at 13 s; b has fewer in flight)
        await pool.aclose()

    asyncio.run(go())


@pytest.mark.parametrize("spec", ["openai:m@http://127.0.0.1:1/v1,http://127.0.0.1:2/v1"])
def test_comma_list_in_the_spec(spec: str) -> None:
    from robustcall.models import make_model

    model = make_model(spec)
    assert model.urls == ["http://127.0.0.1:1/v1/chat/completions", "http://127.0.0.1:2/v1/chat/completions"]  # type: ignore[attr-defined]
