"""Tokens and time: the records keep the server's ``usage``; report's totals equal the server's own
counts (both passes of a transition type summed), and ``--prices`` turns them into dollars."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import PredictionRecord, Usage, read_jsonl
from robustcall.metrics import Price, load_prices

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from mock_openai import Reply, completion, serve_chat, write_capital_bench

runner = CliRunner()


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


class CountingServer:
    """Answers each capital question right and counts, as a server would, what it reports in ``usage``."""

    def __init__(self) -> None:
        self.prompt = self.completion = self.cached = self.requests = 0
        self.lock = threading.Lock()

    async def __call__(self, body: dict[str, Any]) -> Reply:
        text = " ".join(str(m.get("content") or "") for m in body["messages"])
        i = int(text.split("Capital of country ", 1)[1].split("?", 1)[0])
        prompt, out, cached = len(text.split()), 7 + i, 4 * (len(body["messages"]) > 2)
        with self.lock:
            self.prompt += prompt
            self.completion += out
            self.cached += cached
            self.requests += 1
        reply = completion(f"[capital_{i}(country='C{i}')]")
        reply["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": out,
            "total_tokens": prompt + out,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
        return reply


@pytest.fixture()
def run_dir(tmp_path: Path) -> tuple[Path, CountingServer]:
    bench = write_capital_bench(tmp_path / "bench", 4)
    server = CountingServer()
    run = tmp_path / "run"
    with serve_chat(server) as url:
        _ok(
            "run", "--bench", str(bench), "--out", str(run), "--types", "clean,transient_timeout",
            "--model", f"openai:m@{url}",
        )  # fmt: skip
    return run, server


def test_records_and_report_totals_equal_the_servers_counts(
    run_dir: tuple[Path, CountingServer], tmp_path: Path
) -> None:
    run, server = run_dir
    records = read_jsonl(run / "predictions.jsonl", PredictionRecord)
    assert len(records) == 8 and server.requests == 12  # 4 clean + 4 transition records, the latter asked twice
    usages = [r.prediction.usage for r in records]
    assert all(u is not None for u in usages)
    transition = [r.prediction.usage for r in records if r.perturbation.type == "transient_timeout"]
    assert [u.requests for u in transition if u is not None] == [2, 2, 2, 2]
    assert all(u.cached_tokens == 4 for u in transition if u is not None)  # pass 2's cache, pass 1's none

    out = tmp_path / "report"
    _ok("report", str(run), "--out", str(out), "--resamples", "0", "--no-paper")
    (only,) = json.loads((out / "report.json").read_text()).values()
    total = only["tokens"]["total"]
    assert (total["prompt_tokens"], total["completion_tokens"], total["cached_tokens"], total["requests"]) == (
        server.prompt,
        server.completion,
        server.cached,
        server.requests,
    )
    by_component = only["tokens"]["by_component"]
    assert by_component["clean"]["completion_tokens"] == 7 + 8 + 9 + 10  # one answer of 7 + i per sample
    assert by_component["transition"]["completion_tokens"] == 2 * (7 + 8 + 9 + 10)
    clean_mean = by_component["clean"]["mean_tokens"]
    trn_mean = by_component["transition"]["mean_tokens"]
    assert only["tokens"]["token_overhead"]["transition"] == pytest.approx(trn_mean / clean_mean - 1)
    table = (out / "tokens.md").read_text()
    assert "m · transition" in table and "token overhead" in table
    assert "Tokens and time per type" in (out / "report.html").read_text()


def test_prices_add_cost(run_dir: tuple[Path, CountingServer], tmp_path: Path) -> None:
    run, server = run_dir
    prices = tmp_path / "prices.yaml"
    prices.write_text("m: {input: 2.0, output: 10.0, cached_input: 0.5}\n")
    out = tmp_path / "report"
    _ok("report", str(run), "--out", str(out), "--resamples", "0", "--no-paper", "--prices", str(prices))
    (only,) = json.loads((out / "report.json").read_text()).values()
    expected = ((server.prompt - server.cached) * 2.0 + server.cached * 0.5 + server.completion * 10.0) / 1e6
    assert only["tokens"]["total"]["cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert "cost USD" in (out / "tokens.md").read_text()


def test_price_arithmetic_and_refusals(tmp_path: Path) -> None:
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=500_000, cached_tokens=200_000)
    assert Price(input=1.0, output=4.0).cost(usage) == 3.0  # cached tokens cost input without a cached price
    assert Price(input=1.0, output=4.0, cached_input=0.25).cost(usage) == 0.8 + 0.05 + 2.0
    bad = tmp_path / "p.yaml"
    bad.write_text("m: {input: -1, output: 2}\n")
    result = runner.invoke(app, ["report", str(tmp_path), "--out", str(tmp_path / "o"), "--prices", str(bad)])
    assert result.exit_code != 0 and "m.input: Input should be greater than or equal to 0" in result.output
    bad.write_text("m: {input: 1}\n")
    with pytest.raises(Exception, match=r"--prices .*p.yaml: m.output: Field required"):
        load_prices(bad)
    prices = tmp_path / "ok.yaml"
    prices.write_text("'*': {input: 1, output: 1}\ngpt-x: {input: 3, output: 4}\n")
    loaded = load_prices(prices)
    assert loaded.for_model("openai:gpt-x@http://h/v1") == Price(input=3, output=4)
    assert loaded.for_model("other") == Price(input=1, output=1)


def test_compare_shows_tokens_beside_the_baseline(run_dir: tuple[Path, CountingServer], tmp_path: Path) -> None:
    base, server = run_dir
    wordy = CountingServer()

    async def twice_as_long(body: dict[str, Any]) -> Reply:
        reply = await wordy(body)
        assert isinstance(reply, dict)
        reply["usage"]["completion_tokens"] *= 2
        return reply

    cand = tmp_path / "cand"
    with serve_chat(twice_as_long) as url:
        _ok(
            "run", "--bench", str(tmp_path / "bench"), "--out", str(cand), "--types", "clean,transient_timeout",
            "--model", f"openai:m@{url}",
        )  # fmt: skip
    out = tmp_path / "cmp"
    printed = _ok("compare", str(base), str(cand), "--out", str(out), "--bootstrap", "0")
    assert "## Tokens and time" in printed
    (pair,) = json.loads((out / "compare_tokens.json").read_text())
    clean = next(p for p in pair["pairs"] if p["unit"] == "clean")
    b, c = clean["baseline"], clean["candidate"]
    assert c["completion_tokens"] == 2 * b["completion_tokens"] == 2 * (7 + 8 + 9 + 10)
    assert clean["tokens_change"] == pytest.approx(c["mean_tokens"] / b["mean_tokens"] - 1)
    assert server.requests == wordy.requests == 12
