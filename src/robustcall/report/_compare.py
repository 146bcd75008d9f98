"""Comparing two runs, or two folders of runs (a robustness card), for ``robustcall compare``.

A *run* is a RobustBench-TC run directory (``run.json`` and ``predictions.jsonl``; scored here when
``score`` has not been run), a fault-injection or PIPE run directory (``run.json`` of kind ``faults``
/ ``pipe`` and ``trajectories.jsonl``), or a reward-model evaluation (``rm_eval.json`` from ``rm eval
--out``, or its folder). Any other folder is a *folder of runs* (a card, ``bench --out``): the runs
under it are paired by their path inside it and compared one by one. Runs that did not do the same
work (another benchmark build, other types, another environment, tasks, seeds, δ, fault profile or
interface level) are refused with one line; records only one run has are left out and counted.
The statistics are ``metrics``' (``compare_verdicts``, ``compare_fault_runs``, ``compare_pipe_runs``,
``compare_hits``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from robustcall.core import (
    PREDICTIONS,
    RUN_META,
    SCORES,
    TRAJECTORIES,
    InputError,
    MissingInputError,
    TrajectoryRunMeta,
    Verdict,
    read_jsonl,
    read_run_meta,
    read_trajectories,
    read_trajectory_run_meta,
)
from robustcall.metrics import (
    DEFAULT_RESAMPLES,
    KIND_DISPLAY,
    CompareKind,
    PairedComparison,
    PairedRow,
    compare_fault_runs,
    compare_hits,
    compare_pipe_runs,
    compare_verdicts,
)
from robustcall.report._card_model import CARD_JSON
from robustcall.report._runs import run_name

RM_EVAL = "rm_eval.json"
"""What ``robustcall rm eval --out`` writes: one object per scorer."""
MAX_DEPTH = 4
"""How deep a folder of runs is searched for runs."""


class NotComparableError(InputError):
    """Two runs that did not do the same work."""


class Comparison(BaseModel):
    """One pair of runs compared."""

    part: str
    """Where the pair sits inside the two folders (``""``: the two paths given were runs)."""
    baseline: str
    candidate: str
    """The runs' names (model or scorer) as the tables say them."""
    result: PairedComparison


class CompareResult(BaseModel):
    """Every pair of runs compared, with the gate's settings and verdict."""

    baseline: str
    candidate: str
    """The paths given."""
    alpha: float
    fail_on_drop: float | None = None
    fail_on_type: float | None = None
    comparisons: list[Comparison]
    left_out: list[str] = Field(default_factory=list)
    """Runs of one folder that the other lacks (not compared)."""

    def rows(self) -> list[tuple[Comparison, PairedRow]]:
        return [(c, r) for c in self.comparisons for r in c.result.rows]

    def gate_failures(self) -> list[tuple[Comparison, PairedRow]]:
        """Rows that fail the gate: a regression (Holm-adjusted p < α, the worse way) larger than the
        row's threshold (``--fail-on-drop`` for components and headline figures, ``--fail-on-type``
        for types, failure classes and error types)."""
        out = []
        for c, r in self.rows():
            limit = {"drop": self.fail_on_drop, "type": self.fail_on_type}.get(r.gate or "")
            worse = r.worse_by()
            if limit is not None and worse is not None and worse > limit and r.status(self.alpha) == "regression":
                out.append((c, r))
        return out


def run_kind(path: Path) -> CompareKind | None:
    """The kind of run ``path`` is, ``None`` for a folder that is not one run."""
    if path.is_file():
        return "rm" if path.name == RM_EVAL else None
    if (path / RM_EVAL).is_file():
        return "rm"
    if not (path / RUN_META).is_file():
        return None
    if (path / TRAJECTORIES).is_file():
        kind = read_trajectory_run_meta(path).kind
        return "pipe" if kind == "pipe" else "faults"
    if (path / PREDICTIONS).is_file() or (path / SCORES).is_file():
        return "robustbench"
    return None


def _runs_under(root: Path) -> dict[str, Path]:
    """Every run inside a folder of runs, by its path relative to the folder (not below another run)."""
    out: dict[str, Path] = {}

    def walk(d: Path, depth: int) -> None:
        for child in sorted(p for p in d.iterdir() if p.is_dir()):
            if run_kind(child) is not None:
                out[child.relative_to(root).as_posix()] = child
            elif depth < MAX_DEPTH:
                walk(child, depth + 1)

    walk(root, 1)
    return out


def _refuse(what: str, a: object, b: object) -> None:
    if a != b:
        raise NotComparableError(f"not comparable: different {what}: {_short(a)} vs {_short(b)}")


def _short(x: object) -> str:
    text = x if isinstance(x, str) else json.dumps(x, sort_keys=True, default=str)
    return text[:12] + "…" if isinstance(x, str) and len(x) == 64 else text[:80]


def _verdicts(run: Path, seed: int) -> list[Verdict]:
    if not (run / SCORES).is_file():  # as `report` does: score a run that has not been scored
        from robustcall.score import score_run

        score_run(run, resamples=0, seed=seed)
    return read_jsonl(run / SCORES, Verdict)


def _compare_tc(a: Path, b: Path, resamples: int, seed: int) -> tuple[str, str, PairedComparison]:
    ma, mb = read_run_meta(a), read_run_meta(b)
    if ma.bench_digest and mb.bench_digest:
        _refuse("benchmark builds (bench digest)", ma.bench_digest, mb.bench_digest)
    _refuse("perturbation types (--types)", ma.types or "all", mb.types or "all")
    result = compare_verdicts(_verdicts(a, seed), _verdicts(b, seed), resamples=resamples, seed=seed)
    if ma.scorer_version != mb.scorer_version:
        result.notes.append(f"scored by different verdict rules (scorer {ma.scorer_version} vs {mb.scorer_version})")
    return run_name(a), run_name(b), result


def _check_trajectory_runs(ma: TrajectoryRunMeta, mb: TrajectoryRunMeta) -> None:
    _refuse("environments", ma.env, mb.env)
    _refuse("tasks", sorted(ma.tasks), sorted(mb.tasks))
    _refuse("seeds", sorted(ma.seeds), sorted(mb.seeds))
    if ma.kind == "faults":
        _refuse("fault rates (δ)", sorted(ma.deltas), sorted(mb.deltas))
        prof = ("faults", "sticky", "at_calls", "tools", "custom", "seed")
        _refuse(
            "fault profiles",
            {k: (ma.profile or {}).get(k) for k in prof},
            {k: (mb.profile or {}).get(k) for k in prof},
        )
        _refuse("environment axes", ma.axes, mb.axes)
    else:
        _refuse("interface levels", ma.level, mb.level)
    _refuse("step limits", ma.max_steps, mb.max_steps)


def _compare_trajectories(a: Path, b: Path, resamples: int, seed: int) -> tuple[str, str, PairedComparison]:
    ma, mb = read_trajectory_run_meta(a), read_trajectory_run_meta(b)
    _check_trajectory_runs(ma, mb)
    ta, tb = read_trajectories(a), read_trajectories(b)
    if ma.kind == "faults":
        result = compare_fault_runs(ta, tb, resamples=resamples, seed=seed)
    else:
        from robustcall.interface import episode_counts

        def counts(t: Any) -> tuple[int, int]:
            c = episode_counts(t)
            return c.n_ori, c.n_syn

        result = compare_pipe_runs(ta, tb, counts, resamples=resamples, seed=seed)
    return ma.model, mb.model, result


def _rm_results(path: Path) -> list[dict[str, Any]]:
    file = path if path.is_file() else path / RM_EVAL
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MissingInputError(f"{file} not found") from None
    except ValueError as exc:
        raise InputError(f"{file}: not JSON ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) and "scorer" in r for r in data):
        raise InputError(f"{file}: not an `rm eval` result (a list of one object per scorer)")
    if any(not isinstance(r.get("records"), list) for r in data):
        raise InputError(f"{file} has no per-record results: rerun `robustcall rm eval --out` with this release")
    return data


def _compare_rm(a: Path, b: Path, resamples: int, seed: int) -> list[tuple[str, str, str, PairedComparison]]:
    ra, rb = _rm_results(a), _rm_results(b)
    for key, what in (("bench_digest", "benchmarks (bench digest)"), ("limit", "subsets (--limit)")):
        _refuse(what, ra[0].get(key), rb[0].get(key))
    if ra[0].get("limit") is not None:
        _refuse("subset seeds (--seed)", ra[0].get("seed"), rb[0].get("seed"))
    if len(ra) == 1 and len(rb) == 1:
        pairs = [("", ra[0], rb[0])]
    else:
        by_b = {r["scorer"]: r for r in rb}
        pairs = [(f"scorer {r['scorer']}", r, by_b[r["scorer"]]) for r in ra if r["scorer"] in by_b]
        if not pairs:
            raise NotComparableError("not comparable: the two evaluations share no scorer")

    def hits(r: dict[str, Any]) -> list[tuple[str, str, bool]]:
        return [(f"{i}:{rec[0]}", str(rec[1]), bool(rec[2])) for i, rec in enumerate(r["records"])]

    return [
        (part, x["scorer"], y["scorer"], compare_hits(hits(x), hits(y), resamples=resamples, seed=seed))
        for part, x, y in pairs
    ]


def _compare_pair(a: Path, b: Path, part: str, resamples: int, seed: int) -> list[Comparison]:
    ka, kb = run_kind(a), run_kind(b)
    if ka != kb or ka is None:
        what = f"a {KIND_DISPLAY[ka]} run" if ka else "no run"
        other = f"a {KIND_DISPLAY[kb]} run" if kb else "no run"
        raise NotComparableError(f"not comparable: {a} is {what}, {b} {other}")
    if ka == "rm":
        return [
            Comparison(part=" / ".join(p for p in (part, sub) if p), baseline=x, candidate=y, result=r)
            for sub, x, y, r in _compare_rm(a, b, resamples, seed)
        ]
    na, nb, result = (_compare_tc if ka == "robustbench" else _compare_trajectories)(a, b, resamples, seed)
    return [Comparison(part=part, baseline=na, candidate=nb, result=result)]


def _card_protocol(folder: Path) -> str | None:
    """``<protocol> <budget>`` of a card folder (``card.json``), ``None`` for another folder of runs."""
    path = folder / CARD_JSON
    if not path.is_file():
        return None
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
        return f"{card['protocol']} {card['budget']}"
    except (ValueError, KeyError, TypeError):
        raise InputError(f"{path}: not a card.json this robustcall reads") from None


def _card_hint(folder: Path) -> str:
    """Why a folder with a card.json may hold no run: a copy of the page and card.json alone."""
    if (folder / CARD_JSON).is_file():
        return ": a card is compared through its runs; give the folder `robustcall card --out` wrote"
    return ""


def _refuse_other_protocols(baseline: Path, candidate: Path) -> None:
    """Two cards are compared only under one protocol and budget (the runs would not pair anyway)."""
    a, b = _card_protocol(baseline), _card_protocol(candidate)
    if a is not None and b is not None:
        _refuse("card protocols", a, b)


def compare_paths(
    baseline: Path,
    candidate: Path,
    *,
    alpha: float = 0.05,
    fail_on_drop: float | None = None,
    fail_on_type: float | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> CompareResult:
    """Compare two runs of any kind, or two folders of runs (cards) run by run (module docstring).
    Raises ``NotComparableError`` (an ``InputError``) for runs that did not do the same work."""
    for p in (baseline, candidate):
        if not p.exists():
            raise MissingInputError(f"{p} not found")
    ka, kb = run_kind(baseline), run_kind(candidate)
    left_out: list[str] = []
    if ka is None and kb is None:
        _refuse_other_protocols(baseline, candidate)
        ra, rb = _runs_under(baseline), _runs_under(candidate)
        for folder, runs in ((baseline, ra), (candidate, rb)):
            if not runs:
                raise NotComparableError(f"{folder} holds no run to compare{_card_hint(folder)}")
        shared = sorted(set(ra) & set(rb))
        if not shared:
            raise NotComparableError(f"not comparable: no run of {baseline} has a counterpart in {candidate}")
        left_out = [f"{p} (baseline only)" for p in sorted(set(ra) - set(rb))]
        left_out += [f"{p} (candidate only)" for p in sorted(set(rb) - set(ra))]
        comparisons = [c for p in shared for c in _compare_pair(ra[p], rb[p], p, resamples, seed)]
    else:
        comparisons = _compare_pair(baseline, candidate, "", resamples, seed)
    return CompareResult(
        baseline=str(baseline),
        candidate=str(candidate),
        alpha=alpha,
        fail_on_drop=fail_on_drop,
        fail_on_type=fail_on_type,
        comparisons=comparisons,
        left_out=left_out,
    )
