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
from collections.abc import Iterable
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

EXIT_NOTHING_TO_JUDGE = 5
"""``robustcall compare``: the comparison has nothing to judge (a side with no scorable record, a run of
infrastructure errors only, a card part one side lacks, the same folder twice); never a pass."""
ALLOW_DIFFERENT = ("mode", "settings")
"""What ``--allow-different`` may let differ between the two runs."""

RM_EVAL = "rm_eval.json"
"""What ``robustcall rm eval --out`` writes: one object per scorer."""
MAX_DEPTH = 4
"""How deep a folder of runs is searched for runs."""


class NotComparableError(InputError):
    """Two runs that did not do the same work."""


class NothingToJudgeError(InputError):
    """A comparison that would judge nothing: a gate must not pass on it (exit 5)."""

    exit_code = EXIT_NOTHING_TO_JUDGE


class Comparison(BaseModel):
    """One pair of runs compared."""

    part: str
    """Where the pair sits inside the two folders (``""``: the two paths given were runs)."""
    baseline: str
    candidate: str
    """The runs' names (model or scorer) as the tables say them."""
    result: PairedComparison
    baseline_path: str = ""
    candidate_path: str = ""
    """The two runs' folders (or files)."""
    differences: list[str] = Field(default_factory=list)
    """What differs between the two runs' ``run.json`` (model, mode, settings, max tokens, trials), as
    ``what: baseline vs candidate``."""


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
    allowed_different: list[str] = Field(default_factory=list)
    """``--allow-different``: what the runs were allowed to differ in (``mode``, ``settings``)."""

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


def _value(x: object) -> str:
    return "none" if x is None else x if isinstance(x, str) else json.dumps(x, sort_keys=True, default=str)


def meta_differences(ma: Any, mb: Any) -> tuple[list[str], list[str]]:
    """(every difference between two ``run.json`` records that decides answers, as ``what: a vs b``;
    the kinds of ``ALLOW_DIFFERENT`` among them). Settings are compared field by field."""
    out: list[str] = []
    kinds: list[str] = []
    fields = ("model", "mode", "max_tokens", "trials")
    for name in fields:
        x, y = getattr(ma, name, None), getattr(mb, name, None)
        if name == "trials":
            x, y = x or 1, y or 1
        if x != y:
            out.append(f"{name}: {_value(x)} vs {_value(y)}")
            if name == "mode":
                kinds.append("mode")
            elif name == "max_tokens":
                kinds.append("settings")
    if any(str(getattr(m, "model", "")).startswith(SETTINGLESS) for m in (ma, mb)):
        kinds = []  # a scripted or replayed answer depends on neither: say what differs, refuse nothing
    sa = getattr(ma, "answer_settings", None) or {}
    sb = getattr(mb, "answer_settings", None) or {}
    for key in sorted(set(sa) | set(sb)):
        if sa.get(key) != sb.get(key):
            out.append(f"settings.{key}: {_value(sa.get(key))} vs {_value(sb.get(key))}")
            kinds.append("settings")
    return out, sorted(set(kinds))


SETTINGLESS = ("scripted:", "replay:")
"""Model specs whose answers no mode or setting decides (scripted policies, replayed files)."""


def _check_allowed(kinds: list[str], differences: list[str], allowed: set[str]) -> None:
    refused = [k for k in kinds if k not in allowed]
    if refused:
        shown = [d for d in differences if d.split(":")[0].split(".")[0] in _KIND_FIELDS[refused[0]]]
        raise NotComparableError(
            f"not comparable: different {refused[0]} ({'; '.join(shown)}); "
            f"pass --allow-different {refused[0]} to compare them anyway"
        )


_KIND_FIELDS = {"mode": ("mode",), "settings": ("settings", "max_tokens")}


def _no_scorable(run: Path, side: str, verdicts: list[Verdict]) -> None:
    """Refuse a run with nothing to judge: no record, or infrastructure errors only."""
    if not verdicts:
        raise NothingToJudgeError(f"nothing to judge: the {side} {run} holds no record")
    if all(v.correct is None for v in verdicts):
        raise NothingToJudgeError(
            f"nothing to judge: all {len(verdicts)} records of the {side} {run} are infrastructure errors"
        )


def _compare_tc(
    a: Path, b: Path, resamples: int, seed: int, allowed: set[str]
) -> tuple[str, str, PairedComparison, list[str]]:
    ma, mb = read_run_meta(a), read_run_meta(b)
    if ma.bench_digest and mb.bench_digest:
        _refuse("benchmark builds (bench digest)", ma.bench_digest, mb.bench_digest)
    _refuse("perturbation types (--types)", ma.types or "all", mb.types or "all")
    differences, kinds = meta_differences(ma, mb)
    _check_allowed(kinds, differences, allowed)
    va, vb = _verdicts(a, seed), _verdicts(b, seed)
    _no_scorable(a, "baseline", va)
    _no_scorable(b, "candidate", vb)
    result = compare_verdicts(va, vb, resamples=resamples, seed=seed)
    if ma.scorer_version != mb.scorer_version:
        result.notes.append(f"scored by different verdict rules (scorer {ma.scorer_version} vs {mb.scorer_version})")
    return run_name(a), run_name(b), result, differences


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


def _compare_trajectories(
    a: Path, b: Path, resamples: int, seed: int, allowed: set[str]
) -> tuple[str, str, PairedComparison, list[str]]:
    ma, mb = read_trajectory_run_meta(a), read_trajectory_run_meta(b)
    _check_trajectory_runs(ma, mb)
    differences, kinds = meta_differences(ma, mb)
    _check_allowed(kinds, differences, allowed)
    ta, tb = read_trajectories(a), read_trajectories(b)
    for run, side, ts in ((a, "baseline", ta), (b, "candidate", tb)):
        if not ts:
            raise NothingToJudgeError(f"nothing to judge: the {side} {run} holds no episode")
        if all(t.success is None for t in ts):
            raise NothingToJudgeError(
                f"nothing to judge: all {len(ts)} episodes of the {side} {run} ended in infrastructure errors"
            )
    if ma.kind == "faults":
        result = compare_fault_runs(ta, tb, resamples=resamples, seed=seed)
    else:
        from robustcall.interface import episode_counts

        def counts(t: Any) -> tuple[int, int]:
            c = episode_counts(t)
            return c.n_ori, c.n_syn

        result = compare_pipe_runs(ta, tb, counts, resamples=resamples, seed=seed)
    return ma.model, mb.model, result, differences


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


def _compare_pair(a: Path, b: Path, part: str, resamples: int, seed: int, allowed: set[str]) -> list[Comparison]:
    ka, kb = run_kind(a), run_kind(b)
    if ka != kb or ka is None:
        what = f"a {KIND_DISPLAY[ka]} run" if ka else "no run"
        other = f"a {KIND_DISPLAY[kb]} run" if kb else "no run"
        raise NotComparableError(f"not comparable: {a} is {what}, {b} {other}")
    paths = {"baseline_path": str(a), "candidate_path": str(b)}
    if ka == "rm":
        comparisons = [
            Comparison(part=" / ".join(p for p in (part, sub) if p), baseline=x, candidate=y, result=r, **paths)
            for sub, x, y, r in _compare_rm(a, b, resamples, seed)
        ]
    else:
        compare = _compare_tc if ka == "robustbench" else _compare_trajectories
        na, nb, result, differences = compare(a, b, resamples, seed, allowed)
        comparisons = [
            Comparison(part=part, baseline=na, candidate=nb, result=result, differences=differences, **paths)
        ]
    for c in comparisons:
        if c.result.pairing.compared == 0:
            where = f" in {c.part}" if c.part else ""
            p = c.result.pairing
            raise NothingToJudgeError(
                f"nothing to judge{where}: 0 of {max(p.baseline, p.candidate)} {p.unit} have a verdict in both runs "
                f"(baseline {p.baseline}, candidate {p.candidate}, both {p.shared})"
            )
    return comparisons


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
    allow_different: Iterable[str] = (),
) -> CompareResult:
    """Compare two runs of any kind, or two folders of runs (cards) run by run (module docstring).
    Raises ``NotComparableError`` (an ``InputError``) for runs that did not do the same work (another
    mode or other settings unless ``allow_different`` names them), ``NothingToJudgeError`` (exit 5)
    for a comparison that has nothing to judge."""
    for p in (baseline, candidate):
        if not p.exists():
            raise MissingInputError(f"{p} not found")
    allowed = {a.lower() for a in allow_different}
    unknown = sorted(allowed - set(ALLOW_DIFFERENT))
    if unknown:
        raise InputError(f"--allow-different {unknown[0]}: give {' or '.join(ALLOW_DIFFERENT)}")
    same = baseline.resolve() == candidate.resolve()
    if same and (run_kind(baseline) is not None or (baseline.is_dir() and bool(_runs_under(baseline)))):
        # (a path that is no run at all is refused below as such, exit 1, not as a self-comparison)
        raise NothingToJudgeError(
            f"nothing to judge: baseline and candidate are the same {'file' if baseline.is_file() else 'folder'} "
            f"({baseline}); a run compared with itself can show no regression"
        )
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
        missing = [f"{p} (baseline only)" for p in sorted(set(ra) - set(rb))]
        missing += [f"{p} (candidate only)" for p in sorted(set(rb) - set(ra))]
        if missing:  # a part one side lacks would read as "no regression" there
            more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
            raise NothingToJudgeError(
                f"nothing to judge for {missing[0]}{more}: each run of one folder needs its counterpart in the other"
            )
        comparisons = [c for p in shared for c in _compare_pair(ra[p], rb[p], p, resamples, seed, allowed)]
    else:
        comparisons = _compare_pair(baseline, candidate, "", resamples, seed, allowed)
    return CompareResult(
        baseline=str(baseline),
        candidate=str(candidate),
        alpha=alpha,
        fail_on_drop=fail_on_drop,
        fail_on_type=fail_on_type,
        comparisons=comparisons,
        left_out=left_out,
        allowed_different=sorted(allowed),
    )
