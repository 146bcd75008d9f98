"""``robustcall build``: turn real benchmarks into RobustBench-TC."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

console = Console(stderr=True)


def _per_source(spec: str | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in (p.strip() for p in (spec or "").split(",") if p.strip()):
        name, _, n = part.partition("=")
        if not n.isdigit():
            raise typer.BadParameter(f"--per-source wants name=N pairs, got {part!r}")
        out[name.strip()] = int(n)
    return out


def register(app: typer.Typer) -> None:
    register_audit(app)

    @app.command("build")
    def build(
        out: Annotated[Path, typer.Option("--out", help="Directory for clean.jsonl, <type>.jsonl, manifest.json.")],
        sources: Annotated[str, typer.Option("--sources", help="Comma list of sources.")] = "bfcl",
        data_dir: Annotated[
            Path | None, typer.Option("--data-dir", help="Data of API-Bank, RoTBench, ToolAlpaca, ToolEyes.")
        ] = None,
        per_source: Annotated[
            str | None, typer.Option("--per-source", help="Clean samples per source, e.g. bfcl=32,apibank=74.")
        ] = None,
        seed: Annotated[int, typer.Option("--seed")] = 0,
        rewriter: Annotated[str, typer.Option("--rewriter", help="offline (no model) or llm.")] = "offline",
        llm_model: Annotated[str | None, typer.Option("--llm-model", help="Model name for --rewriter llm.")] = None,
        llm_base_url: Annotated[
            str | None, typer.Option("--llm-base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
        ] = None,
    ) -> None:
        """Build RobustBench-TC: clean samples plus the 16 static perturbation types."""
        from robustcall.perturb import LLMRewriter, OfflineRewriter, Rewriter, build_benchmark

        chosen: Rewriter
        if rewriter == "offline":
            chosen = OfflineRewriter()
        elif rewriter == "llm":
            if not (llm_model and llm_base_url):
                raise typer.BadParameter("--rewriter llm needs --llm-model and --llm-base-url")
            chosen = LLMRewriter(llm_model, llm_base_url)
        else:
            raise typer.BadParameter(f"--rewriter must be offline or llm, got {rewriter!r}")
        names = [s.strip() for s in sources.split(",") if s.strip()]
        t0 = time.perf_counter()
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=console,
        ) as progress:  # fmt: skip
            task = progress.add_task("perturbing", total=None)

            def tick(_: str, done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            manifest = build_benchmark(
                names, data_dir, seed, out, per_source=_per_source(per_source), rewriter=chosen, on_progress=tick
            )
        table = Table(title=f"{out} ({time.perf_counter() - t0:.1f} s)")
        table.add_column("type")
        for name in names:
            table.add_column(name, justify="right")
        table.add_column("total", justify="right")
        for code, by_source in manifest["counts_by_source"].items():
            table.add_row(code, *(str(by_source.get(n, 0)) for n in names), str(manifest["counts"][code]))
        Console().print(table)


def register_audit(app: typer.Typer) -> None:
    @app.command("audit")
    def audit_cmd(
        bench: Annotated[Path, typer.Argument(help="A benchmark directory written by `robustcall build`.")],
        judge_model: Annotated[str | None, typer.Option("--judge-model", help="Judge model name.")] = None,
        judge_base_url: Annotated[
            str | None, typer.Option("--judge-base-url", help="OpenAI-compatible base URL of the judge.")
        ] = None,
        n: Annotated[int, typer.Option("--n", min=1, help="Pairs judged per type.")] = 50,
        seed: Annotated[int, typer.Option("--seed")] = 0,
        json_out: Annotated[Path | None, typer.Option("--json", help="Also write the report as JSON.")] = None,
    ) -> None:
        """Check generated perturbations automatically and, with a judge, score them 1-5 (Appendix H)."""
        import json

        from robustcall.perturb import LLMRewriter
        from robustcall.perturb.audit import audit
        from robustcall.run import bench_digest

        bench_digest(bench)  # a finished build, not any folder
        judge = None
        if judge_model and judge_base_url:
            client = LLMRewriter(judge_model, judge_base_url)
            judge = lambda prompt: client.complete(prompt, 0)  # noqa: E731
        report = audit(bench, judge=judge, n=n, seed=seed)
        table = Table(title=f"audit of {bench}")
        for col in ("type", "samples", "check failures", "n", "mean", "median", "std", "≤2"):
            table.add_column(col, justify="left" if col == "type" else "right")

        def fmt(v: object) -> str:
            return "—" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)

        for row in report.values():
            table.add_row(
                row["display"], str(row["samples"]), str(len(row["check_failures"])),
                *(fmt(row.get(k)) for k in ("n", "mean", "median", "std", "frac_le_2")),
            )  # fmt: skip
        Console().print(table)
        if json_out is not None:
            json_out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
