"""Hugging Face datasets: ``robustcall export hf`` writes one dataset (a config per perturbation type
and ``all``) whose features are the same in every file, with a dataset card; ``datasets.load_dataset``
reads every config from the folder and each row turns back into the exact sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.core import Sample, read_jsonl

datasets = pytest.importorskip("datasets")
runner = CliRunner()
SOURCES = "bfcl,apibank,rotbench,toolalpaca,tooleyes"


def test_export_hf_loads_every_config_with_one_set_of_features(tmp_path: Path, shared_data: Path) -> None:
    from robustcall.interop._hf import FEATURES, sample_from_row

    bench = tmp_path / "bench"
    per_source = ",".join(f"{s}=6" for s in SOURCES.split(","))
    res = runner.invoke(app, ["build", "--sources", SOURCES, "--data-dir", str(shared_data), "--per-source",
                              per_source, "--out", str(bench)])  # fmt: skip
    assert res.exit_code == 0, res.output
    manifest = json.loads((bench / "manifest.json").read_text())
    out = tmp_path / "hf"
    cache = tmp_path / "hf_cache"  # datasets caches by folder name and config, not content: keep it per test
    res = runner.invoke(app, ["export", "hf", str(bench), "--out", str(out), "--name", "robustbench-tc-mini"])
    assert res.exit_code == 0, res.output

    # the raw JSONL files do not load as one dataset (differently shaped metadata); the export does
    with pytest.raises(Exception):  # noqa: B017 - datasets raises several kinds here
        datasets.load_dataset(
            "json", data_files=sorted(str(p) for p in bench.glob("*.jsonl")), split="train", cache_dir=str(cache)
        )

    total = 0
    for code in manifest["types"]:
        ds = datasets.load_dataset(str(out), code, split="test", cache_dir=str(cache))
        assert ds.features == FEATURES, code
        assert len(ds) == manifest["counts"][code]
        assert set(ds["type"]) == {code}
        original = {s.id: s for s in read_jsonl(bench / f"{code}.jsonl", Sample)}
        assert {r["id"]: sample_from_row(r) for r in ds} == original  # every row back to its exact sample
        total += len(ds)
    everything = datasets.load_dataset(str(out), split="test", cache_dir=str(cache))  # the default config: all
    assert everything.features == FEATURES and len(everything) == total == sum(manifest["counts"].values())
    assert {c["type"] for c in [everything[0], everything[len(everything) - 1]]} <= set(manifest["types"])
    changed = [r for r in everything if "changed_parameters" in json.loads(r["perturbation_metadata"])]
    assert changed  # the field that broke load_dataset("json") is there, as JSON text

    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: apache-2.0\n")
    assert "| `CD_AB` | MisDesc-Abbr | reward | " in card
    for source in SOURCES.split(","):
        assert f"| `{source}` |" in card
    assert "Seed: 0" in card and f"--sources {SOURCES} --seed 0" in card

    again = tmp_path / "hf2"
    assert (
        runner.invoke(app, ["export", "hf", str(bench), "--out", str(again), "--name", "robustbench-tc-mini"]).exit_code
        == 0
    )
    for path in out.rglob("*"):
        if path.is_file():
            assert path.read_bytes() == (again / path.relative_to(out)).read_bytes(), path  # deterministic
