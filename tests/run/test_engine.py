"""The run loop with scripted policies whose accuracies are known exactly, and kill/resume."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from robustcall.core import (
    TRANSITION_TYPES,
    EvalConfig,
    GoldenAnswer,
    Message,
    PerturbationInfo,
    PredictionRecord,
    Sample,
    SourceInfo,
    ToolSpec,
    read_checkpoint,
    write_jsonl,
)
from robustcall.models import make_model
from robustcall.run import (
    WorkItem,
    as_transition,
    by_prefix,
    clean_id_of,
    order_items,
    parse_types,
    plan_work,
    prompt_key,
    record_key,
    run_items,
)
from robustcall.score import score_run

HERE = Path(__file__).parent


def _tool(name: str, *params: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=f"{name} tool.",
        parameters={
            "type": "dict",
            "properties": {p: {"type": "string", "description": p} for p in params},
            "required": list(params),
        },
    )


def _sample(i: int, gt_first: bool) -> Sample:
    gt = _tool(f"country_info.capital_{i}", "country")
    other = _tool(f"country_info.population_{i}", "country")
    tools = [gt, other] if gt_first else [other, gt]
    return Sample(
        id=f"bfcl_v3__BFCL_v3_multiple__multiple_{i}",
        benchmark="bfcl_v3",
        category="multiple",
        source=SourceInfo(original_id=f"multiple_{i}", benchmark="bfcl_v3", file="BFCL_v3_multiple.json"),
        conversation=[Message(role="user", content=f"What is the capital of country {i}?")],
        tools=tools,
        golden_answers=[GoldenAnswer(name=gt.name, parameters={"country": f"C{i}"}, acceptable={"country": [f"C{i}"]})],
        eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
    )


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    d = tmp_path / "bench"
    write_jsonl(d / "clean.jsonl", [_sample(0, True), _sample(1, False), _sample(2, False)])
    (d / "manifest.json").write_text("{}\n")  # what marks a finished build
    return d


def _accuracies(bench: Path, policy: str, out: Path) -> dict[str, float | None]:
    items = plan_work(bench, parse_types("clean,transition"))
    model = make_model(f"scripted:{policy}")
    stats = asyncio.run(run_items(items, model, out, concurrency=3))
    assert stats.answered == 3 * 7 and stats.infra_errors == 0
    _, summary = score_run(out, resamples=0)
    return {t: c.accuracy for t, c in summary.by_type.items()}


def test_oracle_scores_one_everywhere(bench: Path, tmp_path: Path) -> None:
    acc = _accuracies(bench, "oracle", tmp_path / "run")
    assert acc == {"clean": 1.0, **{t: 1.0 for t in TRANSITION_TYPES}}


def test_give_up_after_error_scores_zero_on_every_transition(bench: Path, tmp_path: Path) -> None:
    acc = _accuracies(bench, "give_up_after_error", tmp_path / "run")
    assert acc == {"clean": 1.0, **{t: 0.0 for t in TRANSITION_TYPES}}
    recs = read_checkpoint(tmp_path / "run" / "predictions.jsonl", PredictionRecord)
    trans = [r for r in recs if r.perturbation.type in TRANSITION_TYPES]
    assert all(r.prediction.transition_injected for r in trans)
    assert all(r.prediction.pass1_tool_calls for r in trans)


def test_repeat_same_call_recovers_like_clean(bench: Path, tmp_path: Path) -> None:
    acc = _accuracies(bench, "repeat_same_call", tmp_path / "run")
    assert acc == {"clean": 1.0, **{t: 1.0 for t in TRANSITION_TYPES}}


def test_always_first_tool_is_right_only_where_gt_is_listed_first(bench: Path, tmp_path: Path) -> None:
    acc = _accuracies(bench, "always_first_tool", tmp_path / "run")
    assert acc == {"clean": pytest.approx(1 / 3), **{t: pytest.approx(1 / 3) for t in TRANSITION_TYPES}}


def test_existing_run_needs_resume(bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    items = plan_work(bench, ["clean"])
    asyncio.run(run_items(items, make_model("scripted:oracle"), out))
    with pytest.raises(FileExistsError, match="--resume"):
        asyncio.run(run_items(items, make_model("scripted:oracle"), out))
    stats = asyncio.run(run_items(items, make_model("scripted:oracle"), out, resume=True))
    assert stats.already_done == 3 and stats.answered == 0


def test_sigkill_then_resume_loses_and_duplicates_nothing(bench: Path, tmp_path: Path) -> None:
    """Kill -9 a real `robustcall run` against a slow local server mid-run, then --resume."""
    # 3 clean samples x (clean + 6 transitions) -> 21 records, ~40 requests at 0.15 s each, 2 in flight.
    portfile = tmp_path / "port"
    server = subprocess.Popen([sys.executable, str(HERE / "mock_openai.py"), str(portfile), "0.15", "120"])
    try:
        deadline = time.time() + 20
        while not (portfile.exists() and portfile.read_text()) and time.time() < deadline:
            time.sleep(0.05)
        url = portfile.read_text()
        out = tmp_path / "run"
        cmd = [
            sys.executable, "-m", "robustcall.cli.main", "run", "--bench", str(bench), "--out", str(out),
            "--model", f"openai:mock@{url}", "--mode", "prompt", "--types", "clean,transition",
            "--concurrency", "2",
        ]  # fmt: skip
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pred = out / "predictions.jsonl"
        deadline = time.time() + 60
        while time.time() < deadline:
            if pred.exists() and pred.read_text().count("\n") >= 5:
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        partial = pred.read_text().count("\n")
        assert 5 <= partial < 21, partial
        done = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        recs = read_checkpoint(pred, PredictionRecord)
        keys = [record_key(r) for r in recs]
        assert len(keys) == len(set(keys)) == 21
    finally:
        server.kill()
        server.wait()


def test_limit_spreads_over_categories_and_pairs_types(bench: Path) -> None:
    from robustcall.run import plan_work

    extra = _sample(3, True).model_copy(update={"id": "bfcl_v3__BFCL_v3_simple__simple_3", "category": "simple"})
    write_jsonl(bench / "clean.jsonl", [_sample(0, True), _sample(1, False), _sample(2, False), extra])
    by_type = plan_work(bench, ["clean", "transient_timeout"], limit=2, order="type")
    assert [i.sample.id for i in by_type] == [
        "bfcl_v3__BFCL_v3_multiple__multiple_0",
        "bfcl_v3__BFCL_v3_simple__simple_3",
        "bfcl_v3__BFCL_v3_multiple__multiple_0__transient_timeout",
        "bfcl_v3__BFCL_v3_simple__simple_3__transient_timeout",
    ]
    # the default asks one sample's variants back to back (prefix caches hit); same items
    items = plan_work(bench, ["clean", "transient_timeout"], limit=2)
    assert [i.sample.id for i in items] == [
        "bfcl_v3__BFCL_v3_multiple__multiple_0",
        "bfcl_v3__BFCL_v3_multiple__multiple_0__transient_timeout",
        "bfcl_v3__BFCL_v3_simple__simple_3",
        "bfcl_v3__BFCL_v3_simple__simple_3__transient_timeout",
    ]


# work order: ``prefix`` sorts each sample's variants by prompt text (a depth-first walk of their
# prefix tree), so that a server slot caching only the previous prompt evaluates the least


def _variant(s: Sample, code: str, component: str, **update: object) -> WorkItem:
    info = PerturbationInfo(type=code, mdp_category=component)  # type: ignore[arg-type]
    return WorkItem(s.model_copy(update={"id": f"{s.id}__{code}", "perturbation": info, **update}), code)


def _variants(i: int) -> list[WorkItem]:
    """Clean sample ``i`` and five variants, in type order (as ``plan_work`` reads them)."""
    s = _sample(i, True)
    gt, other = s.tools
    return [
        WorkItem(s, "clean"),
        _variant(s, "realistic_typos", "observation", conversation=[Message(role="user", content="Waht is it?")]),
        _variant(s, "same_name_A", "action", tools=[gt, other, _tool(f"country_info.capital_{i}_v2", "country")]),
        _variant(s, "CD", "reward", tools=[gt.model_copy(update={"description": "Best capital tool."}), other]),
        _variant(s, "TD", "reward", tools=[gt, other.model_copy(update={"description": "Best population tool."})]),
        WorkItem(as_transition(s, "transient_timeout"), "transient_timeout"),
    ]


def test_prefix_order_walks_each_samples_prompts_in_sorted_order() -> None:
    items = _variants(0) + _variants(1)
    got = [(clean_id_of(it.sample).split("__")[-1], it.type) for it in by_prefix(items)]
    # CD edits the first tool's description ("Best ..." < "country_info..."), TD the second's, and
    # same_name_A appends a tool ('", {"' < '"]'); those keeping the tool list follow: the query edit
    # ("Waht" < "What"), then clean and its transition pass 1 (the same prompt, so in type order)
    order = ["CD", "TD", "same_name_A", "realistic_typos", "clean", "transient_timeout"]
    assert got == [(f"multiple_{i}", t) for i in (0, 1) for t in order]
    assert prompt_key(items[0].sample) == prompt_key(items[5].sample)
    assert prompt_key(items[0].sample).startswith("<|system|>") and prompt_key(items[0].sample).endswith(
        "<|user|>What is the capital of country 0?"
    )


def test_order_items_keeps_type_order_and_groups_samples() -> None:
    items = _variants(0) + _variants(1)
    assert order_items(items, "type") == items
    by_type = sorted(items, key=lambda it: it.type)  # samples interleaved
    assert [it.type for it in order_items(by_type, "sample")][:2] == ["CD", "TD"]
    assert [it.sample.id for it in order_items(by_type, "sample")] == [it.sample.id for it in by_type[::2]] + [
        it.sample.id for it in by_type[1::2]
    ]
    assert order_items(by_type, "prefix") == by_prefix(items)


def test_plan_work_prefix_order_has_the_same_records(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_jsonl(bench / "clean.jsonl", [_sample(0, True), _sample(1, False)])
    (bench / "manifest.json").write_text("{}\n")
    items = plan_work(bench, ["clean", "transient_timeout"], order="prefix")
    assert [i.sample.id for i in items] == [
        "bfcl_v3__BFCL_v3_multiple__multiple_0",
        "bfcl_v3__BFCL_v3_multiple__multiple_0__transient_timeout",
        "bfcl_v3__BFCL_v3_multiple__multiple_1",
        "bfcl_v3__BFCL_v3_multiple__multiple_1__transient_timeout",
    ]
