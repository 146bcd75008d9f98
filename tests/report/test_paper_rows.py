"""The paper's 21 models as reference rows of ``robustcall report``: Table 2's numbers, families and
Figure 5's Type; a gold replay ranks above every one of them, a broken replay below."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import TYPES, paper_reference
from robustcall.report import table2

runner = CliRunner()
PAPER = paper_reference()
SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def _ok(*args: str) -> None:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output


def test_table2_reference_rows_are_the_papers_in_its_family_order() -> None:
    t = table2([], reference=PAPER.models)
    assert t.header[:4] == ["Model", "Family", "Type", "Rank"]
    assert [r[0] for r in t.rows][:3] == ["ToolRL-DR-Full (paper)", "ToolRL-DR-Mixed (paper)", "MUA-RL-8B (paper)"]
    assert len(t.rows) == 21
    by_name = {r[0]: r for r in t.rows}
    # retention = 1 − mean(0.019, 0.171, 0.409) / 0.673 = 0.703; rank by Pert. Acc. (0.448) among the 21
    assert by_name["Qwen3-8B (paper)"] == [
        "Qwen3-8B (paper)", "Base / instruct counterparts", "open", "11",
        "0.673 ± 0.065", "0.448 ± 0.016", "0.019 ± 0.075", "0.171 ± 0.073", "0.409 ± 0.072", "0.293 ± 0.070", "0.703",
    ]  # fmt: skip
    # Table 2's own superscripts on the paper's checkpoints (against ToolRL-Qwen2.5-3B)
    assert by_name["ToolRL-DR-Full (paper)"][4:10] == [
        "0.643 ± 0.065", "0.463 ± 0.016***", "0.009 ± 0.075", "0.147 ± 0.074", "0.331 ± 0.076***", "0.231 ± 0.071***",
    ]  # fmt: skip
    assert by_name["Qwen3-14B (paper)"][3] == "1" and by_name["SFT-Clean-4k-3B (paper)"][3] == "21"
    assert by_name["o4-mini (paper)"][1:3] == ["Closed-source frontier", "closed"]
    assert "Rows marked (paper) are the paper's" in t.notes[-1] and "3,721-record" in t.notes[-1]


def test_per_type_reference_cells_are_tables_7_to_14() -> None:
    t = table2([])  # no reference: the layout of a report without the paper is unchanged
    assert t.header[1] == "Clean ↑"
    qwen = PAPER.find("Qwen3-8B")
    assert qwen is not None
    from robustcall.report._paper_rows import paper_type_cells

    # Qwen3-8B: Clean 0.673, MisDesc-Abbr 0.125 (drop 0.548), an Appendix N type the paper lacks: —
    assert paper_type_cells(qwen, ["CD_AB", "silent_noop"]) == ["0.673", "0.125 (-0.548)", "—"]


def test_per_type_drops_are_the_printed_ones_not_differences_of_rounded_accuracies() -> None:
    from robustcall.report._paper_rows import paper_type_cells

    o4 = PAPER.find("o4-mini")
    assert o4 is not None  # Table 7: Typo 0.618 (-0.090), though 0.618 - 0.709 = -0.091
    assert paper_type_cells(o4, ["realistic_typos"]) == ["0.709", "0.618 (-0.090)"]
    cells = [(m.accuracy[t] - m.accuracy["clean"], d) for m in PAPER.models for t, d in m.drop.items()]
    assert len(cells) == 462 and all(abs(diff - d) < 0.0015 for diff, d in cells)
    assert sum(f"{round(diff, 3) + 0.0:+.3f}" != f"{d + 0.0:+.3f}" for diff, d in cells) == 105


def _csv(path: Path) -> list[list[str]]:
    return list(csv.reader(path.read_text().splitlines()))


def test_a_gold_replay_ranks_above_the_paper_and_a_broken_one_below(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _ok("build", "--sources", "bfcl", "--seed", "0", "--out", str(bench))
    oracle = tmp_path / "oracle"
    _ok("run", "--bench", str(bench), "--model", "scripted:oracle", "--limit", "4", "--out", str(oracle))
    broken_file = tmp_path / "broken.jsonl"
    lines = []
    for line in (oracle / "predictions.jsonl").read_text().splitlines():
        rec = json.loads(line)
        rec["prediction"] |= {"raw_output": "", "tool_calls": [], "pass1_raw_output": "", "pass1_tool_calls": []}
        lines.append(json.dumps(rec))
    broken_file.write_text("\n".join(lines) + "\n")
    runs = {"gold": f"replay:{oracle / 'predictions.jsonl'}", "broken": f"replay:{broken_file}"}
    for name, spec in runs.items():
        _ok("run", "--bench", str(bench), "--model", spec, "--limit", "4", "--out", str(tmp_path / name))
    out = tmp_path / "report"
    _ok("report", str(tmp_path / "gold"), str(tmp_path / "broken"), "--out", str(out), "--resamples", "0")
    rows = _csv(out / "table2.csv")
    header, body = rows[0], rows[1:]
    rank = {r[0]: int(r[3]) for r in body}
    gold, broken = (
        next(r for r in body if r[0].startswith("replay:") and r[0].endswith(s))
        for s in ("predictions.jsonl", "broken.jsonl")
    )
    assert header[:4] == ["Model", "Family", "Type", "Rank"] and len(body) == 23
    assert (gold[1], gold[4], gold[5]) == ("this report", "1.000", "1.000")
    assert rank[gold[0]] == 1 and rank[broken[0]] == 23 and broken[5] == "0.000"
    assert sorted(v for k, v in rank.items() if k.endswith("(paper)")) == list(range(2, 23))
    # Tables 7-14: the paper's rows follow the runs' in every component table
    typo = _csv(out / "per_type_observation.csv")
    assert typo[0][:3] == ["Model", "Clean", "Typo"] and len(typo) == 1 + 2 + 21
    assert next(r for r in typo if r[0] == "Qwen3-8B (paper)")[:3] == ["Qwen3-8B (paper)", "0.673", "0.588 (-0.085)"]
    page = (out / "report.html").read_text()
    assert "Qwen3-8B (paper)" in page
    _ok("report", str(tmp_path / "gold"), "--out", str(tmp_path / "plain"), "--resamples", "0", "--no-paper")
    assert len(_csv(tmp_path / "plain" / "table2.csv")) == 2


def test_pooled_accuracies_reproduce_figure_5() -> None:
    """Figure 5 (the paper's leaderboard) prints Pert. Acc., Clean and per-component accuracy to 4
    digits: the records implied by Tables 7-14 give every one of its 19 rows exactly."""
    paper = next(SEEDS.glob("000_*.txt"), None) if SEEDS.is_dir() else None
    if paper is None:
        pytest.skip(f"paper 000 not found under {SEEDS}")
    lines = paper.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Model\tType\tPert. Acc."))
    rows = [line.split("\t") for line in lines[start + 1 :] if line.count("\t") == 8][:19]
    assert len(rows) == 19
    comps = ("observation", "action", "reward", "transition")
    for name, kind, *numbers, _submitted in rows:
        key = re.sub(r" \((non-thinking|ours|OpenAI)\)", "", name).replace("Distill-Qwen-14B", "Distill-14B")
        m = PAPER.find(key)
        assert m is not None, name
        assert m.type == kind
        ours = [
            PAPER.pooled_accuracy(m, list(PAPER.type_records)),
            PAPER.correct(m)["clean"] / PAPER.clean_records,
            *(PAPER.pooled_accuracy(m, [t for t in PAPER.type_records if TYPES[t].component == c]) for c in comps),
        ]
        assert [round(x, 4) for x in ours] == [float(x) for x in numbers], name
