"""The report's tables cell by cell, and ``Table``'s Markdown / CSV / LaTeX / HTML byte for byte, on hand-built runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from robustcall.core import TYPES, InputError, Verdict, type_info
from robustcall.metrics import Estimate, error_mode_shares, frac, robustness, summarize
from robustcall.report import RunResult, Table, all_tables, error_mode_table, per_type_tables, table2
from robustcall.report._tables import beyond_table, fmt, interval_note


def v(source: str, code: str, correct: bool | None, mode: str | None = None, attack: bool | None = None) -> Verdict:
    component = "clean" if code == "clean" else type_info(code).component
    return Verdict(
        id=source if code == "clean" else f"{source}__{code}",
        benchmark="b",
        type=code,
        component=component,
        correct=correct,
        score=1.0 if correct else 0.0,
        error_mode=mode,
        attack_success=attack,
    )


def run(name: str, verdicts: list[Verdict], resamples: int = 0) -> RunResult:
    plain = [x for x in verdicts if not (x.type in TYPES and TYPES[x.type].beyond)]
    beyond = summarize(verdicts, resamples=resamples) if len(plain) < len(verdicts) else None
    return RunResult(
        name=name,
        path=Path(name),
        verdicts=plain,
        stats=robustness(plain, resamples=resamples),
        error_modes=error_mode_shares(plain),
        beyond=beyond,
    )


# A: Clean 3/4, Typo 2/4, Dup-NoDesc 1/2, MisDesc 0/2, Timeout 2/2 (one infra error)
A = [
    *(v(f"s{i}", "clean", i < 3, None if i < 3 else "wrong") for i in range(4)),
    *(v(f"s{i}", "realistic_typos", i % 2 == 0, None if i % 2 == 0 else "empty") for i in range(4)),
    v("s0", "same_name_A", True),
    v("s1", "same_name_A", False, "name_bias"),
    v("s0", "CD", False, "name_bias"),
    v("s1", "CD", False, "wrong"),
    v("s0", "transient_timeout", True),
    v("s1", "transient_timeout", True),
    v("s2", "transient_timeout", None),
]
# B: Clean 1/2, Typo 2/2, no Action / Reward / Transition records
B = [
    v("s0", "clean", True),
    v("s1", "clean", False, "wrong"),
    v("s0", "realistic_typos", True),
    v("s1", "realistic_typos", True),
]


def test_fmt_cells() -> None:
    assert fmt(Estimate(value=0.6425, ci95=0.0651)) == "0.642 ± 0.065"
    assert fmt(Estimate(value=0.5)) == "0.500"
    assert fmt(Estimate(value=None, ci95=0.1)) == "—"
    assert fmt(Estimate(value=0.25), signed=True, negate=True) == "-0.250"
    assert fmt(Estimate(value=-0.0), signed=True) == "+0.000"
    assert fmt(Estimate(value=0.0), signed=True, negate=True) == "+0.000"  # never -0.000
    # a value that rounds to zero reads as ``frac`` (score, leaderboard) writes it: no "-0.000" in the report
    assert fmt(Estimate(value=-0.0004)) == "0.000" == frac(-0.0004)
    assert fmt(Estimate(value=-0.0004), signed=True) == "+0.000" == frac(-0.0004, signed=True)
    assert fmt(Estimate(value=0.0004), signed=True, negate=True) == "+0.000"
    assert fmt(Estimate(value=-0.0005)) == "-0.001" == frac(-0.0005)
    for x in (0.0625, 0.1235, -0.25049, 0.9995, 2 / 3):
        assert fmt(Estimate(value=x, ci95=0.01)) == frac(x, 0.01)


def test_table2_rows_are_sorted_by_pert_acc() -> None:
    t = table2([run("A", A), run("B", B)])
    assert t.header == ["Model", "Clean ↑", "Pert. Acc. ↑", "Δ_Obs ↓", "Δ_Act ↓", "Δ_Rew ↓", "Δ_Trn ↓", "Retention ↑"]
    # A: Pert. Acc. = (2 + 1 + 0 + 2) / (4 + 2 + 2 + 2) = 0.5; Δ_Obs = 0.75 − 0.5, Δ_Act = 0.75 − 0.5,
    # Δ_Rew = 0.75 − 0, Δ_Trn = 0.75 − 1; retention = 1 − mean(0.25, 0.25, 0.75) / 0.75 = 4/9
    # B: Pert. Acc. = 1.0 (first); Δ_Obs = 0.5 − 1.0; the rest undefined
    assert t.rows == [
        ["B", "0.500", "1.000", "-0.500", "—", "—", "—", "—"],
        ["A", "0.750", "0.500", "0.250", "0.250", "0.750", "-0.250", "0.444"],
    ]
    assert t.notes == [
        "± = half-width of the 95% percentile-bootstrap interval (B = 0; per-sample: the records of each group "
        "resampled on their own, as the paper does). Δ_X = Clean − accuracy over the pooled records of X's "
        "perturbation types (as Table 2 computes it); retention = 1 − mean(Δ_Obs, Δ_Act, Δ_Rew) / Clean."
    ]


def test_table2_against_a_baseline_with_exact_half_widths() -> None:
    codes = ("clean", "same_name_A", "CD", "realistic_typos")
    right = run("right", [v(f"s{i}", c, True) for i in range(8) for c in codes], resamples=200)
    wrong = run("wrong", [v(f"s{i}", c, False, "wrong") for i in range(8) for c in codes], resamples=200)
    t = table2([wrong, right], baseline="wrong")
    # nothing ever varies: every half-width is 0; every replicate of right − wrong is +1 (p = 0) for
    # the accuracies and 0 (p = 1, no marker) for the Δs; wrong's retention divides by Clean = 0.
    # 8 differing pairs: an exact paired test gives p >= 2^-7 = 0.0078, so ** rather than ***
    assert t.rows == [
        ["right", "1.000 ± 0.000**", "1.000 ± 0.000**", *["0.000 ± 0.000"] * 3, "—", "1.000 ± 0.000"],
        ["wrong (baseline)", "0.000 ± 0.000", "0.000 ± 0.000", *["0.000 ± 0.000"] * 3, "—", "—"],
    ]
    assert t.notes[1].startswith("Superscripts: paired-bootstrap significance against wrong")
    assert t.notes[1].endswith("Paired samples: right: Clean n = 8, m = 8; Pert. Acc. n = 8, m = 8.")
    with pytest.raises(InputError, match="baseline 'nobody' is not one of the runs: wrong, right"):
        table2([wrong, right], baseline="nobody")


def test_interval_note_says_how_the_intervals_were_resampled() -> None:
    clustered = RunResult("c", Path("c"), B, robustness(B, resamples=10_000, resampling="clustered"), {})
    note = interval_note([clustered])
    assert note.startswith("± = half-width of the 95% percentile-bootstrap interval (B = 10,000; clustered:")
    assert interval_note([]).startswith("± = half-width of the 95% percentile-bootstrap interval (B = 0; per-sample")


def test_per_type_tables() -> None:
    tables = per_type_tables([run("A", A), run("B", B)])
    assert [t.name for t in tables] == [
        "per_type_observation",
        "per_type_action",
        "per_type_reward",
        "per_type_transition",
    ]
    obs, act, rew, trn = tables
    assert obs.header == ["Model", "Clean", "Typo"]
    assert obs.rows == [["A", "0.750", "0.500 (-0.250)"], ["B", "0.500", "1.000 (+0.500)"]]
    assert act.header == ["Model", "Clean", "Dup-NoDesc"]
    assert act.rows == [["A", "0.750", "0.500 (-0.250)"], ["B", "0.500", "—"]]
    assert rew.rows == [["A", "0.750", "0.000 (-0.750)"], ["B", "0.500", "—"]]
    assert trn.header == ["Model", "Clean", "Timeout"] and trn.rows[0] == ["A", "0.750", "1.000 (+0.250)"]
    assert obs.title == "Per-perturbation accuracy: Observation"
    assert per_type_tables([run("clean only", B[:2])]) == []


def test_error_mode_table() -> None:
    t = error_mode_table([run("A", A), run("B", B)])
    assert t.header == ["Model", "Component", "empty", "name_bias", "wrong"]
    assert t.rows == [
        ["A", "action", "0.0%", "100.0%", "0.0%"],
        ["A", "clean", "0.0%", "0.0%", "100.0%"],
        ["A", "observation", "100.0%", "0.0%", "0.0%"],
        ["A", "reward", "0.0%", "50.0%", "50.0%"],
        ["B", "clean", "0.0%", "0.0%", "100.0%"],
    ]
    assert t.notes == ["Infrastructure errors (excluded from every accuracy): A: 1, B: 0."]


def test_beyond_table() -> None:
    extra = [
        v("s0", "prompt_injection", True, attack=False),
        v("s1", "prompt_injection", False, "wrong", attack=True),
        v("s2", "prompt_injection", True, attack=False),
        v("s3", "prompt_injection", True, attack=False),
        v("s0", "silent_noop", True),
    ]
    with_beyond, plain = run("A", A + extra), run("B", B)
    assert with_beyond.stats == run("A", A).stats  # Table 2's numbers do not move
    t = beyond_table([with_beyond, plain])
    assert t is not None
    assert t.header == ["Model", "Clean", "NoOp", "Inject", "Inject ASR ↓", "Ghost calls ↓"]
    # Clean 0.75; NoOp 1/1 (+0.250); Inject 3/4 (+0.000); ASR 1/4; no summary.json: ghost calls unknown
    assert t.rows == [
        ["A", "0.750", "1.000 (+0.250)", "0.750 (+0.000)", "0.250", "—"],
        ["B", "—", "—", "—", "—", "—"],
    ]
    assert beyond_table([plain]) is None
    # a drop of 0.0004 is written +0.000 there too (never -0.000)
    assert with_beyond.beyond is not None
    tiny = with_beyond.beyond.model_copy(
        update={"beyond_drop_by_type": {"silent_noop": 0.0004, "prompt_injection": 0.0}}
    )
    t = beyond_table([RunResult("A", Path("A"), with_beyond.verdicts, with_beyond.stats, {}, tiny)])
    assert t is not None and t.rows[0][2:4] == ["1.000 (+0.000)", "0.750 (+0.000)"]
    assert [x.name for x in all_tables([with_beyond, plain])][-2:] == ["error_modes", "beyond"]
    assert [x.name for x in all_tables([plain])] == ["table2", "per_type_observation", "error_modes"]


TABLE = Table(
    "t",
    "Δ & results_1",
    ["Model", "Acc ↑", "n"],
    [["a|b", "0.500 ± 0.010", "3"], ['x, "y"', "1.000", "#5"]],
    ["note <1>"],
)


def test_markdown() -> None:
    assert TABLE.markdown() == (
        "**Δ & results_1**\n"
        "\n"
        "| Model | Acc ↑ | n |\n"
        "|---|---:|---:|\n"
        "| a\\|b | 0.500 ± 0.010 | 3 |\n"
        '| x, "y" | 1.000 | #5 |\n'
        "\n"
        "note <1>\n"
    )
    bare = Table("u", "T", ["A"], [["1"]])
    assert bare.markdown() == "**T**\n\n| A |\n|---|\n| 1 |\n"


def test_csv() -> None:
    assert TABLE.csv() == 'Model,Acc ↑,n\na|b,0.500 ± 0.010,3\n"x, ""y""",1.000,#5\n'


def test_latex() -> None:
    assert TABLE.latex() == (
        "\\begin{table}[t]\n"
        "\\centering\n"
        "\\caption{$\\Delta$ \\& results\\_1}\n"
        "\\begin{tabular}{lrr}\n"
        "\\toprule\n"
        "Model & Acc $\\uparrow$ & n \\\\\n"
        "\\midrule\n"
        "a|b & 0.500 $\\pm$ 0.010 & 3 \\\\\n"
        'x, "y" & 1.000 & \\#5 \\\\\n'
        "\\bottomrule\n"
        "\\end{tabular}\n"
        "\\end{table}\n"
    )
    assert Table("u", "50% {x} $", ["a ↓"], []).latex().splitlines()[2:4] == [
        "\\caption{50\\% \\{x\\} \\$}",
        "\\begin{tabular}{l}",
    ]


def test_html() -> None:
    assert TABLE.html() == (
        "<h3>Δ &amp; results_1</h3><table><thead><tr><th>Model</th><th>Acc ↑</th><th>n</th></tr></thead>"
        "<tbody><tr><td>a|b</td><td>0.500 ± 0.010</td><td>3</td></tr>"
        "<tr><td>x, &quot;y&quot;</td><td>1.000</td><td>#5</td></tr></tbody></table>"
        "<p class='note'>note &lt;1&gt;</p>"
    )
