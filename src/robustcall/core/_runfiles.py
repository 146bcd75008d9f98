"""The run-directory schema: the file names every run and build writes, spelled once, and the typed,
versioned records of their metadata files.

A single-turn run directory holds ``run.json`` (:class:`RunMeta`), ``predictions.jsonl`` (one
``PredictionRecord`` a line, the checkpoint stream), and once scored ``scores.jsonl`` (one
``Verdict`` a line) and ``summary.json`` (``metrics.Summary``). A fault-injection or PIPE run holds
``run.json`` (:class:`TrajectoryRunMeta`) and ``trajectories.jsonl`` (one ``Trajectory`` a line). A
built benchmark holds ``clean.jsonl``, one ``<type>.jsonl`` per perturbation type (``Sample`` lines)
and ``manifest.json`` (:class:`BenchManifest`), written last.

Every metadata record carries ``format_version`` (the layout of the directory, :data:`FORMAT_VERSION`),
``robustcall_version`` (the release that wrote it) and ``scorer_version`` (:data:`SCORER_VERSION`, the
verdict rules of that release). Readers refuse a newer format with a one-line message and read older
ones; a file with no ``format_version`` (written before it existed) is format 0 and is read leniently:
a field whose value does not fit is dropped instead of refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from robustcall import __version__
from robustcall.core._errors import InputError, MissingInputError
from robustcall.core._jsonl import atomic_write_text, read_checkpoint
from robustcall.core._model import Sample, Trajectory

ROBUSTCALL_VERSION: str = __version__
"""The release of robustcall running now (written into every metadata file)."""

RUN_META = "run.json"
"""What a run was asked (model, mode, settings, bench, types, ...): :class:`RunMeta` or :class:`TrajectoryRunMeta`."""
PREDICTIONS = "predictions.jsonl"
"""A single-turn run's append-only checkpoint stream: one ``PredictionRecord`` a line."""
SCORES = "scores.jsonl"
"""What ``robustcall score`` writes: one ``Verdict`` a line, sorted by (type, id)."""
SUMMARY = "summary.json"
"""What ``robustcall score`` writes beside the verdicts: ``metrics.Summary``."""
TRAJECTORIES = "trajectories.jsonl"
"""A fault-injection or PIPE run's append-only checkpoint stream: one ``Trajectory`` a line."""
MANIFEST = "manifest.json"
"""What ``robustcall build`` writes last into a benchmark folder: :class:`BenchManifest`."""
CLEAN_SAMPLES = "clean.jsonl"
"""A built benchmark's clean samples; each static type's samples are in :func:`type_file`."""

FORMAT_VERSION = 2
"""The run-directory format this robustcall writes and the newest it reads. Bump it when a file's
layout changes so that an older reader would misread or refuse it (a renamed or re-typed field, a new
file that must be read, a new field in the records, which refuse unknown keys); adding an optional
field to a metadata record does not need a bump.

2 (issues 43 and 45): a prediction's ``raw_output`` / ``pass1_raw_output`` longer than the parser reads
is kept cut to its first ``MAX_PARSE_CHARS`` characters, with ``raw_output_cut`` (its whole length and
sha256) beside it: a reader that ignored that field would take the cut text for the answer; prediction
records and episode steps carry the server's ``usage`` (token counts), records of a K-trial run their
``trial``; ``run.json`` and ``manifest.json`` may carry ``release`` (the authors' released benchmark a
build was read from). Files of format 1 read as before (no ``usage``).
1: ``format_version`` and the versions written into every metadata file."""

SCORER_VERSION = 1
"""The verdict rules of this robustcall (``score``): bump it whenever a change to a scorer, a
parser or the error modes can change a verdict, so that runs scored by different rules are told
apart."""


def type_file(code: str) -> str:
    """The file of a built benchmark that holds the samples of perturbation type ``code``."""
    return CLEAN_SAMPLES if code == "clean" else f"{code}.jsonl"


def record_key(sample: Sample) -> tuple[str, str]:
    """What identifies a record in a run: (sample id, perturbation type)."""
    return (sample.id, sample.perturbation.type)


def trial_key(record: Sample) -> tuple[str, str, int]:
    """What identifies one answer in a run of several trials: (sample id, type, trial); a record
    without a ``trial`` (a one-trial run) is trial 0."""
    trial = getattr(record, "trial", None)
    return (record.id, record.perturbation.type, 0 if trial is None else int(trial))


class NewerFormatError(InputError):
    """A file written by a newer robustcall, in a run format this one cannot read."""


class RunFileError(InputError):
    """A metadata file that cannot be read as its record."""


class VersionedMeta(BaseModel):
    """What every metadata record carries. Unknown keys are kept (``extra="allow"``), so that a
    file with a field added later (no format bump) reads and writes back unchanged."""

    model_config = ConfigDict(extra="allow")

    FILE: ClassVar[str] = RUN_META
    """The file name this record lives in."""
    ALWAYS: ClassVar[frozenset[str]] = frozenset()
    """Fields written even when the writer left them at their defaults."""

    format_version: int = FORMAT_VERSION
    """The run-directory format of the file (0: written before formats were numbered)."""
    robustcall_version: str | None = ROBUSTCALL_VERSION
    """The robustcall release that wrote the file."""
    scorer_version: int | None = SCORER_VERSION
    """The verdict rules of that release (:data:`SCORER_VERSION`)."""

    def dump_json(self) -> str:
        """The file's text: the fields that were set (as a writer gives them, or as read), stamped
        with this robustcall's versions; keys sorted, two-space indent, a final newline."""
        data = self.model_dump(mode="json", exclude_unset=True)
        data.update(self.model_dump(mode="json", include=set(self.ALWAYS)))
        data.update(format_version=FORMAT_VERSION, robustcall_version=ROBUSTCALL_VERSION, scorer_version=SCORER_VERSION)
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    def write(self, directory: Path) -> Path:
        """Write the record atomically into ``directory`` (made if missing); return the file."""
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / self.FILE
        atomic_write_text(path, self.dump_json())
        return path

    def given(self, name: str) -> bool:
        """Whether the file (or the writer) gave field ``name`` (rather than it taking its default)."""
        return name in self.model_fields_set or name in (self.model_extra or {})


class MergedShard(BaseModel):
    """One shard a merged run was joined from."""

    model_config = ConfigDict(extra="allow")

    dir: str
    shard: str
    base_url: str | None = None
    records: int


class RunMeta(VersionedMeta):
    """``run.json`` of a single-turn run (``robustcall run``/``bench``, ``merge``, the BFCL import).

    Every field is optional: files of older releases hold fewer. A resume must agree on
    ``model_name``, ``mode``, ``answer_settings``, ``bench_digest`` and ``shard`` (those present)."""

    bench: str | None = None
    """The benchmark folder answered (absolute path; ``None`` for imported results)."""
    bench_digest: str | None = None
    """sha256 of the benchmark's ``manifest.json``: which build was answered."""
    model: str | None = None
    """The model spec as given (``local``, ``openai/<name>``, ``scripted:<policy>``, ...)."""
    model_name: str | None = None
    """The model's name without its endpoint (an ``openai:NAME@URL`` spec gives ``NAME``)."""
    base_url: str | None = None
    """``--base-url`` as given (a comma list for replicas)."""
    endpoint: str | None = None
    """The endpoint the spec resolved to (openai specs only)."""
    mode: Literal["fc", "prompt"] | None = None
    """The resolved request mode: ``fc`` (tools via ``tools=``) or ``prompt`` (tools in the prompt)."""
    answer_settings: dict[str, Any] | None = None
    """The decoding settings that decide the answers (temperature, max_tokens, extra_body);
    ``None`` for scripted and replay models."""
    model_settings: dict[str, Any] | None = None
    """Every ``ModelSettings`` field the backend ran with (mode, decoding, timeouts, retries,
    tool_choice, ...); ``None`` for scripted and replay models, which have none."""
    types: str | None = None
    """``--types`` as given."""
    limit: int | None = None
    max_tokens: str | None = None
    """``--max-tokens``: ``settings`` or ``gold``."""
    order: str | None = None
    """``--order`` the requests were asked in (``prefix``, ``sample``, ``type``): on the local model
    it decides what the prompt cache holds, which can move a near tie of the greedy choice."""
    settings_digest: str | None = None
    """sha256 of the ``--settings`` file (the package's ``paper_models.yaml`` for ``paper``); ``None``: none."""
    settings_entry: str | None = None
    """The settings entry the model ran with: ``paper:<Model>`` (the paper's Table 15 row) or
    ``<file>:<key>[+<key>]`` (a settings file's ``default`` / model entries); ``None``: the defaults."""
    shard: str | None = None
    """``i/n`` for a shard run, else ``None``."""
    trials: int | None = None
    """``--trials K``: every record asked K times, trial t with its own request seed (``trial_seed``);
    ``None``: one trial, the paper's protocol (no seed sent)."""
    trial_seed: int | None = None
    """The seed the per-trial request seeds derive from (``--seed``), when ``trials`` > 1."""
    endpoint_history: list[str] | None = None
    """Every endpoint the run was answered from, oldest first (resumes may change it)."""
    endpoints: list[dict[str, Any]] | None = None
    """Per-endpoint request counts of the last invocation, with replicas only."""
    merged_from: list[MergedShard] | None = None
    """A merged run: the shards it was joined from."""
    imported_from: str | None = None
    """An imported run: the folder its records came from."""
    format: str | None = None
    """An imported run: the kind of files it came from (``bfcl-results``)."""
    release: dict[str, Any] | None = None
    """A run of a benchmark read from the authors' release (``build --release``): the manifest's
    ``release`` (name, commit, file sha256s, ``like_for_like``, ``records``); ``None``: our own build."""


class BenchManifest(VersionedMeta):
    """``manifest.json`` of a benchmark built by ``robustcall build`` (written last: a folder
    without it is not a finished build)."""

    FILE: ClassVar[str] = MANIFEST

    seed: int | None = None
    sources: list[str] = Field(default_factory=list)
    per_source: dict[str, int | None] = Field(default_factory=dict)
    """Clean samples asked of each source (``None``: all of them)."""
    rewriter: dict[str, Any] = Field(default_factory=dict)
    """The rewriter's settings (offline, or the LLM rewriter's model and prompts)."""
    tokenizer: str | None = None
    """The tokenizer Appendix N's length types counted with (only when they were built)."""
    types: list[str] = Field(default_factory=list)
    """``clean`` and every type built."""
    counts: dict[str, int] = Field(default_factory=dict)
    """Samples per file stem (``clean``, ``<type>``)."""
    counts_by_source: dict[str, dict[str, int]] = Field(default_factory=dict)
    not_applicable: dict[str, int] = Field(default_factory=dict)
    """Type -> clean samples it does not apply to (before a ``paper`` composition keeps some)."""
    not_applicable_samples: dict[str, dict[str, list[str]]] = Field(default_factory=dict)
    """Type -> reason -> the clean ids it does not apply to, and why."""
    composition_mode: str | None = None
    """``paper`` (Tables 3 and 7-14's counts) or ``all`` (every type on every sample it applies to)."""
    composition: dict[str, Any] = Field(default_factory=dict)
    """Table 3's columns per source, beside the paper's row."""
    type_counts: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Type -> records built (``ours``) and the paper's (``paper``, Tables 7-14)."""
    avg_tools: dict[str, dict[str, float]] = Field(default_factory=dict)
    """Source -> mean candidate tools per clean sample (``ours``) and Table 3's (``paper``)."""
    composition_shortfall: dict[str, int] = Field(default_factory=dict)
    """Type or source -> records short of the ``paper`` composition's target (empty: none)."""
    source_versions: dict[str, dict[str, str]] = Field(default_factory=dict)
    source_skipped: dict[str, dict[str, int]] = Field(default_factory=dict)
    guard: dict[str, Any] = Field(default_factory=dict)
    sha256: dict[str, str] = Field(default_factory=dict)
    """sha256 of every JSONL file of the build, by file name."""
    release: dict[str, Any] | None = None
    """``build --release``: the release read (``name``, ``commit``, ``layout``, ``files`` with their
    sha256, ``skipped``, ``like_for_like``: the paper's own 17 files, ``records``: a full run's records
    with the 6 transition types); ``None``: built from the sources by our harness."""


class TrajectoryRunMeta(VersionedMeta):
    """``run.json`` of a multi-turn run: fault injection (``robustcall faults run``) or PIPE
    (``robustcall pipe run``)."""

    ALWAYS: ClassVar[frozenset[str]] = frozenset({"kind"})

    kind: Literal["faults", "pipe"] = "faults"
    """Which driver wrote the run (files written before the field existed are fault runs)."""
    env: str
    """The environment: a registered name or ``package.module:Class``."""
    data: str | None = None
    """The environment's data folder, when one was given."""
    model: str
    """The model spec as given."""
    mode: Literal["fc", "prompt"] | None = None
    """The resolved request mode."""
    model_settings: dict[str, Any] | None = None
    """Every ``ModelSettings`` field the backend ran with; ``None`` for scripted models."""
    format: str = "tool_call"
    """The output format of the agent's actions."""
    max_steps: int
    seeds: list[int] = Field(default_factory=list)
    tasks: list[str] = Field(default_factory=list)
    limit: int | None = None
    # fault runs
    deltas: list[float] = Field(default_factory=list)
    """Fault runs: the δ values swept."""
    axes: list[str] = Field(default_factory=list)
    """Fault runs: the environment axes applied (Appendix N), if any."""
    profile: dict[str, Any] | None = None
    """Fault runs: the full ``FaultProfile`` (by alias)."""
    prompt: str | None = None
    """Fault runs: the prompt variant."""
    # PIPE runs
    level: str | None = None
    """PIPE runs: the interface level (``synonym``, ``symbol``, ``strict``, ``dual``, ...)."""
    order: int | None = None
    """PIPE dual mode: which name family is listed first."""
    seed: int | None = None


Meta = TypeVar("Meta", bound=VersionedMeta)


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "<record>"
    return f"field {where}: {first['msg']}"


def parse_meta(data: object, record: type[Meta], where: str | Path) -> Meta:
    """``data`` (a metadata file's parsed JSON) as ``record``.

    Raises ``NewerFormatError`` for a format newer than :data:`FORMAT_VERSION`, ``RunFileError``
    for content that does not fit (format 0 files drop the fields that do not fit instead)."""
    if not isinstance(data, dict):
        raise RunFileError(f"{where}: expected a JSON object, got {type(data).__name__}")
    version = data.get("format_version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise RunFileError(f"{where}: format_version must be a whole number >= 0, got {version!r}")
    if version > FORMAT_VERSION:
        by = data.get("robustcall_version")
        raise NewerFormatError(
            f"{where}: written by robustcall {by if isinstance(by, str) else '(unknown)'} with run format {version}; "
            f"this robustcall ({ROBUSTCALL_VERSION}) reads up to {FORMAT_VERSION}: upgrade"
        )
    fields: dict[str, Any] = {"format_version": 0, "robustcall_version": None, "scorer_version": None, **data}
    while True:
        try:
            return record.model_validate(fields)
        except ValidationError as exc:
            if version > 0:
                raise RunFileError(f"{where}: {_first_error(exc)}") from None
            # format 0: read leniently, dropping top-level fields whose values do not fit
            bad = {str(e["loc"][0]) for e in exc.errors() if e["loc"] and str(e["loc"][0]) in fields}
            bad -= {name for name, f in record.model_fields.items() if f.is_required()}
            if not bad:
                raise RunFileError(f"{where}: {_first_error(exc)}") from None
            fields = {k: v for k, v in fields.items() if k not in bad}


def read_meta(path: Path, record: type[Meta]) -> Meta:
    """Read ``path`` (the file, or a directory holding ``record.FILE``) as ``record``; a missing
    file raises ``MissingInputError``, one that is not JSON or does not fit ``RunFileError``, a
    newer format ``NewerFormatError``."""
    file = path / record.FILE if path.is_dir() else path
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MissingInputError(f"{file} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RunFileError(f"{file}: unreadable ({exc})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise RunFileError(f"{file}: not JSON ({exc})") from None
    return parse_meta(data, record, file)


def read_run_meta(path: Path) -> RunMeta:
    """A single-turn run's ``run.json`` (``path``: the file or the run directory)."""
    return read_meta(path, RunMeta)


def read_bench_manifest(path: Path) -> BenchManifest:
    """A built benchmark's ``manifest.json`` (``path``: the file or the benchmark directory)."""
    return read_meta(path, BenchManifest)


def read_trajectory_run_meta(path: Path) -> TrajectoryRunMeta:
    """A fault-injection or PIPE run's ``run.json`` (``path``: the file or the run directory)."""
    return read_meta(path, TrajectoryRunMeta)


def read_trajectories(run_dir: Path, *, what: str = "an episode run") -> list[Trajectory]:
    """The newest record of every episode of a run, sorted by id (a file written before resume
    compacted it may hold an infra failure and its re-run)."""
    path = run_dir / TRAJECTORIES
    if not path.is_file():
        raise MissingInputError(f"{path} not found: not {what} directory")
    latest: dict[str, Trajectory] = {}
    for t in read_checkpoint(path, Trajectory):
        latest[t.id] = t
    return sorted(latest.values(), key=lambda t: t.id)
