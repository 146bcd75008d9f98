"""Loading scored runs for a report: a run directory becomes a name, its verdicts and statistics."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import Verdict, read_jsonl
from robustcall.metrics import Resampling, Robustness, error_mode_shares, robustness
from robustcall.run import RUN_META, SCORES, score_run


@dataclass(frozen=True)
class RunResult:
    """One run as a report row."""

    name: str
    path: Path
    verdicts: list[Verdict]
    stats: Robustness
    error_modes: dict[str, dict[str, float]]


def run_name(path: Path) -> str:
    """The model name the run recorded (``run.json``), else the directory name."""
    meta_path = path / RUN_META
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        spec = meta.get("model_name") or meta.get("model")
        if isinstance(spec, str) and spec:
            # ``openai:NAME@URL`` -> NAME; other specs (``local``, ``scripted:oracle``) as given
            return spec.removeprefix("openai:").split("@", 1)[0] if spec.startswith("openai:") else spec
    return path.name


def load_run(
    path: Path, *, resamples: int, seed: int, name: str | None = None, resampling: Resampling = "per-sample"
) -> RunResult:
    """Read a run's verdicts (scoring its predictions first when ``scores.jsonl`` is missing)."""
    scores = path / SCORES
    verdicts = read_jsonl(scores, Verdict) if scores.is_file() else score_run(path, resamples=0, seed=seed)[0]
    return RunResult(
        name=name or run_name(path),
        path=path,
        verdicts=verdicts,
        stats=robustness(verdicts, resamples=resamples, seed=seed, resampling=resampling),
        error_modes=error_mode_shares(verdicts),
    )


def unique_names(paths: list[Path]) -> list[str]:
    """Run names, made unique with the directory name where two runs share a model name."""
    names = [run_name(p) for p in paths]
    return [f"{n} ({p.name})" if names.count(n) > 1 else n for n, p in zip(names, paths, strict=True)]
