"""``robustcall faults``: fault-injection runs, sweeps, reports, recovery SFT data and the MCP proxy."""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.console import Console

from robustcall.cli._errors import CommandError, describe
from robustcall.cli._infra import (
    MaxInfraOpt,
    StopAfterOpt,
    check_infra,
    print_failures,
    stop_after_or_default,
    stopped_error,
)
from robustcall.cli._options import (
    DEFAULT_CONCURRENCY,
    BaseUrlOpt,
    ConcOpt,
    EnvDataOpt,
    EnvOpt,
    FormatOpt,
    LimitTasksOpt,
    MaxStepsOpt,
    ModeOpt,
    PricesOpt,
    check_format,
    check_mode,
)
from robustcall.cli._rewriter import LLMBaseUrlOpt, LLMModelOpt, LLMSettingsOpt, RewriterOpt, make_rewriter

if TYPE_CHECKING:
    from robustcall.core import Trajectory
    from robustcall.faults import FaultyEnv
    from robustcall.metrics import RRRule, StepsRule
    from robustcall.models import Mode
    from robustcall.run import FaultRunStats

console = Console(stderr=True)

faults_app = typer.Typer(
    name="faults",
    help="Stress-test agents with injected tool faults (taxonomy, RR / RASR / EIA / UFR, MCP proxy).",
    no_args_is_help=True,
)

ProfileOpt = Annotated[
    str,
    typer.Option(
        "--profile",
        help="A fault profile file (YAML/JSON) or a built-in: default, execution, semantic, "
        "nonstationary, transient, permanent.",
    ),
]


StickyOpt = Annotated[
    bool | None,
    typer.Option(
        "--sticky/--per-call",
        help="404 / 401 / 403 persist too, answered again without a new draw (--sticky), or they are "
        "observations of the call they were drawn for (--per-call). Non-stationarity persists either way "
        "(§3.1). Default: the profile's `sticky` (false in every built-in).",
    ),
]


ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        help="local | openai/<model> | openai:<model>@<base_url> | scripted:<policy> | "
        "scripted:expert (the environment's expert)",
    ),
]
OutOpt = Annotated[Path, typer.Option("--out", help="The run directory (trajectories.jsonl, run.json).")]
TasksOpt = Annotated[str | None, typer.Option("--tasks", help="Comma list of task ids (default: all).")]
SeedsOpt = Annotated[str, typer.Option("--seeds", help="Comma list of episode seeds.")]
PromptOpt = Annotated[str, typer.Option("--prompt", help="default, or cot (the CoT-prompting baseline).")]
AxisOpt = Annotated[
    str | None,
    typer.Option(
        "--axis",
        help="Runtime axes beyond the paper (Appendix N): stale_resource, prerequisite, param_type_mismatch, or all.",
    ),
]
RRRuleOpt = Annotated[
    str,
    typer.Option(
        "--rr-rule",
        help="The R_i rule: identify (the paper's reading: the agent names the fault and acts plausibly on it) "
        "or retry (a plausible clean next call, no identification needed; the rule before issue 35).",
    ),
]


def _floats(text: str, what: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise typer.BadParameter(f"{what} must be a comma list of numbers, got {text!r}") from None


@dataclass(frozen=True)
class _Episodes:
    """The options ``faults run`` and ``faults sweep`` share."""

    env: str
    profile: str
    model: str
    out: Path
    tasks: str | None
    limit: int | None
    seeds: str
    max_steps: int
    mode: str | None
    fmt: str
    prompt: str
    concurrency: int
    data: Path | None
    sticky: bool | None
    base_url: str | None
    axis: str | None
    stop_after: int | None

    @classmethod
    def of(cls, options: dict[str, Any]) -> _Episodes:
        """The shared options out of a command's parameters (its ``locals()``)."""
        return cls(**{f.name: options[f.name] for f in fields(cls)})


def _execute(opts: _Episodes, deltas: list[float]) -> FaultRunStats:
    """Play the episodes into ``opts.out`` at every δ of ``deltas``; print what happened; exit 3
    (``RunFailed``) when the run stopped on repeated identical endpoint failures."""
    from robustcall.core import TrajectoryRunMeta
    from robustcall.envs import load_env
    from robustcall.faults import load_profile, parse_axes, with_axes
    from robustcall.models import ChatModel, make_model
    from robustcall.run import PROMPT_VARIANTS, run_episode, run_faults

    out_fmt = check_format(opts.fmt)
    check_mode(opts.mode)
    if opts.prompt not in PROMPT_VARIANTS:
        raise typer.BadParameter(f"--prompt must be one of {', '.join(PROMPT_VARIANTS)}")
    if any(not 0 <= d <= 1 for d in deltas):
        raise typer.BadParameter("every δ must be in [0, 1]")
    try:
        prof = load_profile(opts.profile)
        axes = parse_axes(opts.axis)
        make_env = with_axes(load_env(opts.env, opts.data), axes)
    except (OSError, ValueError, ImportError) as exc:
        raise typer.BadParameter(str(exc)) from None
    if opts.sticky is not None:
        prof = prof.model_copy(update={"sticky": opts.sticky})
    all_tasks = make_env().task_ids()
    chosen = [t.strip() for t in opts.tasks.split(",")] if opts.tasks else all_tasks
    unknown = [t for t in chosen if t not in all_tasks]
    if unknown:
        raise typer.BadParameter(f"unknown task(s) {', '.join(unknown)} for {opts.env}")
    chosen = chosen[: opts.limit] if opts.limit is not None else chosen
    seed_list = [int(x) for x in _floats(opts.seeds, "--seeds")]
    chat: ChatModel
    try:
        chat = make_model(
            opts.model, mode=cast("Mode | None", opts.mode), concurrency=opts.concurrency, base_url=opts.base_url
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None

    async def episode(wrapped: FaultyEnv, task: str, seed: int) -> Trajectory:
        return await run_episode(
            chat, wrapped, task, seed=seed, max_steps=opts.max_steps, fmt=out_fmt, prompt=opts.prompt
        )

    async def go() -> FaultRunStats:
        try:
            return await run_faults(
                episode,
                make_env,
                tasks=chosen,
                profile=prof,
                deltas=deltas,
                seeds=seed_list,
                out=opts.out,
                meta=TrajectoryRunMeta(
                    kind="faults",
                    env=opts.env,
                    data=str(opts.data) if opts.data else None,
                    model=opts.model,
                    mode=chat.mode,
                    format=opts.fmt,
                    max_steps=opts.max_steps,
                    deltas=deltas,
                    seeds=seed_list,
                    tasks=chosen,
                    **({"axes": list(axes)} if axes else {}),
                ),
                prompt=opts.prompt,
                concurrency=opts.concurrency,
                stop_after=stop_after_or_default(opts.stop_after),
            )
        finally:
            await chat.aclose()

    try:
        stats = asyncio.run(go())
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    console.print(
        f"{opts.out}: played {stats.done} episodes (already done {stats.skipped}); infra errors: {stats.infra}"
    )
    print_failures(stats.failure_reasons)
    _print_injection_rates(opts.out)
    if stats.stopped is not None:
        raise stopped_error(
            stop_after_or_default(opts.stop_after),
            stats.stopped,
            f"fix the endpoint or the request, then run the same command again (episodes so far are in {opts.out})",
        )
    return stats


def _check_infra(stats: FaultRunStats, max_infra_errors: int) -> None:
    check_infra(stats.infra, stats.done, max_infra_errors, "episodes", "run the same command again to play them again")


def _print_injection_rates(out: Path) -> None:
    """δ beside the effective injection rate of every δ in the run directory."""
    from robustcall.metrics import injection_counts
    from robustcall.run import read_trajectories

    by_delta: dict[float, list[Trajectory]] = {}
    for t in read_trajectories(out, what="a fault-injection run"):
        by_delta.setdefault(float(t.config.get("delta", 0.0)), []).append(t)
    for d, trajs in sorted(by_delta.items()):
        c = injection_counts(trajs)
        rate = "—" if c.rate is None else f"{c.rate:.3f}"
        console.print(
            f"δ = {d:g}: effective injection rate {rate} ({c.faulted} of {c.calls} calls met a fault: "
            f"{c.fresh} fresh draws, {c.faulted - c.fresh} repeats of persisting faults)",
            soft_wrap=True,
        )


@faults_app.command("run")
def run(
    env: EnvOpt,
    model: ModelOpt = "local",
    out: OutOpt = Path("runs/faults"),
    profile: ProfileOpt = "default",
    delta: Annotated[float | None, typer.Option("--delta", help="δ (default: the profile's).")] = None,
    tasks: TasksOpt = None,
    limit: LimitTasksOpt = None,
    seeds: SeedsOpt = "0",
    max_steps: MaxStepsOpt = 10,
    mode: ModeOpt = None,
    fmt: FormatOpt = "tool_call",
    prompt: PromptOpt = "default",
    concurrency: ConcOpt = DEFAULT_CONCURRENCY,
    data: EnvDataOpt = None,
    sticky: StickyOpt = None,
    base_url: BaseUrlOpt = None,
    axis: AxisOpt = None,
    max_infra_errors: MaxInfraOpt = 0,
    stop_after: StopAfterOpt = None,
) -> None:
    """Run every task of ENV under the profile at one δ (Algorithm 1); resumable."""
    from robustcall.faults import load_profile

    try:
        d = delta if delta is not None else load_profile(profile).delta
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    stats = _execute(_Episodes.of(locals()), [d])
    _check_infra(stats, max_infra_errors)


@faults_app.command("sweep")
def sweep(
    env: EnvOpt,
    model: ModelOpt = "local",
    out: OutOpt = Path("runs/faults-sweep"),
    profile: ProfileOpt = "default",
    deltas: Annotated[str, typer.Option("--deltas", help="Comma list of δ (Table 3).")] = "0,0.1,0.2,0.3,0.5",
    tasks: TasksOpt = None,
    limit: LimitTasksOpt = None,
    seeds: SeedsOpt = "0",
    max_steps: MaxStepsOpt = 10,
    mode: ModeOpt = None,
    fmt: FormatOpt = "tool_call",
    prompt: PromptOpt = "default",
    concurrency: ConcOpt = DEFAULT_CONCURRENCY,
    data: EnvDataOpt = None,
    sticky: StickyOpt = None,
    base_url: BaseUrlOpt = None,
    axis: AxisOpt = None,
    max_infra_errors: MaxInfraOpt = 0,
    stop_after: StopAfterOpt = None,
    rr_rule: RRRuleOpt = "identify",
) -> None:
    """Run ENV at every δ of the sweep into one run directory, then print the report."""
    _check_rr_rule(rr_rule)
    values = _floats(deltas, "--deltas")
    stats = _execute(_Episodes.of(locals()), values)
    report([out], delta=0.3 if 0.3 in values else max(values), ufr_step_limit=False, out=None, rr_rule=rr_rule)
    _check_infra(stats, max_infra_errors)


@faults_app.command("replay")
def replay(
    run_dir: Annotated[Path, typer.Argument(help="A run directory of `faults run` / `faults sweep`.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the replayed run.")],
) -> None:
    """Re-run a logged run with its recorded model outputs; check the trajectories come out byte for byte."""
    from robustcall.run import replay_run

    if out.exists() and any(out.iterdir()):
        raise CommandError(f"{out} is not empty", hint="replay into a new or empty --out folder")
    try:
        same = asyncio.run(replay_run(run_dir, out))
    except (OSError, ValueError, KeyError) as exc:
        raise CommandError(f"{run_dir}: {describe(exc)}") from None
    console.print(f"replayed {run_dir} into {out}: " + ("identical" if same else "DIFFERENT"))
    if not same:
        raise typer.Exit(1)


@faults_app.command("export-sft")
def export_sft(
    runs: Annotated[list[Path], typer.Argument(help="Run directories of `faults run` / `faults sweep`.")],
    out: Annotated[Path, typer.Option("--out", help="The SFT JSONL file to write.")] = Path("recovery_sft.jsonl"),
) -> None:
    """Recovery tuples (s_t, a_t, o_injected, a_recovery) as chat-format SFT JSONL (TRL `messages`)."""
    from robustcall.core import read_trajectory_run_meta, write_jsonl
    from robustcall.envs import load_env
    from robustcall.faults import FaultProfile, RecoveryExample, recovery_examples
    from robustcall.formats import OUTPUT_FORMATS
    from robustcall.run import read_trajectories

    examples: list[RecoveryExample] = []
    for run_dir in runs:
        try:
            meta = read_trajectory_run_meta(run_dir)
            trajectories = read_trajectories(run_dir, what="a fault-injection run")
            make_env = load_env(meta.env, Path(meta.data) if meta.data else None)
            base = FaultProfile.model_validate(meta.profile)
            if meta.format not in OUTPUT_FORMATS:
                raise ValueError(f"unknown output format {meta.format!r} in its run.json")
            fmt = meta.format
        except (OSError, ValueError, KeyError, ImportError) as exc:
            raise typer.BadParameter(f"{run_dir}: {exc}") from None
        for t in trajectories:
            if t.success is None or not any(s.fault for s in t.steps):
                continue
            prof = base.with_delta(float(t.config["delta"]))
            examples += recovery_examples(t, make_env(), prof, fmt)
    n = write_jsonl(out, examples)
    kinds: dict[str, int] = {}
    for e in examples:
        kinds[e.recovery] = kinds.get(e.recovery, 0) + 1
    console.print(f"{out}: {n} recovery records {kinds}")


@faults_app.command("mcp-proxy")
def mcp_proxy(
    upstream: Annotated[
        str,
        typer.Option(
            "--upstream", help='Upstream MCP server: a command line ("uvx mcp-server-time") or an http(s) URL.'
        ),
    ] = "",
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            help="Fault profile (name or YAML); default: `default`, or none (δ = 0) with --perturb / --rename.",
        ),
    ] = None,
    delta: Annotated[float | None, typer.Option("--delta", help="Override the profile's global rate δ.")] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Override the profile's seed (and seed --perturb).")
    ] = None,
    log: Annotated[Path | None, typer.Option("--log", help="Append every injection to this JSONL file.")] = None,
    transport: Annotated[
        str, typer.Option("--transport", help="stdio or http (streamable HTTP on 127.0.0.1).")
    ] = "stdio",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port for --transport http.")] = 8765,
    sticky: StickyOpt = None,
    perturb: Annotated[
        str,
        typer.Option(
            "--perturb",
            help="RobustBench-TC types applied to tools/list (comma list of codes: "
            "same_name_A, redundant, CD_AB, paraphrase_tool_description, ...).",
        ),
    ] = "",
    rename: Annotated[
        str | None,
        typer.Option("--rename", help="PIPE's interface rewrite of the tool names: synonym, symbol or dual."),
    ] = None,
    target: Annotated[
        list[str] | None,
        typer.Option("--target", help="Tool a perturbation is built around (repeatable; default: every tool)."),
    ] = None,
    rewriter: RewriterOpt = "offline",
    llm_model: LLMModelOpt = None,
    llm_base_url: LLMBaseUrlOpt = None,
    llm_settings: LLMSettingsOpt = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Keep every upstream exchange in this JSONL file.")
    ] = None,
    replay: Annotated[
        Path | None, typer.Option("--replay", help="Answer from this recording; no upstream is started.")
    ] = None,
    session: Annotated[str, typer.Option("--session", help="Tag of this session's log lines (a task id).")] = "",
    log_calls: Annotated[
        bool, typer.Option("--log-calls", help="Log every call (what `mcp score` reads), not only injections.")
    ] = False,
    order: Annotated[
        int, typer.Option("--order", help="--rename dual: 1 lists synonyms first, 2 the original names first.")
    ] = 1,
) -> None:
    """Serve an MCP proxy in front of UPSTREAM: perturbs and renames its tools, injects the profile's faults."""
    from robustcall.faults import load_profile

    if transport not in ("stdio", "http"):
        raise typer.BadParameter(f"--transport must be stdio or http, got {transport!r}")
    if replay is None and not upstream:
        raise typer.BadParameter("give --upstream (or --replay a recording)", param_hint="--upstream")
    if replay is not None and not replay.is_file():
        raise typer.BadParameter(f"no recording at {replay}", param_hint="--replay")
    if replay is None and not upstream.startswith(("http://", "https://")):
        argv = shlex.split(upstream)
        if not argv or shutil.which(argv[0]) is None:
            raise typer.BadParameter(f"upstream command not found: {upstream!r}", param_hint="--upstream")
    if rename is not None and rename not in ("synonym", "symbol", "dual"):
        raise typer.BadParameter(f"--rename must be synonym, symbol or dual, got {rename!r}")
    if order not in (1, 2):
        raise typer.BadParameter(f"--order must be 1 or 2, got {order}")
    try:
        prof = load_profile(profile or "default")
    except (OSError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    if profile is None and (perturb or rename):
        prof = prof.with_delta(0.0)
    if delta is not None:
        prof = prof.with_delta(delta)
    if seed is not None:
        prof = prof.model_copy(update={"seed": seed})
    if sticky is not None:
        prof = prof.model_copy(update={"sticky": sticky})
    from robustcall.mcp import Layers, parse_perturb, serve

    try:
        codes = parse_perturb(perturb)
    except KeyError as exc:
        raise typer.BadParameter(str(exc.args[0]), param_hint="--perturb") from None
    chosen = make_rewriter(rewriter, llm_model, llm_base_url, llm_settings) if codes else None
    layers = Layers(tuple(codes), rename, seed if seed is not None else 0,  # type: ignore[arg-type]
                    tuple(target) if target else None, rewriter=chosen, order=1 if order == 1 else 2)  # fmt: skip
    asyncio.run(serve(upstream, prof, log_path=log, transport=transport, port=port, layers=layers, record=record,
                      replay=replay, session=session, log_calls=log_calls))  # fmt: skip


@faults_app.command("report")
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories of `faults run` / `faults sweep`.")],
    delta: Annotated[float, typer.Option("--delta", help="The δ of Tables 1, 2, 5 and 6.")] = 0.3,
    ufr_step_limit: Annotated[
        bool,
        typer.Option(
            "--ufr-step-limit/--no-ufr-step-limit",
            help="Count hitting the step limit after a fault towards UFR (not one of the paper's three reasons).",
        ),
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the tables (Markdown) and numbers (JSON).")
    ] = None,
    rr_rule: RRRuleOpt = "identify",
    steps: Annotated[
        str,
        typer.Option(
            "--steps",
            help="Table 5's steps: paired (over task attempts completed with and without faults) or all "
            "(every attempt, the rule before issue 35).",
        ),
    ] = "paired",
    method: Annotated[
        list[str] | None,
        typer.Option(
            "--method",
            help="Table 4's row label of each agent in the order of RUNS (repeat it; default: Baseline, "
            "+ CoT Prompting for a --prompt cot run, else the agent's name).",
        ),
    ] = None,
    prices: PricesOpt = None,
) -> None:
    """Tables 1-6 (TSR, RASR, RR, UFR, EIA, recovery by class, δ sweep, Baseline / CoT / fine-tuned
    side by side, steps, failure modes) over one or more runs; with --out also report.md, report.json
    and each table as CSV and LaTeX."""
    from robustcall.metrics import agent_of, fault_report, fault_tokens, load_prices
    from robustcall.report import fault_tables, fault_token_table, report_markdown
    from robustcall.run import read_trajectories

    trajectories = []
    for run in runs:
        try:
            trajectories += read_trajectories(run, what="a fault-injection run")
        except (OSError, ValueError) as exc:
            raise typer.BadParameter(str(exc)) from None
    try:
        rep = fault_report(
            trajectories,
            table_delta=delta,
            ufr_step_limit=ufr_step_limit,
            rr_rule=_check_rr_rule(rr_rule),
            steps_rule=_check_steps(steps),
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if method and len(method) > len(rep.order):
        raise typer.BadParameter(f"{len(method)} --method labels for {len(rep.order)} agents", param_hint="--method")
    by_delta = fault_tokens(trajectories, agent_of, load_prices(prices) if prices is not None else None)
    tokens = fault_token_table(by_delta)
    text = report_markdown(rep, method) + "\n" + tokens.markdown()
    typer.echo(text)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text(text)
        (out / "report.json").write_text(rep.model_dump_json(indent=2) + "\n")
        dump = {agent: [d.model_dump() for d in rows] for agent, rows in by_delta.items()}
        (out / "fault_tokens.json").write_text(json.dumps(dump, indent=2) + "\n")
        for table in [*fault_tables(rep, method), tokens]:
            (out / f"{table.name}.csv").write_text(table.csv())
            (out / f"{table.name}.tex").write_text(table.latex())


def _check_rr_rule(rule: str) -> RRRule:
    if rule not in ("identify", "retry"):
        raise typer.BadParameter(f"--rr-rule must be identify or retry, got {rule!r}", param_hint="--rr-rule")
    return cast("RRRule", rule)


def _check_steps(rule: str) -> StepsRule:
    if rule not in ("paired", "all"):
        raise typer.BadParameter(f"--steps must be paired or all, got {rule!r}", param_hint="--steps")
    return cast("StepsRule", rule)


def register(app: typer.Typer) -> None:
    app.add_typer(faults_app)
