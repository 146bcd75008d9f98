"""README's one current measurement of the main job holds only for the requests it was measured on:
this rebuilds the main job's requests as `robustcall bench` makes them (its own defaults) and
compares their digest with the one README records beside the figures."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from robustcall.cli.main import app
from robustcall.models import ModelSettings, load_settings
from robustcall.models._factory import LOCAL_DEFAULTS
from robustcall.models.local import MODEL_FILE
from robustcall.perturb import build_benchmark
from robustcall.run import GoldBudget, parse_types, plan_work, request_digest

README = Path(__file__).resolve().parents[2] / "README.md"
RECORDED = re.compile(r"main job's (\d+) requests hash to sha256\s+`([0-9a-f]{64})`")


def _bench_defaults() -> dict[str, object]:
    command = typer.main.get_command(app).commands["bench"]  # type: ignore[attr-defined]
    return {p.name: p.default for p in command.params}


def test_readme_figures_were_measured_on_todays_main_job_requests(tmp_path: Path) -> None:
    d = _bench_defaults()
    assert d["sources"] is None and d["data_dir"] is None and d["model"] == "local"  # BFCL from its wheel
    bench = tmp_path / "bench"
    build_benchmark(
        sources=["bfcl"], data_dir=None, seed=int(str(d["seed"])), out=bench, composition=str(d["composition"])
    )
    limit = d["limit"]
    items = plan_work(bench, parse_types(str(d["types"]), bench), int(str(limit)), order=str(d["order"]))  # type: ignore[arg-type]
    settings = load_settings(None, "local", LOCAL_DEFAULTS)
    assert isinstance(settings, ModelSettings)
    budget = None
    if d["max_tokens"] == "gold":
        budget = GoldBudget.from_samples((it.sample for it in plan_work(bench, ["clean"])), settings.max_tokens)
    digest = request_digest(items, budget, MODEL_FILE, settings)
    recorded = RECORDED.search(README.read_text(encoding="utf-8"))
    assert recorded is not None, "README's measurement no longer records the main job's request digest"
    assert int(recorded.group(1)) == len(items)
    assert digest == recorded.group(2), (
        f"the main job's requests changed (now sha256 {digest}): README's figures were measured on other "
        "prompts. Measure `robustcall bench` again from a fresh clone, then update README's measurement "
        "(date, commit, figures), this digest, and a CHANGELOG.md line"
    )
