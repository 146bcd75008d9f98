"""ToolRM's Appendix tables: Table 6 statistics, Table 1 / Table 7 breakdowns of a build, and the
A.9 ablation runner (Table 10's layout), with exactly known values."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Message, ToolSpec, write_jsonl
from robustcall.report import ablation_table, rewardbench_generators_table, rewardbench_stats_table
from robustcall.rewards import SECTIONS as SECTION_NAMES
from robustcall.rewards import RewardPair, Variant, bench_stats, generator_size, plan_ablation, run_ablation

runner = CliRunner()

WEATHER = {"name": "get_weather", "description": "Weather.", "parameters": {"type": "dict", "properties": {}}}
TIME = {"name": "get_time", "description": "Time.", "parameters": {"type": "dict", "properties": {}}}
WEATHER_V2 = {**WEATHER, "description": "Weather, v2."}  # a different tool with the same name


def _pair(i: int, *, model: str, kind: str, tools: list[dict[str, object]], chosen: object, rejected: str,
          turns: int = 1, test_id: str | None = None) -> RewardPair:  # fmt: skip
    conv: list[dict[str, object]] = []
    for t in range(turns):
        conv += [{"role": "user", "content": f"q{i}.{t}"}]
        if t < turns - 1:
            conv += [{"role": "assistant", "content": "ok"}]
    return RewardPair(
        tools=tools,
        conversation=conv,
        chosen_output=json.dumps(chosen),
        rejected_output=rejected,
        error_type=kind,
        model_name=model,
        test_category="simple",
        test_id=test_id or f"t{i}",
    )


def _bench() -> list[RewardPair]:
    one = [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    two = [*one, {"name": "get_time", "arguments": {"tz": "CET"}}]
    nested = [{"name": "get_weather", "arguments": {"when": {"name": "get_time", "arguments": {}}}}]
    return [
        _pair(0, model="Qwen/Qwen2.5-0.5B-Instruct", kind="Incorrect Parameter Value", tools=[WEATHER],
              chosen=one, rejected=json.dumps([{"name": "get_weather", "arguments": {"city": "Rome"}}])),
        _pair(1, model="Qwen/Qwen2.5-0.5B-Instruct", kind="Incorrect output format", tools=[WEATHER, TIME],
              chosen=two, rejected='[{"name": "get_weather"', turns=3),
        _pair(2, model="ibm-granite/granite-20b-functioncalling", kind="Incorrect number of functions",
              tools=[WEATHER_V2, TIME], chosen=two, rejected=json.dumps(one)),
        _pair(3, model="synthetic:Incorrect Function Name", kind="Incorrect Function Name", tools=[WEATHER, TIME],
              chosen=nested, rejected=json.dumps([{"name": "get_time", "arguments": {}}]), turns=2),
    ]  # fmt: skip


def test_table6_statistics_exact() -> None:
    st = bench_stats(_bench())
    assert st.examples == 4
    assert st.tools == 3  # get_weather, get_time, and get_weather v2 (same name, other spec)
    assert st.tools_per_query == 7 / 4
    assert (st.mt_queries, st.mt_turns) == (2, 2.5)  # 3 and 2 user turns
    assert st.nested == 1
    assert st.chosen_calls == (1 + 2 + 2 + 1) / 4
    assert (st.rejected_calls, st.unreadable_rejected) == ((1 + 1 + 1) / 3, 1)
    assert (st.real, st.synthetic) == (3, 1)
    assert st.by_model["Qwen/Qwen2.5-0.5B-Instruct"] == 2
    row = rewardbench_stats_table([("ours", st)]).rows[0]
    assert row == ["ours", "4", "3 (1.8)", "2", "2.5", "✓", "1.5", "1.0", "Real (3) + Synthetic (1)"]


def test_table7_generators_most_first_with_their_types() -> None:
    t = rewardbench_generators_table(bench_stats(_bench()))
    assert t.header == [
        "Model Name",
        "Count",
        "Incorrect Parameter Value",
        "Incorrect Function Name",
        "Incorrect number of functions",
        "Incorrect output format",
    ]
    assert t.rows == [
        ["Qwen/Qwen2.5-0.5B-Instruct", "2", "1", "0", "0", "1"],
        ["ibm-granite/granite-20b-functioncalling", "1", "0", "0", "1", "0"],
        ["synthetic:Incorrect Function Name", "1", "0", "1", "0", "0"],
        ["Total", "4", "1", "1", "1", "1"],
    ]


def test_rm_stats_cli_prints_and_writes_the_tables(tmp_path: Path) -> None:
    bench = tmp_path / "fc_rb.jsonl"
    write_jsonl(bench, _bench())
    res = runner.invoke(app, ["rm", "stats", str(bench), "--out", str(tmp_path / "t")])
    assert res.exit_code == 0, res.output
    assert "| fc_rb | 4 | 3 (1.8) | 2 | 2.5 | ✓ | 1.5 | 1.0 | Real (3) + Synthetic (1) |" in res.output
    assert "| Incorrect output format | 1 | 25.0 |" in res.output
    assert "| ibm-granite/granite-20b-functioncalling | 1 | 0 | 0 | 1 | 0 |" in res.output
    csv = (tmp_path / "t" / "fc_rewardbench_generators.csv").read_text().splitlines()
    assert csv[1] == "Qwen/Qwen2.5-0.5B-Instruct,2,1,0,0,1"
    data = json.loads((tmp_path / "t" / "rm_stats.json").read_text())
    assert data["fc_rb"]["by_model_type"]["Qwen/Qwen2.5-0.5B-Instruct"] == {
        "Incorrect Parameter Value": 1,
        "Incorrect output format": 1,
    }
    res = runner.invoke(app, ["rm", "stats", str(tmp_path / "absent.jsonl")])
    assert res.exit_code == 1 and res.output.strip() == f"error: no such file: {tmp_path / 'absent.jsonl'}"


def test_generator_sizes_from_names() -> None:
    assert generator_size("Qwen/Qwen2.5-1.5B-Instruct") == 1.5
    assert generator_size("ibm-granite/granite-20b-functioncalling") == 20
    assert generator_size("ibm-granite/granite-3.3-2b-instruct") == 2
    assert generator_size("local:qwen2.5-coder-0.5b-instruct-q4_k_m") == 0.5
    assert generator_size("DeepSeek-R1") is None
    assert generator_size("DeepSeek-R1", {"DeepSeek-R1": 671}) == 671


def _train_pairs() -> list[RewardPair]:
    """12 pairs: 3 datasets (by id prefix) x 4, from a 0.5B, a 14B, a 7B generator and a mutator."""
    models = ["Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-14B-Instruct", "Qwen/Qwen2.5-7B-Instruct",
              "synthetic:Incorrect Parameter Value"]  # fmt: skip
    out = []
    for d, src in enumerate(("apibank", "toolalpaca", "xlam")):
        for k in range(4):
            i = 4 * d + k
            out.append(
                _pair(
                    i,
                    model=models[k],
                    kind="Incorrect Parameter Value",
                    tools=[WEATHER],
                    chosen=[{"name": "get_weather", "arguments": {"city": f"c{i}"}}],
                    rejected=json.dumps([{"name": "get_weather", "arguments": {"city": f"bad{i}"}}]),
                    test_id=f"{src}__{i}",
                )
            )
    return out


def test_plan_has_table10s_rows_with_exact_subsets() -> None:
    pairs = _train_pairs()
    variants, notes = plan_ablation(pairs, shares=(0.5,), seed=0)
    labels = [(v.section, v.label, len(v.pairs), v.center) for v in variants]
    assert labels == [
        ("", "ToolRM", 12, 0.01),
        ("Hyperparameter Ablation", "High reward centering (η = 0.1)", 12, 0.1),
        ("Hyperparameter Ablation", "No reward centering (η = 0)", 12, 0.0),
        ("Data Ablation", "Without apibank", 8, 0.01),
        ("Data Ablation", "Without toolalpaca", 8, 0.01),
        ("Data Ablation", "Without xlam", 8, 0.01),
        ("Data Ablation", "50% of the training data", 6, 0.01),
        ("Generator model ablation", "Only large (≥ 12 B) models", 3, 0.01),
        ("Generator model ablation", "Only small (≤ 2 B) models", 3, 0.01),
    ]
    assert {p.model_name for p in variants[-2].pairs} == {"Qwen/Qwen2.5-14B-Instruct"}
    assert all(not p.test_id.startswith("apibank") for p in variants[3].pairs)
    assert notes == ["Without obfuscation: left out (give --plain-pairs, built by rm train-data --no-obfuscate)"]
    again, _ = plan_ablation(pairs, shares=(0.5,), seed=0)
    assert again[6].pairs == variants[6].pairs  # seeded
    other, _ = plan_ablation(pairs, shares=(0.5,), seed=1)
    assert other[6].pairs != variants[6].pairs


class Memoriser:
    """A scripted 'RM': scores an output -1 when it was a rejected output of its training pairs, else 0.
    On the benchmark it is right exactly on the records whose rejected output it trained on."""

    def __init__(self, v: Variant) -> None:
        self.name = f"memo:{v.label}"
        self.bad = {p.rejected_output for p in v.pairs}

    def score(self, conversation: list[Message], tools: list[ToolSpec], outputs: list[str]) -> list[float]:
        return [-1.0 if o in self.bad else 0.0 for o in outputs]


def test_runner_scores_each_variant_and_lays_out_table10() -> None:
    pairs = _train_pairs()
    variants, _ = plan_ablation(pairs, shares=(0.5,), seed=0)
    bench = pairs  # the benchmark is the training pool itself: accuracy = share of pairs each variant saw
    seen: list[str] = []
    rows = run_ablation(variants, bench, lambda v, i: Memoriser(v), done=lambda r: seen.append(r.label))
    assert seen == [v.label for v in variants]
    assert [round(100 * r.result.accuracy, 2) for r in rows] == [100.0, 100.0, 100.0, 66.67, 66.67, 66.67, 50.0,
                                                                  25.0, 25.0]  # fmt: skip
    table = ablation_table(rows, len(bench))
    assert table.rows[:5] == [
        ["ToolRM", "100.00%", "12", "0.01"],
        ["Hyperparameter Ablation", "", "", ""],
        ["High reward centering (η = 0.1)", "100.00%", "12", "0.1"],
        ["No reward centering (η = 0)", "100.00%", "12", "0"],
        ["Data Ablation", "", "", ""],
    ]
    assert table.rows[-3:] == [
        ["Generator model ablation", "", "", ""],
        ["Only large (≥ 12 B) models", "25.00%", "3", "0.01"],
        ["Only small (≤ 2 B) models", "25.00%", "3", "0.01"],
    ]


def test_rm_ablate_trains_a_tiny_rm_per_variant_through_the_cli(tiny_rm: Path, tmp_path: Path) -> None:
    """CPU, toy size: the tiny Qwen2 of the training smoke test, one step per variant."""
    import pytest

    pytest.importorskip("trl")
    from rm_pairs import make_pairs

    pairs = _train_pairs()
    train = tmp_path / "pairs.jsonl"
    write_jsonl(train, pairs)
    bench = tmp_path / "bench.jsonl"
    write_jsonl(bench, make_pairs(4))
    out = tmp_path / "ablation"
    args = ["rm", "ablate", str(train), "--bench", str(bench), "--base", str(tiny_rm), "-o", str(out), "--only",
            "generator", "--max-steps", "1", "--batch-size", "2", "--lr", "1e-3", "--max-length", "512",
            "--scheduler", "linear", "--warmup-ratio", "0.1"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    md = (out / "rm_ablation.md").read_text()
    assert "Ablation results on FC-RewardBench (4 pairs; ToolRM Table 10's layout)" in md
    rows = (out / "rm_ablation.csv").read_text().splitlines()
    assert rows[0] == "Model,Accuracy,Training pairs,η"
    assert [r.split(",")[0] for r in rows[1:]] == [
        "ToolRM", "Generator model ablation", "Only large (≥ 12 B) models", "Only small (≤ 2 B) models",
    ]  # fmt: skip
    result = json.loads((out / "rm_ablation.json").read_text())
    assert (result["settings"]["scheduler"], result["settings"]["warmup_ratio"]) == ("linear", 0.1)
    assert [r["pairs"] for r in result["rows"]] == [12, 3, 3]
    assert all(r["total"] == 4 and r["accuracy"] in (0.0, 0.25, 0.5, 0.75, 1.0) for r in result["rows"])
    assert not (out / "models").exists()  # --no-keep-models (the default) leaves no checkpoints


def test_rm_ablate_refuses_a_share_outside_0_1(tmp_path: Path) -> None:
    train = tmp_path / "pairs.jsonl"
    write_jsonl(train, _train_pairs())
    res = runner.invoke(app, ["rm", "ablate", str(train), "--bench", str(train), "--base", "x", "-o",
                              str(tmp_path / "o"), "--share", "1.5"])  # fmt: skip
    assert res.exit_code == 2 and "1.5: a share is above 0 and below 1" in res.output
    res = runner.invoke(app, ["rm", "ablate", str(train), "--bench", str(train), "--base", "x", "-o",
                              str(tmp_path / "o"), "--only", "optimizer"])  # fmt: skip
    assert res.exit_code == 2 and "'optimizer': one of hyper, data, generator" in res.output


def test_rm_train_and_ablate_refuse_an_unknown_scheduler_before_loading_the_model(tmp_path: Path) -> None:
    """The base ``x`` does not exist: the scheduler is refused first, in one line, never a traceback."""
    import pytest

    pytest.importorskip("transformers")
    train = tmp_path / "pairs.jsonl"
    write_jsonl(train, _train_pairs())
    common = [str(train), "--base", "x", "-o", str(tmp_path / "o"), "--scheduler", "nonsense"]
    for args in (["rm", "train", *common], ["rm", "ablate", *common, "--bench", str(train)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        assert "'nonsense': one of linear, cosine," in res.output and "Traceback" not in res.output


def test_plan_keeps_only_the_asked_sections() -> None:
    variants, notes = plan_ablation(_train_pairs(), sections=("Generator model ablation",))
    assert [v.label for v in variants] == ["ToolRM", "Only large (≥ 12 B) models", "Only small (≤ 2 B) models"]
    assert notes == []


def test_plain_pairs_and_given_sizes_make_their_rows() -> None:
    pairs = _train_pairs()
    plain = pairs[:5]
    variants, notes = plan_ablation(
        pairs, plain_pairs=plain, shares=(), sizes={"Qwen/Qwen2.5-7B-Instruct": 1.8}, sections=SECTION_NAMES[:1]
    )
    assert [(v.label, len(v.pairs)) for v in variants] == [
        ("ToolRM", 12),
        ("Without obfuscation", 5),
        ("High reward centering (η = 0.1)", 12),
        ("No reward centering (η = 0)", 12),
    ]
    assert notes == []
    gen, _ = plan_ablation(pairs, sizes={"Qwen/Qwen2.5-7B-Instruct": 1.8}, sections=SECTION_NAMES[2:])
    # the 7B generator declared 1.8 B counts as small: 3 + 3 pairs
    assert [(v.label, len(v.pairs)) for v in gen][1:] == [
        ("Only large (≥ 12 B) models", 3),
        ("Only small (≤ 2 B) models", 6),
    ]


def test_rm_ablate_refuses_a_malformed_generator_size(tmp_path: Path) -> None:
    train = tmp_path / "pairs.jsonl"
    write_jsonl(train, _train_pairs())
    res = runner.invoke(app, ["rm", "ablate", str(train), "--bench", str(train), "--base", "x", "-o",
                              str(tmp_path / "o"), "--generator-size", "qwen-seven"])  # fmt: skip
    assert res.exit_code == 2 and "'qwen-seven': expected NAME=BILLIONS" in res.output
