"""Running a card: RobustBench-TC, PIPE and fault injection through the same library calls as
``robustcall bench``, ``pipe run`` and ``faults run``, each into its own run directory.

Every run resumes itself (records already written are kept, infrastructure failures asked again), so
running the same card again continues where a killed one stopped and answers nothing twice."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from robustcall.card._layout import fault_run, pipe_run, tc_bench, tc_run
from robustcall.card._protocol import FAULT_DELTA, PIPE_PLAN, Protocol
from robustcall.core import (
    MANIFEST,
    PREDICTIONS,
    RUN_META,
    InputError,
    MissingInputError,
    Prediction,
    RunFailed,
    RunFileError,
    RunMeta,
    Trajectory,
    TrajectoryRunMeta,
    read_run_meta,
    remove_stale_tmp,
)
from robustcall.envs import load_env
from robustcall.faults import FaultyEnv, load_profile
from robustcall.models import ChatModel, ModelSettings, make_model, resolve_base_url
from robustcall.perturb import build_benchmark, build_release
from robustcall.run import (
    ALL_TYPES,
    EXIT_INFRA,
    STOP_AFTER,
    GoldBudget,
    bench_digest,
    bench_release,
    plan_work,
    resume_meta,
    run_episode,
    run_faults,
    run_items,
    run_pipe,
    settings_meta,
    stopped_failure,
    with_trials,
    write_meta,
)
from robustcall.score import score_run
from robustcall.sources import load_release

Note = Callable[[str], None]
PROGRESS_EVERY = 50
"""RobustBench-TC records between two progress notes."""


@dataclass(frozen=True)
class CardModel:
    """The model a card runs, as the run commands take it."""

    spec: str
    """``--model``: answers RobustBench-TC, and the episodes unless ``env_spec`` says otherwise."""
    env_spec: str | None = None
    """The model of the PIPE and fault episodes (scripted cards: an environment policy such as
    ``scripted:expert``, since a request policy answers single-turn samples only)."""
    base_url: str | None = None
    settings: Path | None = None
    concurrency: int = 1
    stop_after: int | None = None
    trials: int = 1
    """``--trials K``: RobustBench-TC records asked K times, per-trial seeds from the protocol's seed."""

    @property
    def episodes_spec(self) -> str:
        """The episode model as a spec that names its endpoint (``run_pipe`` takes no ``base_url``)."""
        spec = self.env_spec or self.spec
        if spec.startswith("openai/") and self.base_url is not None:
            name, url = resolve_base_url(spec, self.base_url)
            return f"openai:{name}@{url}"
        return spec

    @property
    def stop(self) -> int:
        """Identical endpoint failures in a row that stop a run (``STOP_AFTER`` unless told)."""
        return STOP_AFTER if self.stop_after is None else self.stop_after

    def make(self, spec: str) -> ChatModel:
        return make_model(spec, settings_file=self.settings, concurrency=self.concurrency, base_url=self.base_url)


def _previous(run_dir: Path) -> RunMeta | None:
    try:
        return read_run_meta(run_dir / RUN_META) if (run_dir / RUN_META).is_file() else None
    except RunFileError:  # torn by a kill: written afresh
        return None


def build_tc(protocol: Protocol, card: Path, data_dir: Path | None, note: Note, release: Path | None = None) -> Path:
    """The card's RobustBench-TC build (kept when already built); refused when a type falls short of
    the protocol's records. ``release``: read the authors' released benchmark instead (``--release``;
    the paper budget only: its records are the paper's 3,721)."""
    bench = tc_bench(card)
    if not (bench / MANIFEST).is_file() and release is not None:
        if protocol.budget != "paper":
            raise InputError("--release answers the authors' whole benchmark: use it with --budget paper")
        note(f"reading the released RobustBench-TC from {release} into {bench}")
        build_release(load_release(release), bench)
    elif not (bench / MANIFEST).is_file():
        if protocol.tc_sources != ("bfcl",) and data_dir is None:
            raise MissingInputError(
                f"the {protocol.budget} budget builds RobustBench-TC from {', '.join(protocol.tc_sources)}: "
                "give their data with --data-dir (e.g. ../shared/data)"
            )
        note(f"building RobustBench-TC ({protocol.budget}) into {bench}")
        per_source = {s: protocol.tc_clean for s in protocol.tc_sources} if protocol.tc_clean else None
        build_benchmark(
            list(protocol.tc_sources),
            data_dir,
            protocol.seed,
            bench,
            per_source=per_source,
            composition=protocol.tc_composition,
        )
    counts = Counter(it.type for it in plan_work(bench, list(ALL_TYPES)))
    short = {t: counts[t] for t in ALL_TYPES if counts[t] < protocol.min_records_per_type}
    if short:
        raise InputError(
            f"{bench}: fewer than {protocol.min_records_per_type} records for "
            + ", ".join(f"{t} ({n})" for t, n in short.items())
        )
    return bench


async def run_tc(
    protocol: Protocol, model: CardModel, card: Path, data_dir: Path | None, note: Note, release: Path | None = None
) -> None:
    """RobustBench-TC as ``robustcall bench`` runs it (every type, each sample's variants back to back
    sorted by prompt, output budgets from the gold calls), then scored."""
    bench = build_tc(protocol, card, data_dir, note, release)
    run_dir = tc_run(card)
    items = with_trials(plan_work(bench, list(ALL_TYPES), order="prefix"), model.trials, protocol.seed)
    chat = model.make(model.spec)
    try:
        settings = getattr(chat, "settings", None)
        cap = settings.max_tokens if isinstance(settings, ModelSettings) else ModelSettings().max_tokens
        budget = GoldBudget.from_samples((it.sample for it in plan_work(bench, ["clean"])), cap)
        name, endpoint = (
            resolve_base_url(model.spec, model.base_url) if model.spec.startswith("openai") else (None, None)
        )
        meta = RunMeta(
            bench=str(bench.resolve()),
            bench_digest=bench_digest(bench),
            release=bench_release(bench),
            model=model.spec,
            model_name=name or model.spec,
            base_url=model.base_url,
            endpoint=endpoint,
            mode=chat.mode,
            **settings_meta(chat),
            types="all",
            limit=None,
            max_tokens="gold",
            order="prefix",
            trials=model.trials if model.trials > 1 else None,
            trial_seed=protocol.seed if model.trials > 1 else None,
        )
        resume = (run_dir / PREDICTIONS).is_file()
        if resume:
            remove_stale_tmp(run_dir)
            meta = resume_meta(run_dir, meta, _previous(run_dir))
        write_meta(run_dir, meta)
        note(f"RobustBench-TC: {len(items)} records into {run_dir}")
        answered = 0

        def tick(_: Prediction) -> None:  # a line now and then: a local card runs for a while
            nonlocal answered
            answered += 1
            if answered % PROGRESS_EVERY == 0:
                note(f"RobustBench-TC: answered {answered} more")

        stats = await run_items(
            items,
            chat,
            run_dir,
            concurrency=model.concurrency,
            resume=resume,
            max_tokens=budget,
            stop_after=model.stop,
            on_record=tick,
        )
    finally:
        await chat.aclose()
    if stats.stopped is not None:
        raise stopped_failure(model.stop, stats.stopped, f"run the same card again to go on ({run_dir})")
    if stats.infra_errors:  # the episodes would meet the same endpoint: stop before them
        raise RunFailed(
            f"{stats.infra_errors} of {len(items)} RobustBench-TC records ended in infrastructure errors "
            f"(in {run_dir / PREDICTIONS}): fix the endpoint, then run the same card again to ask them again",
            exit_code=EXIT_INFRA,
        )
    score_run(run_dir, seed=protocol.seed)


async def run_pipe_levels(protocol: Protocol, model: CardModel, card: Path, note: Note) -> None:
    """PIPE on each environment at origin / synonym / symbol / dual (both orders), as ``pipe curve``
    runs one checkpoint."""
    for env in protocol.envs:
        for level, order in PIPE_PLAN:
            out = pipe_run(card, env, level)
            note(f"PIPE {env} {level}" + (f" order {order}" if level == "dual" else "") + f" into {out}")
            await run_pipe(
                env,
                level,
                model.episodes_spec,
                out,
                order=order,
                limit=protocol.tasks,
                max_steps=protocol.max_steps,
                seed=protocol.seed,
                resume=True,
                settings=model.settings,
                fmt=protocol.env_format,
                concurrency=model.concurrency,
                stop_after=model.stop,
            )


async def run_fault_classes(protocol: Protocol, model: CardModel, card: Path, note: Note) -> None:
    """Each fault class's built-in profile at δ = 0.3 on each environment, as ``faults run`` runs one."""
    spec = model.env_spec or model.spec
    for env in protocol.envs:
        make_env = load_env(env, None)
        tasks = make_env().task_ids()[: protocol.tasks]
        for fault_class in protocol.fault_classes:
            out = fault_run(card, env, fault_class)
            note(f"faults {env} {fault_class} (δ = {FAULT_DELTA:g}) into {out}")
            chat = model.make(spec)

            async def episode(wrapped: FaultyEnv, task: str, seed: int, chat: ChatModel = chat) -> Trajectory:
                return await run_episode(
                    chat, wrapped, task, seed=seed, max_steps=protocol.fault_max_steps, fmt=protocol.env_format
                )

            try:
                stats = await run_faults(
                    episode,
                    make_env,
                    tasks=tasks,
                    profile=load_profile(fault_class).with_delta(FAULT_DELTA),
                    deltas=[FAULT_DELTA],
                    seeds=list(protocol.fault_seeds),
                    out=out,
                    meta=TrajectoryRunMeta(
                        kind="faults",
                        env=env,
                        model=spec,
                        mode=chat.mode,
                        format=protocol.env_format,
                        max_steps=protocol.fault_max_steps,
                        deltas=[FAULT_DELTA],
                        seeds=list(protocol.fault_seeds),
                        tasks=tasks,
                    ),
                    concurrency=model.concurrency,
                    stop_after=model.stop,
                )
            finally:
                await chat.aclose()
            if stats.stopped is not None:
                raise stopped_failure(model.stop, stats.stopped, f"run the same card again to go on ({out})")


async def run_card(
    protocol: Protocol,
    model: CardModel,
    card: Path,
    data_dir: Path | None,
    note: Note,
    release: Path | None = None,
) -> None:
    """Every run of the protocol into ``card`` (each resumed where it stopped); ``release``: the
    RobustBench-TC run answers the authors' released benchmark (``build_tc``)."""
    for env in protocol.envs:  # an environment that cannot start (a missing extra) fails before the first run
        load_env(env, None)()
    card.mkdir(parents=True, exist_ok=True)
    await run_tc(protocol, model, card, data_dir, note, release)
    await run_pipe_levels(protocol, model, card, note)
    await run_fault_classes(protocol, model, card, note)
