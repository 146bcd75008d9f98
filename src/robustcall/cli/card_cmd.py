"""``robustcall card``: one model through RobustBench-TC, PIPE and fault injection; card.json and a page."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from robustcall.cli._errors import CommandError, describe
from robustcall.cli._infra import StopAfterOpt
from robustcall.cli._options import CONCURRENCY_HELP, DEFAULT_CONCURRENCY, BaseUrlOpt, PricesOpt, SettingsOpt

if TYPE_CHECKING:
    from robustcall.report import Card

console = Console(stderr=True)

EPISODE_SAFE_POLICIES = frozenset({"never_call"})
"""Request policies that can play an episode as they answer a sample: ``never_call`` answers in words
everywhere; the others read golden calls, which an episode has none of (docs/card.md, "Models")."""


def _3(x: float | None) -> str:
    """A figure as the card's tables print it (three decimals)."""
    return "—" if x is None else f"{x:.3f}"


def refuse_request_policy_episodes(model: str, env_model: str | None) -> None:
    """A request policy left to play the episodes (no ``--env-model``) is refused in one line: its
    episode figures would mean nothing."""
    from robustcall.models import ENV_POLICIES, POLICIES, SCRIPTED_MODELS

    kind, _, name = model.partition(":")
    if env_model is not None or kind != "scripted" or name in SCRIPTED_MODELS or name not in POLICIES:
        return
    if name in EPISODE_SAFE_POLICIES:
        return
    envs = ", ".join(f"scripted:{n}" for n in sorted(ENV_POLICIES))
    raise CommandError(
        f"--model {model} is a request policy: it answers single-turn samples from their golden calls and "
        f"cannot play the PIPE and fault episodes; name an environment policy with --env-model ({envs})"
    )


def with_mcp_run(card: Card, run_dir: Path) -> Card:
    """``card`` with an ``mcp run``'s conditions (``mcp report``'s rows, from ``metrics``)."""
    import json

    from robustcall.core import read_trajectories
    from robustcall.mcp import MANIFEST, condition_rows
    from robustcall.report import McpCondition

    data = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    runs = {c: read_trajectories(run_dir / c, what="an MCP run") for c in data["conditions"]}
    rows = [McpCondition.model_validate(r) for r in condition_rows(runs, seed=int(data.get("seed", 0)))]
    return card.model_copy(update={"mcp": rows, "mcp_run": str(run_dir)})


def register(app: typer.Typer) -> None:
    @app.command("card")
    def card_cmd(
        model: Annotated[
            str,
            typer.Option(
                "--model",
                help="local | openai/<model> (with --base-url or OPENAI_BASE_URL) | openai:<model>@<url> | "
                "scripted:<policy>",
            ),
        ] = "local",
        budget: Annotated[
            str,
            typer.Option(
                "--budget",
                help="quick (BFCL, 20 stratified clean samples, every type: 460 records; 3 tasks per "
                "environment) | paper (the 3,721-record default build, needs --data-dir; every task).",
            ),
        ] = "quick",
        out: Annotated[Path, typer.Option("--out", help="The card folder (its runs, card.json, card.html).")] = Path(
            "runs/card"
        ),
        env_model: Annotated[
            str | None,
            typer.Option(
                "--env-model",
                help="The model of the PIPE and fault episodes (default: --model). Scripted cards name an "
                "environment policy here (scripted:expert, memorise, random, repeater, retrier).",
            ),
        ] = None,
        base_url: BaseUrlOpt = None,
        settings: SettingsOpt = None,
        data_dir: Annotated[
            Path | None,
            typer.Option("--data-dir", help="API-Bank, RoTBench, ToolAlpaca and ToolEyes data (the paper budget)."),
        ] = None,
        concurrency: Annotated[
            int | None,
            typer.Option(
                "--concurrency",
                min=1,
                help=f"{CONCURRENCY_HELP} Default: 1 for the local model (one llama-server slot), "
                f"{DEFAULT_CONCURRENCY} otherwise; the records do not depend on it.",
            ),
        ] = None,
        stop_after: StopAfterOpt = None,
        trials: Annotated[
            int,
            typer.Option(
                "--trials",
                min=1,
                help="Ask every RobustBench-TC record K times, each trial with its own request seed (pass@k, "
                "pass^k, noise floors in the report); 1 (default): the protocol's one answer per record.",
            ),
        ] = 1,
        release: Annotated[
            Path | None,
            typer.Option(
                "--release",
                help="With --budget paper: answer the authors' released RobustBench-TC (a folder of its files, "
                "docs/sources.md) instead of our own build; only then is the card like for like with the paper.",
            ),
        ] = None,
        prices: PricesOpt = None,
        mcp_run: Annotated[
            Path | None,
            typer.Option("--mcp-run", help="An `mcp run` folder to show on the card beside the protocol's systems."),
        ] = None,
    ) -> None:
        """Run the card's fixed protocol with one model (resumable: run it again to go on) and write
        OUT/card.json and OUT/card.html."""
        from robustcall.card import BUDGETS, PROTOCOLS, CardModel, assemble, run_card, write_card
        from robustcall.metrics import load_prices
        from robustcall.models import make_model
        from robustcall.run import EXIT_INFRA

        if mcp_run is not None and not (mcp_run / "mcp.json").is_file():
            raise typer.BadParameter(f"{mcp_run} is not an `mcp run` folder (no mcp.json)", param_hint="--mcp-run")
        if budget not in BUDGETS:
            raise typer.BadParameter(f"--budget must be one of {', '.join(BUDGETS)}, got {budget!r}")
        protocol = PROTOCOLS[budget]
        refuse_request_policy_episodes(model, env_model)
        price_list = load_prices(prices) if prices is not None else None
        for spec in {model, env_model or model}:  # a bad spec fails before anything runs
            make_model(spec, settings_file=settings, base_url=base_url)
        local = model.split(":")[0] == "local"
        chosen = CardModel(
            spec=model,
            env_spec=env_model,
            base_url=base_url,
            settings=settings,
            concurrency=concurrency or (1 if local else DEFAULT_CONCURRENCY),
            stop_after=stop_after,
            trials=trials,
        )
        t0 = time.perf_counter()
        try:
            asyncio.run(run_card(protocol, chosen, out, data_dir, lambda m: console.print(m, soft_wrap=True), release))
        except ValueError as exc:
            raise CommandError(describe(exc)) from None
        card = assemble(out, protocol, model, env_model or model, prices=price_list)
        if mcp_run is not None:
            card = with_mcp_run(card, mcp_run)
        files = write_card(out, card)
        rb = card.robustbench
        console.print(
            f"{protocol.version} ({budget}) in {time.perf_counter() - t0:.0f} s: Clean {_3(rb.clean.value)}, "
            f"Pert. Acc. {_3(rb.pert_acc.value)}, rank {rb.reference.rank} of {rb.reference.of} beside the paper's "
            f"models ({rb.reference.rank_low}-{rb.reference.rank_high} within the interval)",
            soft_wrap=True,
        )
        typer.echo(f"{files.json}\n{files.html}")
        infra = rb.infra_errors + sum(row.pooled.infra_errors for row in card.faults)
        if infra:
            console.print(
                f"{infra} records / episodes ended in infrastructure errors (left out of the card): "
                "run the same card again to ask them again"
            )
            raise typer.Exit(EXIT_INFRA)
