"""``robustcall export``: a run or a benchmark in the ecosystem's formats (Inspect AI, Hugging Face, BFCL)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from robustcall.core import PredictionRecord


def _say(line: str) -> None:
    """One line of the command's report, on stderr, as written (no terminal markup or wrapping)."""
    typer.echo(line, err=True)


export_app = typer.Typer(
    name="export",
    help="Write a run or a benchmark for other tools: an Inspect AI log, a Hugging Face dataset, BFCL result files.",
    no_args_is_help=True,
)


@export_app.command("inspect")
def inspect_cmd(
    run_dir: Annotated[Path, typer.Argument(help="A run directory (predictions.jsonl; scores.jsonl if scored).")],
    out: Annotated[Path, typer.Option("--out", help="The Inspect log to write (.eval, or .json).")],
) -> None:
    """An Inspect AI eval log of a run: one sample per record, with our score and error mode (`inspect view`)."""
    from robustcall.interop import export_inspect  # the `inspect` extra: the CLI names it when missing

    try:
        log = export_inspect(run_dir, out)
    except FileNotFoundError as exc:
        raise typer.BadParameter(str(exc)) from None
    results = log.results
    acc = results.scores[0].metrics["accuracy"].value if results and results.scores else 0.0
    _say(f"{out}: {len(log.samples or [])} samples, accuracy {acc:.3f}; browse with `inspect view`")


@export_app.command("hf")
def hf_cmd(
    bench: Annotated[Path, typer.Argument(help="A benchmark directory written by `robustcall build`.")],
    out: Annotated[Path, typer.Option("--out", help="The dataset folder (data/<type>.parquet + README.md).")],
    name: Annotated[
        str | None, typer.Option("--name", help="Dataset name in the card (default: BENCH's name).")
    ] = None,
) -> None:
    """A Hugging Face dataset: a config per perturbation type (and `all`), one set of features, a dataset card."""
    from robustcall.interop import export_hf  # the `hf` extra: the CLI names it when missing

    try:
        rows = export_hf(bench, out, name)
    except FileNotFoundError as exc:
        raise typer.BadParameter(str(exc)) from None
    _say(f"{out}: {sum(rows.values())} rows in {len(rows)} configs (+ `all`); `datasets.load_dataset('{out}')`")


@export_app.command("bfcl")
def bfcl_cmd(
    run_dir: Annotated[Path, typer.Argument(help="A run directory with BFCL records.")],
    out: Annotated[Path, typer.Option("--out", help="BFCL's result folder (OUT/<model-dir>/<group>/...).")],
    model_dir: Annotated[
        str | None,
        typer.Option(
            "--model-dir",
            help="A model of BFCL's list, the folder name `bfcl evaluate --model` reads "
            "(default: gpt-4o-2024-11-20-FC for an fc run, gpt-4o-2024-11-20 for a prompt run).",
        ),
    ] = None,
) -> None:
    """The run's clean BFCL answers as `bfcl generate` result files (BFCL_v4_<category>_result.json)."""
    from robustcall.interop import BfclFileError, bfcl_model_dir, export_bfcl_results

    try:
        folder = bfcl_model_dir(run_dir, model_dir)
        written = export_bfcl_results(run_dir, out, model_dir=folder)
    except BfclFileError as exc:
        raise typer.BadParameter(str(exc)) from None
    _say(f"{out / folder}: {sum(written.values())} results in {len(written)} files")
    _say(f"then: bfcl evaluate --model {folder} (BFCL reads the folder name as its model's name)")


@export_app.command("bfcl-scores")
def bfcl_scores_cmd(
    run_dir: Annotated[Path, typer.Argument(help="A scored run directory with BFCL records (`robustcall score`).")],
    out: Annotated[Path, typer.Option("--out", help="BFCL's score folder (OUT/<model-dir>/<group>/..., OUT/*.csv).")],
    model_dir: Annotated[
        str | None,
        typer.Option("--model-dir", help="The model folder name (default: as `export bfcl` names it)."),
    ] = None,
) -> None:
    """The run's BFCL verdicts as `bfcl evaluate` writes them: BFCL_v4_<category>_score.json per category
    (accuracy, correct and total counts, then each wrong entry with its error_type) and the data_*.csv
    tables, to diff against BFCL's own score folder."""
    from robustcall.interop import BfclFileError, export_bfcl_scores

    try:
        counts = export_bfcl_scores(run_dir, out, model_dir=model_dir)
    except BfclFileError as exc:
        raise typer.BadParameter(str(exc)) from None
    for category, (correct, total) in counts.items():
        _say(f"{category}: {correct}/{total} = {correct / total:.2%}")
    _say(f"{out}: {len(counts)} score files and the data_*.csv tables")


import_app = typer.Typer(
    name="import", help="Turn other tools' files into robustcall runs (BFCL result files).", no_args_is_help=True
)


@import_app.command("bfcl")
def import_bfcl_cmd(
    results: Annotated[
        Path,
        typer.Argument(help="A `bfcl generate` result folder (searched for BFCL_v4_*_result.json, or v3's)."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="The run directory to write; then `robustcall score OUT`. Without it, --bfcl-out only: "
            "scored as `bfcl evaluate` scores, no run written.",
        ),
    ] = None,
    model: Annotated[str, typer.Option("--model", help="Model name recorded in the run.")] = "bfcl-results",
    categories: Annotated[
        str | None,
        typer.Option(
            "--categories",
            help="Comma list of BFCL categories to import (default: every one robustcall scores: "
            "simple_python, multiple, parallel, parallel_multiple, irrelevance and their live_ ones, "
            "live_relevance, simple_java, simple_javascript, the four multi_turn_ ones, memory_kv, memory_vector, "
            "memory_rec_sum, web_search_base, web_search_no_snippet, format_sensitivity).",
        ),
    ] = None,
    bfcl_out: Annotated[
        Path | None,
        typer.Option(
            "--bfcl-out",
            help="Write BFCL's score files and data_*.csv tables here, as `bfcl evaluate` does. With --out, "
            "from the run scored in the same process (what `score OUT --bootstrap 0` then `export bfcl-scores "
            "OUT --out DIR` write); alone, `bfcl evaluate`'s job with no run kept, one forked part per core.",
        ),
    ] = None,
) -> None:
    """BFCL result files (v3 or v4) as a robustcall run of clean BFCL samples, scored by `robustcall score`
    with BFCL's verdicts. Files of categories robustcall does not score (v3's exec_*, sql, chatable) and
    memory prerequisite files are skipped with a line each. With --bfcl-out, scored at once and written
    as `bfcl evaluate` writes its score folder; with --bfcl-out alone, no run is kept."""
    import gc

    # a batch of acyclic records (a whole result folder, held until written): the cyclic collector's
    # passes over them cost a third of the command's time and free nothing
    collecting = gc.isenabled()
    gc.disable()
    try:
        _import_bfcl(results, out, model, categories, bfcl_out)
    finally:
        if collecting:
            gc.enable()


def _import_bfcl(results: Path, out: Path | None, model: str, categories: str | None, bfcl_out: Path | None) -> None:
    from robustcall.interop import BfclFileError, choose_bfcl_categories, import_bfcl_results
    from robustcall.sources import SourceError

    if out is None and bfcl_out is None:
        raise typer.BadParameter("give --out (a run to write), --bfcl-out (BFCL's score folder) or both")
    chosen = None
    if categories is not None:
        try:
            chosen = choose_bfcl_categories(c.strip() for c in categories.split(",") if c.strip())
        except BfclFileError as exc:
            raise typer.BadParameter(str(exc), param_hint="--categories") from None
    if out is None:
        assert bfcl_out is not None
        _evaluate_bfcl(results, bfcl_out, chosen)
        return
    try:
        done = import_bfcl_results(results, out, model=model, categories=chosen)
    except (BfclFileError, SourceError) as exc:
        raise typer.BadParameter(str(exc)) from None
    _said_read(done.version, done.skipped)
    errors = f" ({done.format_errors} answers BFCL cannot decode, scored as no call)" if done.format_errors else ""
    if bfcl_out is None:
        _say(f"{out}: {done.records} records imported{errors}; score them with `robustcall score {out}`")
        return
    _say(f"{out}: {done.records} records imported{errors}")
    _score_to_bfcl(out, bfcl_out, done.written, done.model_dir)


def _evaluate_bfcl(results: Path, bfcl_out: Path, chosen: frozenset[str] | None) -> None:
    """``bfcl evaluate``'s job: score the folder and write BFCL's score folder, keeping no run."""
    from robustcall.cli._errors import CommandError, skip_teardown
    from robustcall.interop import BfclFileError, evaluate_bfcl_folder
    from robustcall.score import GoldenModeError
    from robustcall.sources import SourceError

    try:
        done = evaluate_bfcl_folder(results, bfcl_out, categories=chosen)
    except (BfclFileError, SourceError) as exc:
        raise typer.BadParameter(str(exc)) from None
    except GoldenModeError as exc:  # as `score` says it: a record this scorer cannot judge, no traceback
        raise CommandError(str(exc)) from None
    _said_read(done.version, done.skipped)
    errors = f" ({done.format_errors} answers BFCL cannot decode, scored as no call)" if done.format_errors else ""
    _say(f"{done.records} records scored{errors}")
    _said_counts(bfcl_out, done.counts)
    skip_teardown()  # every file is written and closed; the parts' children are gone


def _said_read(version: str, skipped: Sequence[str]) -> None:
    mapped = " (ids mapped to today's: simple_N as simple_python_N, ...)" if version == "v3" else ""
    _say(f"read BFCL {version} result files{mapped}")
    for line in skipped:
        _say(line)


def _said_counts(bfcl_out: Path, counts: dict[str, tuple[int, int]]) -> None:
    for category, (correct, total) in counts.items():
        _say(f"{category}: {correct}/{total} = {correct / total:.2%}")
    _say(f"{bfcl_out}: {len(counts)} score files and the data_*.csv tables")


def _score_to_bfcl(run_dir: Path, bfcl_out: Path, records: Sequence[PredictionRecord], model_dir: str) -> None:
    """Score the just-imported records, write the run's scores and BFCL's score folder under the
    results' model name, without reading anything back."""
    from robustcall.cli._errors import CommandError
    from robustcall.core import SCORES, SUMMARY
    from robustcall.interop import BfclFileError, write_bfcl_scores
    from robustcall.score import GoldenModeError, score_run

    try:
        verdicts, _ = score_run(run_dir, resamples=0, records=records)
    except GoldenModeError as exc:  # as `score` says it: a record this scorer cannot judge, no traceback
        raise CommandError(str(exc)) from None
    _say(f"scores: {run_dir / SCORES}  summary: {run_dir / SUMMARY}")
    try:
        counts = write_bfcl_scores(bfcl_out, model_dir, records, verdicts)
    except BfclFileError as exc:
        raise typer.BadParameter(str(exc)) from None
    _said_counts(bfcl_out, counts)


def register(app: typer.Typer) -> None:
    app.add_typer(export_app)
    app.add_typer(import_app)
