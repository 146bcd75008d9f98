"""``robustcall build``: turn real benchmarks into RobustBench-TC."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from robustcall.cli._options import SeedOpt
from robustcall.cli._rewriter import (
    LLMBaseUrlOpt,
    LLMModelOpt,
    LLMSettingsOpt,
    RewriterOpt,
    close,
    make_rewriter,
    model_errors,
)
from robustcall.core import BEYOND_TYPES, DEFAULTS, STATIC_TYPES, TRANSITION_TYPES, type_info

console = Console(stderr=True)


def _per_source(spec: str | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in (p.strip() for p in (spec or "").split(",") if p.strip()):
        name, _, n = part.partition("=")
        if not n.isdigit():
            raise typer.BadParameter(f"--per-source wants name=N pairs, got {part!r}")
        out[name.strip()] = int(n)
    return out


def _token_counter(path: Path) -> tuple[str, Callable[[str], int]]:
    """A tokenizer.json (Hugging Face ``tokenizers``) as a token counter for context pressure."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise typer.BadParameter("--tokenizer needs the tokenizers package (pip install tokenizers)") from None
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:  # the library raises its own exception types for unreadable files
        raise typer.BadParameter(f"cannot read tokenizer {path}: {exc}", param_hint="--tokenizer") from None
    return (path.name, lambda text: len(tok.encode(text, add_special_tokens=False).ids))


def register(app: typer.Typer) -> None:
    register_audit(app)

    @app.command("build")
    def build(
        out: Annotated[Path, typer.Option("--out", help="Directory for clean.jsonl, <type>.jsonl, manifest.json.")],
        sources: Annotated[str, typer.Option("--sources", help="Comma list of sources.")] = "bfcl",
        data_dir: Annotated[
            Path | None,
            typer.Option(
                "--data-dir", exists=True, file_okay=False, help="Data of API-Bank, RoTBench, ToolAlpaca, ToolEyes."
            ),
        ] = None,
        per_source: Annotated[
            str | None, typer.Option("--per-source", help="Clean samples per source, e.g. bfcl=32,apibank=74.")
        ] = None,
        seed: SeedOpt = 0,
        rewriter: RewriterOpt = "offline",
        llm_model: LLMModelOpt = None,
        llm_base_url: LLMBaseUrlOpt = None,
        llm_settings: LLMSettingsOpt = None,
        types: Annotated[
            str,
            typer.Option(
                "--types",
                help="paper (the 16 static types, default), beyond (Appendix N's static axes), all, or a comma list.",
            ),
        ] = "paper",
        tokenizer: Annotated[
            Path | None,
            typer.Option("--tokenizer", help="A tokenizer.json counting context-pressure tokens (default: 4 chars)."),
        ] = None,
        composition: CompositionOpt = "paper",
        release: Annotated[
            str | None,
            typer.Option(
                "--release",
                help="Read the authors' released RobustBench-TC instead of building it: a folder of its files "
                "(clean.jsonl and the 16 type files, or the larger card's unified_benchmark/), or hf to "
                "download robustbench-tc/RobustBench-TC (docs/sources.md). The other build options do not apply.",
            ),
        ] = None,
    ) -> None:
        """Build RobustBench-TC: clean samples plus the 16 static perturbation types (and, asked, the beyond ones)."""
        if release is not None:
            build_from_release(release, out)
            return
        from robustcall.perturb import COMPOSITIONS, build_benchmark, static_types
        from robustcall.sources import SOURCE_NAMES

        if composition not in COMPOSITIONS:
            raise typer.BadParameter(f"{composition!r}; valid: {', '.join(COMPOSITIONS)}", param_hint="--composition")
        names = [s.strip() for s in sources.split(",") if s.strip()]
        unknown = [n for n in names if n not in SOURCE_NAMES]
        if unknown or not names:  # before any progress line is drawn
            known = ", ".join(SOURCE_NAMES)
            raise typer.BadParameter(f"unknown source(s) {', '.join(unknown)}; known: {known}", param_hint="--sources")
        chosen = make_rewriter(rewriter, llm_model, llm_base_url, llm_settings)
        try:
            chosen_types = static_types(types)
        except KeyError as exc:
            raise typer.BadParameter(str(exc.args[0]), param_hint="--types") from None
        counter = _token_counter(tokenizer) if tokenizer is not None else None
        t0 = time.perf_counter()
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=console, transient=True,  # an error ends in its message alone, not under a stale bar
        ) as progress:  # fmt: skip
            task = progress.add_task("perturbing", total=None)

            def tick(_: str, done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            try:
                with model_errors():
                    manifest = build_benchmark(
                        names,
                        data_dir,
                        seed,
                        out,
                        per_source=_per_source(per_source),
                        rewriter=chosen,
                        on_progress=tick,
                        types=chosen_types,
                        tokenizer=counter,
                        composition=composition,
                    )
            finally:
                close(chosen)
        print_build(manifest, names, out, time.perf_counter() - t0)


def build_from_release(release: str, out: Path) -> None:
    """``build --release DIR|hf``: the release's records into ``out``, with the counts beside the paper's."""
    from robustcall.core import cache_dir
    from robustcall.perturb import build_release
    from robustcall.sources import download_release, load_release

    t0 = time.perf_counter()
    root = download_release(cache_dir() / "release") if release == "hf" else Path(release)
    data = load_release(root)
    manifest = build_release(data, out)
    info = manifest["release"]
    skipped = "; ".join(f"{why}: {n}" for why, n in info["skipped"].items())
    console.print(
        f"release {info['name']} (commit {info['commit'] or 'unknown'}, layout {info['layout']}): "
        f"{sum(manifest['counts'].values())} records in {len(info['files'])} files"
        + (f"; skipped {skipped}" if skipped else ""),
        soft_wrap=True,
    )
    print_build(manifest, manifest["sources"], out, time.perf_counter() - t0)
    if info["like_for_like"]:
        console.print("the paper's own records: runs of this build are like for like with the paper's Table 2")
    else:
        console.print("not the paper's 17 files in full: runs of this build are not like for like with its Table 2")


CompositionOpt = Annotated[
    str,
    typer.Option(
        "--composition",
        help="paper (default): Table 3's clean slice and Tables 7-14's records per type (3,721 with the five "
        "sources); all: every type on every sample it applies to.",
    ),
]


def print_build(manifest: dict[str, Any], names: list[str], out: Path, seconds: float) -> None:
    """Records per type and source, ours beside the paper's (Tables 7-14), then Table 3's columns."""
    table = Table(title=f"{out} ({seconds:.1f} s, composition {manifest.get('composition_mode')})")
    table.add_column("type")
    for name in names:
        table.add_column(name, justify="right")
    table.add_column("total", justify="right")
    table.add_column("paper", justify="right")
    order = {code: i for i, code in enumerate(("clean", *STATIC_TYPES, *BEYOND_TYPES))}
    counts_by_source = manifest["counts_by_source"]
    type_counts = manifest.get("type_counts", {})
    lines = [(c, counts_by_source[c]) for c in sorted(counts_by_source, key=lambda c: order.get(c, len(order)))]
    lines += [(c, counts_by_source.get("clean", {})) for c in TRANSITION_TYPES]  # a run applies them to every sample
    for code, by_source in lines:
        paper = type_counts.get(code, {}).get("paper")
        table.add_row(
            type_info(code).display + ("*" if code in TRANSITION_TYPES else ""),
            *(str(by_source.get(n, 0)) for n in names),
            str(sum(by_source.values())),
            "" if paper is None else str(paper),
        )
    table.caption = "* applied at run time to every clean sample"
    Console().print(table)
    for what, n in manifest.get("composition_shortfall", {}).items():
        console.print(f"[yellow]warning[/]: {what}: {n} records short of the paper composition's target")
    built = [c for c in STATIC_TYPES if c in manifest.get("types", ())]
    if len(built) < len(STATIC_TYPES):  # Table 3 counts the 16 static types (and the 6 transition ones)
        console.print(f"Table 3 comparison left out: the build holds {len(built)} of the paper's 16 static types.")
        return
    comp = Table(title="Table 3 composition (records with the 6 transition types; paper in brackets)")
    for col in ("source", "clean", "avg./type", "total", "avg. tools"):
        comp.add_column(col, justify="left" if col == "source" else "right")
    tools = manifest.get("avg_tools", {})
    for name, row in manifest["composition"].items():
        paper = {**(row.get("paper") or {}), "tools": tools.get(name, {}).get("paper")}
        row = {**row, "tools": tools.get(name, {}).get("ours", "")}

        def cell(key: str, row: dict[str, object] = row, paper: dict[str, object] = paper) -> str:
            return f"{row[key]} ({paper[key]})" if paper.get(key) is not None else str(row[key])

        comp.add_row(name, cell("clean"), cell("avg_per_type"), cell("total"), cell("tools"))
    rows = list(manifest["composition"].values())
    ours, theirs = sum(r["total"] for r in rows), sum(r["paper"]["total"] for r in rows if "paper" in r)
    comp.add_row("all", str(sum(r["clean"] for r in rows)), "", f"{ours} ({theirs})", "")
    Console().print(comp)


def register_audit(app: typer.Typer) -> None:
    @app.command("audit")
    def audit_cmd(
        bench: Annotated[Path, typer.Argument(help="A benchmark directory written by `robustcall build`.")],
        judge_model: Annotated[
            str | None,
            typer.Option(
                "--judge-model",
                "--model",
                help="Judge model spec (openai:<model>@<url>, local), or a name with --judge-base-url.",
            ),
        ] = None,
        judge_base_url: Annotated[
            str | None,
            typer.Option("--judge-base-url", "--base-url", help="OpenAI-compatible base URL for a bare judge name."),
        ] = None,
        judge_settings: Annotated[
            Path | None,
            typer.Option(
                "--judge-settings",
                help="Settings file of the judge model; temperature: null sends none (the paper's judge ran at "
                "its default sampling).",
            ),
        ] = None,
        n: Annotated[int, typer.Option("--n", min=1, help="Pairs judged per type.")] = DEFAULTS.audit_pairs,
        seed: SeedOpt = 0,
        json_out: Annotated[Path | None, typer.Option("--json", help="Also write the report as JSON.")] = None,
    ) -> None:
        """Check generated perturbations automatically and, with a judge, score them 1-5 (Appendix H)."""
        import json

        from robustcall.models import SettingsError, TextModel
        from robustcall.perturb import audit, model_specs
        from robustcall.run import bench_digest

        bench_digest(bench)  # a finished build, not any folder
        client = None
        if judge_model:
            try:
                client = TextModel(model_specs([judge_model], judge_base_url)[0], settings_file=judge_settings)
            except (ValueError, SettingsError) as exc:
                raise typer.BadParameter(str(exc)) from None
        try:
            with model_errors():
                report = audit(bench, judge=client.complete if client else None, n=n, seed=seed)
        finally:
            if client is not None:
                client.close()
        table = Table(title=f"audit of {bench}")
        for col in ("type", "samples", "check failures", "n", "unparseable", "mean", "median", "std", "≤2"):
            table.add_column(col, justify="left" if col == "type" else "right")

        def fmt(v: object) -> str:
            return "—" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)

        for row in report.values():
            table.add_row(
                row["display"], str(row["samples"]), str(len(row["check_failures"])),
                *(fmt(row.get(k)) for k in ("n", "unparseable", "mean", "median", "std", "frac_le_2")),
            )  # fmt: skip
        Console().print(table)
        if json_out is not None:
            json_out.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
