"""dr-data on ToolRL's rlla test split and SFT raw rows (../shared/data/toolrl, read in place)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from robustcall.core import STATIC_TYPES
from robustcall.perturb import abbreviate
from robustcall.rewards import toolrl_correctness_reward, toolrl_format_reward
from robustcall.train import build_dr_data, load_rows, read_items, read_rows, render_row
from robustcall.train._rlla import parse_row

TEST = "toolrl/dataset/rlla_4k/test.parquet"
RAW = "toolrl/dataset/rlla_4k_raw/rlla_sft.json"


@pytest.fixture(scope="module")
def toolrl_inputs(shared_data: Path) -> list[Path]:
    paths = [shared_data / TEST, shared_data / RAW]
    if not all(p.is_file() for p in paths):
        pytest.skip("ToolRL rlla data not found under ../shared/data/toolrl")
    return paths


@pytest.fixture(scope="module")
def built(toolrl_inputs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("dr")
    return out, build_dr_data(toolrl_inputs, out, seed=0)


def test_clean_rows_render_back_byte_for_byte(toolrl_inputs: list[Path]) -> None:
    rows = read_rows(toolrl_inputs[0])
    items, skipped = read_items(rows, "test")
    assert len(items) == 80 and not skipped
    for item, row in zip(items, rows, strict=True):
        again = render_row(item, item.sample)
        assert again["prompt"] == row["prompt"] and again["reward_model"] == row["reward_model"]


def test_raw_rows_with_unreadable_golden_are_skipped_and_named(toolrl_inputs: list[Path]) -> None:
    items, skipped = read_items(read_rows(toolrl_inputs[1]), "sft")
    assert len(items) + sum(len(v) for v in skipped.values()) == 400
    assert list(skipped) == ["golden ground truth has an unreadable <tool_call> block"]


def test_outputs_parse_back_and_golden_scores_full_reward(built: tuple[Path, dict[str, Any]]) -> None:
    out, manifest = built
    for name, info in manifest["outputs"].items():
        rows = load_rows(out / name)
        assert len(rows) == info["rows"]
        assert list(rows[0]) == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
        items, skipped = read_items(rows, name)
        assert len(items) == len(rows) and not skipped
        for row in rows:
            gt = row["reward_model"]["ground_truth"]
            assert toolrl_format_reward(gt, gt) == 1.0
            # correctness is 0 by definition when the ground truth has no tool call
            assert toolrl_correctness_reward(gt, gt) == (3.0 if "<tool_call>" in gt else 0.0)


def test_type_counts_uniform_and_transition_excluded(built: tuple[Path, dict[str, Any]]) -> None:
    _, manifest = built
    for name, info in manifest["outputs"].items():
        counts = info["type_counts"]
        assert info["uniform_within_one"], (name, counts)
        perturbed = {t: n for t, n in counts.items() if t != "clean"}
        assert set(perturbed) == set(STATIC_TYPES) and len(perturbed) == 16
        assert max(perturbed.values()) - min(perturbed.values()) <= 1
    full = manifest["outputs"]["dr_full/test.parquet"]
    assert full["rows"] == 80 and sum(full["type_counts"].values()) == 80
    mixed = manifest["outputs"]["dr_mixed/test.parquet"]["type_counts"]
    assert mixed["clean"] == 40


def test_abbreviated_golden_names_are_updated(built: tuple[Path, dict[str, Any]]) -> None:
    out, _ = built
    rows = [r for r in load_rows(out / "dr_full/test.parquet") if r["extra_info"]["perturbation"] in ("CD_AB", "TD_AB")]
    assert rows
    pairs = set()
    for row in rows:
        item = parse_row(row, "ab")
        names = [t.name for t in item.sample.tools]
        assert all(g.name in names for g in item.sample.golden_answers)
        golden = {g.name for g in item.sample.golden_answers}
        pairs |= {(n, abbreviate(n)) for n in names if abbreviate(n) in golden}
        assert not golden or any(abbreviate(n) in golden for n in names)  # the full name stays as distractor
        # the abbreviation variants leave the query as it is (Appendix C, Appendix O Case 2)
        assert not any(w in row["prompt"][1]["content"] for w in ("cost-effective", "cheapest", "quickest"))
    # every word is cut, at camelCase and spaces too (the rule of robustcall build)
    assert {("getDrawing", "getDra"), ("GetEmbeddedSignLink", "GetEmbSignLink")} <= pairs
    assert ("Get Conversation Turns", "Get Con Tur") in pairs


def test_same_seed_gives_byte_identical_files(
    toolrl_inputs: list[Path], built: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    out, manifest = built
    again = build_dr_data(toolrl_inputs, tmp_path, seed=0)
    assert again == manifest
    assert (tmp_path / "manifest.json").read_bytes() == (out / "manifest.json").read_bytes()
    other = build_dr_data(toolrl_inputs[:1], tmp_path / "s1", seed=1)
    assert other["outputs"]["dr_full/test.parquet"]["sha256"] != manifest["outputs"]["dr_full/test.parquet"]["sha256"]
