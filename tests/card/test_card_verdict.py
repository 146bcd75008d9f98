"""The card opens with a one-line verdict, ends with its run folders, and prints figures as its tables do."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from robustcall.card import read_card
from robustcall.cli.main import app
from robustcall.metrics import RunTokens, TokenRow
from robustcall.report._card_verdict import card_verdict


def test_the_card_opens_with_its_verdict_and_its_last_line_rounds_like_its_tables(tmp_path: Path) -> None:
    out = tmp_path / "card"
    args = ["card", "--model", "scripted:name_biased", "--env-model", "scripted:memorise", "--out", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = next(line for line in res.output.splitlines() if "Pert. Acc." in line)
    assert re.search(r"Clean \d\.\d{3}, Pert\. Acc\. \d\.\d{3}, rank", summary), summary
    card = read_card(out)
    page = (out / "card.html").read_text(encoding="utf-8")
    verdict = card_verdict(card)
    body = page[page.index("<body>") :]
    # the verdict comes first, right under the title; the run folders last
    assert body.index("Verdict: ") < body.index("Protocol <b>") < body.index("<h2>")
    runs = body[body.index("<h2>Runs</h2>") :]
    assert body.rindex("<h2>") == body.index("<h2>Runs</h2>") and all(r in runs for r in card.runs)
    rb = card.robustbench
    worst_type = max((t for t in rb.types if t.drop.value is not None), key=lambda t: t.drop.value or 0.0)
    assert f"weakest type {worst_type.display} (drop {worst_type.drop.value:.3f})" in verdict
    assert f"retention {rb.retention.value:.3f}" in verdict
    assert "PIPE Δ " in verdict and f"faults at δ = {card.fault_delta:g}: lowest RASR" in verdict
    # scripted answers carry no server counts: no tokens claimed; a card whose server counted them says so
    assert "tokens" not in verdict
    total = TokenRow(records=4, with_usage=3, requests=3, prompt_tokens=1200, completion_tokens=34, cost_usd=0.5)
    counted = card.model_copy(update={"tokens": RunTokens(by_type={}, by_component={}, total=total, token_overhead={})})
    assert card_verdict(counted).endswith("; RobustBench-TC used 1,234 tokens over 3 records, $0.50.")
    # legacy calls per episode: a whole count as an integer, never "15.000"
    legacy = [e.levels[lv].legacy_calls for e in card.pipe.values() for lv in ("synonym", "symbol")]
    pipe_table = page[page.index("PIPE: score per level") :]
    pipe_table = pipe_table[: pipe_table.index("</table>")]
    for x in legacy:
        assert x is not None
        cell = str(int(x)) if x.is_integer() else f"{x:.2f}"
        assert f"<td>{cell}</td>" in pipe_table


def test_bench_help_says_what_resume_does() -> None:
    res = CliRunner().invoke(app, ["bench", "--help"], terminal_width=200)
    assert res.exit_code == 0
    line = next(s for s in res.output.splitlines() if "--resume" in s)
    assert "interrupted main job" in line
