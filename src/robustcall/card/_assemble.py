"""From a card's runs to ``card.json``: every number from ``metrics`` (through ``report``'s run
loading), nothing computed here but choices of what to show."""

from __future__ import annotations

from pathlib import Path
from statistics import fmean

from robustcall.card._layout import fault_run, pipe_run, run_dirs, tc_run
from robustcall.card._protocol import FAULT_DELTA, PIPE_PLAN, Protocol
from robustcall.core import (
    FAULT_CLASS_DISPLAY,
    PREDICTIONS,
    TAXONOMY,
    PredictionRecord,
    Trajectory,
    iter_checkpoint,
    read_trajectories,
)
from robustcall.interface import episode_counts
from robustcall.metrics import (
    ALPHAS,
    COMPONENT_ORDER,
    DEFAULT_RESAMPLES,
    DeltaTokens,
    Estimate,
    Prices,
    combined_interface_reliance,
    fault_metrics,
    fault_tokens,
    pipe_delta,
)
from robustcall.report import (
    Card,
    Damaging,
    Example,
    FaultClassRow,
    PipeEnv,
    PipeLevel,
    RobustBenchSection,
    RunResult,
    TypeRow,
    load_run,
    read_run_tokens,
    reference_placement,
    run_comparability,
)
from robustcall.run import clean_id_of

MOST_DAMAGING = 3
"""How many of the worst perturbation types the card shows, each with an example."""
ANSWER_CHARS = 400


def _examples(run: RunResult, codes: set[str]) -> dict[str, Example]:
    """Per type in ``codes``: the first wrong record (by id) whose clean twin was right, else the
    first wrong record."""
    verdict = {(v.type, v.id): v for v in run.verdicts}
    clean_ok = {v.id: v.correct for v in run.verdicts if v.type == "clean"}
    best: dict[str, tuple[tuple[bool, str], Example]] = {}
    for rec in iter_checkpoint(run.path / PREDICTIONS, PredictionRecord):
        code = rec.perturbation.type
        v = verdict.get((code, rec.id))
        if code not in codes or v is None or v.correct is not False:
            continue
        twin = clean_ok.get(clean_id_of(rec))
        key = (not twin, rec.id)
        if code in best and best[code][0] <= key:
            continue
        answer = rec.prediction.raw_output or ", ".join(c.name for c in rec.prediction.tool_calls)
        query = rec.conversation[rec.last_user_index()].content
        best[code] = (
            key,
            Example(id=rec.id, query=query, answer=answer[:ANSWER_CHARS], error_mode=v.error_mode, clean_correct=twin),
        )
    return {code: ex for code, (_, ex) in best.items()}


def robustbench_section(card: Path, protocol: Protocol, name: str, resamples: int) -> RobustBenchSection:
    run = load_run(tc_run(card), resamples=resamples, seed=protocol.seed, name=name)
    versus = run_comparability(tc_run(card), len(run.verdicts))
    s = run.stats
    na = Estimate(value=None)
    types = [
        TypeRow(
            code=t.code,
            display=t.display,
            component=t.component,
            n=s.n_by_type.get(t.code, 0),
            accuracy=s.accuracy.get(t.code, na),
            drop=s.drop.get(t.code, na),
        )
        for t in TAXONOMY
        if t.code in s.accuracy
    ]
    worst = sorted((t for t in types if t.drop.value is not None), key=lambda t: -(t.drop.value or 0.0))
    worst = [t for t in worst if (t.drop.value or 0.0) > 0][:MOST_DAMAGING]
    examples = _examples(run, {t.code for t in worst})
    return RobustBenchSection(
        run=str(tc_run(card).relative_to(card)),
        records=len(run.verdicts),
        clean_samples=s.n_by_type.get("clean", 0),
        infra_errors=s.infra_errors,
        clean=s.clean,
        pert_acc=s.pert_acc,
        retention=s.retention,
        components={c: s.component_accuracy[c] for c in COMPONENT_ORDER if c in s.component_accuracy},
        component_delta={c: s.delta[c] for c in COMPONENT_ORDER if c in s.delta},
        types=types,
        most_damaging=[
            Damaging(code=t.code, display=t.display, component=t.component, drop=t.drop, example=examples.get(t.code))
            for t in worst
        ],
        reference=reference_placement(name, s, comparable=versus[0], versus=versus[1]),
    )


def _newest(trajs: list[Trajectory]) -> list[Trajectory]:
    """The episodes with a verdict (a resumed run plays infrastructure failures again)."""
    return [t for t in trajs if t.termination != "infra"]


def _level(trajs: list[Trajectory], legacy: bool) -> PipeLevel:
    scored = [t for t in trajs if t.success is not None]
    return PipeLevel(
        episodes=len(trajs),
        score=fmean(t.score for t in scored) if scored else None,
        success=fmean(1.0 if t.success else 0.0 for t in scored) if scored else None,
        legacy_calls=fmean(episode_counts(t).legacy for t in trajs) if legacy and trajs else None,
    )


def pipe_section(card: Path, protocol: Protocol) -> dict[str, PipeEnv]:
    out: dict[str, PipeEnv] = {}
    for env in protocol.envs:
        levels = {
            lv: _newest(read_trajectories(pipe_run(card, env, lv))) for lv in dict.fromkeys(lv for lv, _ in PIPE_PLAN)
        }
        shown = {lv: _level(ts, lv in ("synonym", "symbol")) for lv, ts in levels.items()}
        s = [shown[lv].score for lv in ("origin", "synonym", "symbol")]
        orders = {
            o: {
                t.task_id: (episode_counts(t).n_ori, episode_counts(t).n_syn)
                for t in levels["dual"]
                if t.config.get("order") == o
            }
            for o in (1, 2)
        }
        reliance = {
            f"{a:g}": (combined_interface_reliance(orders[1], orders[2], a) if orders[1] and orders[2] else None)
            for a in ALPHAS
        }
        out[env] = PipeEnv(
            levels=shown,
            delta=pipe_delta(s[0], s[1], s[2]) if None not in s else None,  # type: ignore[arg-type]
            interface_reliance=reliance,
        )
    return out


def fault_section(card: Path, protocol: Protocol) -> list[FaultClassRow]:
    rows = []
    for fc in protocol.fault_classes:
        by_env = {env: read_trajectories(fault_run(card, env, fc)) for env in protocol.envs}
        rows.append(
            FaultClassRow(
                fault_class=fc,
                display=FAULT_CLASS_DISPLAY[fc],
                pooled=fault_metrics([t for ts in by_env.values() for t in ts]),
                by_env={env: fault_metrics(ts) for env, ts in by_env.items()},
            )
        )
    return rows


def fault_tokens_section(card: Path, protocol: Protocol, prices: Prices | None) -> dict[str, list[DeltaTokens]]:
    """Per fault class: its episodes' tokens and time per δ, both environments pooled."""
    out: dict[str, list[DeltaTokens]] = {}
    for fc in protocol.fault_classes:
        episodes = [t for env in protocol.envs for t in read_trajectories(fault_run(card, env, fc))]
        for rows in fault_tokens(episodes, lambda t: t.model, prices).values():
            out[FAULT_CLASS_DISPLAY[fc]] = rows
    return out


def assemble(
    card: Path,
    protocol: Protocol,
    model: str,
    env_model: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    prices: Prices | None = None,
) -> Card:
    """The card of the runs in ``card`` (all of them finished); ``prices`` (``--prices``) adds cost
    to its tokens."""
    return Card(
        protocol=protocol.version,
        budget=protocol.budget,
        model=model,
        env_model=env_model,
        seed=protocol.seed,
        resamples=resamples,
        robustbench=robustbench_section(card, protocol, model, resamples),
        pipe=pipe_section(card, protocol),
        faults=fault_section(card, protocol),
        fault_delta=FAULT_DELTA,
        runs=[p.as_posix() for p in run_dirs(card)],
        tokens=read_run_tokens(tc_run(card), model, prices),
        fault_tokens=fault_tokens_section(card, protocol, prices),
    )
