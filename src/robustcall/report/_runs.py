"""Loading scored runs for a report: a run directory becomes a name, its verdicts and statistics.

A report reads what ``robustcall score`` wrote (``scores.jsonl``, ``summary.json``); it scores
nothing itself (``robustcall report`` scores a run that has not been scored first)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from robustcall.core import RUN_META, SCORES, SUMMARY, TYPES, MissingInputError, Verdict, read_jsonl, read_run_meta
from robustcall.metrics import GhostCounts, Resampling, Robustness, Summary, error_mode_shares, robustness, summarize


@dataclass(frozen=True)
class RunResult:
    """One run as a report row."""

    name: str
    path: Path
    verdicts: list[Verdict]
    stats: Robustness
    error_modes: dict[str, dict[str, float]]
    beyond: Summary | None = None
    """Appendix N's types (beyond the paper), kept out of ``verdicts`` and ``stats``; ``None`` when the run has none."""
    ghost_calls: GhostCounts | None = None
    """Calls to unlisted tools, from the run's ``summary.json`` when ``score`` wrote it."""


def run_name(path: Path) -> str:
    """The model name the run recorded (``run.json``), else the directory name."""
    meta_path = path / RUN_META
    if meta_path.is_file():
        meta = read_run_meta(meta_path)
        spec = meta.model_name or meta.model
        if isinstance(spec, str) and spec:
            # ``openai:NAME@URL`` -> NAME; other specs (``local``, ``scripted:oracle``) as given
            return spec.removeprefix("openai:").split("@", 1)[0] if spec.startswith("openai:") else spec
    return path.name


def load_run(
    path: Path, *, resamples: int, seed: int, name: str | None = None, resampling: Resampling = "per-sample"
) -> RunResult:
    """Read a run's verdicts (``scores.jsonl``, written by ``robustcall score``) and their statistics;
    a run that has not been scored raises ``MissingInputError``."""
    scores = path / SCORES
    if not scores.is_file():
        raise MissingInputError(f"{path} has no {SCORES}: score it first with `robustcall score {path}`")
    every = read_jsonl(scores, Verdict)
    verdicts = [v for v in every if not (v.type in TYPES and TYPES[v.type].beyond)]
    beyond = summarize(every, resamples=resamples, seed=seed) if len(verdicts) < len(every) else None
    ghost = None
    if (path / SUMMARY).is_file():
        try:
            ghost = Summary.model_validate_json((path / SUMMARY).read_text()).ghost_calls
        except ValueError:  # a summary of another version: the ghost column shows —
            ghost = None
    return RunResult(
        name=name or run_name(path),
        path=path,
        verdicts=verdicts,
        stats=robustness(verdicts, resamples=resamples, seed=seed, resampling=resampling),
        error_modes=error_mode_shares(verdicts),
        beyond=beyond,
        ghost_calls=ghost,
    )


def unique_names(paths: list[Path]) -> list[str]:
    """Run names, made unique with the directory name where two runs share a model name."""
    names = [run_name(p) for p in paths]
    return [f"{n} ({p.name})" if names.count(n) > 1 else n for n, p in zip(names, paths, strict=True)]
