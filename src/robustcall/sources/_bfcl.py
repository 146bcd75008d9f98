"""BFCL v3 single-turn, read straight out of the ``bfcl-eval`` wheel on PyPI.

The wheel is fetched with ``pip download --no-deps`` into the robustcall cache and never installed
(its dependency set is large and partly broken). Data lives in the wheel as JSON-lines files
``bfcl_eval/data/BFCL_v4_<file>.json`` and ``bfcl_eval/data/possible_answer/BFCL_v4_<file>.json``;
the single-turn categories are BFCL v3's.

Decisions (where the paper or the data left a choice):

- Categories: ``simple`` (the wheel's ``simple_python``), ``multiple``, ``parallel``,
  ``parallel_multiple``, ``live_simple``, ``live_multiple``, ``live_parallel``,
  ``live_parallel_multiple``, ``irrelevance``, ``live_irrelevance``. ``simple_java`` and
  ``simple_javascript`` are not loaded: their arguments are Java / JavaScript source strings that the
  Python-AST output format (``[f(a=1)]``, Table 3) and its scorer do not speak. ``live_relevance``
  (any call counts, no gold) is not a v3 category and is not loaded either.
- Ids follow the paper: ``bfcl_v3__BFCL_v3_<category>__<original id>``; the original id is the
  wheel's, verbatim (so ``simple`` ids read ``..._simple__simple_python_12``, as in this wheel).
- ``golden_answers``: one ``GoldenAnswer`` per ground-truth call. ``acceptable`` is BFCL's
  possible-answer dict verbatim (per parameter a list of acceptable values; ``""`` = may be
  omitted). ``parameters`` holds one canonical call: per parameter the first acceptable value that
  is not ``""``, applied recursively inside nested dicts (BFCL nests acceptable lists there too); a
  parameter with no such value (``[""]``, or the ``[]`` a few live entries carry) is left out.
- Irrelevance categories: ``golden_answers = []`` (the correct answer is no call).
- A question with more than one turn would be skipped as ``multi-turn`` (none of these categories
  has one in 2026.3.23); a relevance question without a possible answer is skipped as
  ``no gold call``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import subprocess
import sys
import zipfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from robustcall.core import (
    EvalConfig,
    GoldenAnswer,
    Message,
    Sample,
    SourceInfo,
    ToolSpec,
    atomic_write_text,
    cache_dir,
    derived_cache_dir,
    file_sha256,
    json_value,
    jsonl_lines,
    kept_or_built,
)
from robustcall.sources._common import Skips
from robustcall.sources._types import LoadResult, SourceError, SourceFormatError

BFCL_PACKAGE = "bfcl-eval"
BFCL_VERSION = "2026.3.23"
BENCHMARK = "bfcl_v3"

BFCL_CATEGORIES: dict[str, str] = {
    "simple": "simple_python",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel_multiple",
    "live_simple": "live_simple",
    "live_multiple": "live_multiple",
    "live_parallel": "live_parallel",
    "live_parallel_multiple": "live_parallel_multiple",
    "irrelevance": "irrelevance",
    "live_irrelevance": "live_irrelevance",
}
"""BFCL v3 category -> the file stem in the wheel (``BFCL_v4_<stem>.json``), in load order."""

IRRELEVANCE_CATEGORIES = frozenset({"irrelevance", "live_irrelevance"})
RELEVANCE_CATEGORY = "live_relevance"
"""BFCL's relevance category: no gold call; right when the answer makes at least one call."""
LANGUAGE_CATEGORIES = ("simple_java", "simple_javascript")
"""BFCL's Java and JavaScript categories: arguments are source text, converted by BFCL's type rules."""
EXTRA_CATEGORIES = (RELEVANCE_CATEGORY, *LANGUAGE_CATEGORIES)
"""Single-turn categories beyond ``BFCL_CATEGORIES`` (not v3 categories of the paper, not in ``load_bfcl``):
``load_bfcl_extra`` reads them for ``robustcall import bfcl``."""
_DATA = "bfcl_eval/data"


def fetch_bfcl(quiet: bool = False) -> Path:
    """Path of the cached ``bfcl-eval==2026.3.23`` wheel, downloading it (no deps) if needed."""
    dest = cache_dir("wheels")
    found = _cached_wheel(dest)
    if found is not None:
        return found
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", f"{BFCL_PACKAGE}=={BFCL_VERSION}", "-d", str(dest),
    ]  # fmt: skip
    if quiet:
        cmd.insert(4, "--quiet")
    proc = subprocess.run(cmd, capture_output=quiet, text=True, check=False)
    found = _cached_wheel(dest)
    if proc.returncode != 0 or found is None:
        detail = (proc.stderr or proc.stdout or "").strip()[-2000:] if quiet else "see pip's output above"
        raise SourceError(
            f"could not download {BFCL_PACKAGE}=={BFCL_VERSION} into {dest} (pip exit {proc.returncode}): "
            f"{detail}\nCheck network access to PyPI, or place the wheel in {dest} by hand."
        )
    return found


def _cached_wheel(dest: Path) -> Path | None:
    wheels = sorted(dest.glob(f"{BFCL_PACKAGE.replace('-', '_')}-{BFCL_VERSION}-*.whl"))
    return wheels[0] if wheels else None


def load_bfcl(wheel: Path | None = None, categories: Collection[str] | None = None) -> LoadResult:
    """All BFCL v3 single-turn samples from the wheel (fetched when ``wheel`` is not given); only
    those of ``categories`` (keys of ``BFCL_CATEGORIES``) when given."""
    wheel = wheel if wheel is not None else fetch_bfcl(quiet=True)
    versions = {BFCL_PACKAGE: BFCL_VERSION, wheel.name: file_sha256(wheel)}
    skips = Skips("bfcl")
    samples: list[Sample] = []
    for category in BFCL_CATEGORIES:
        if categories is None or category in categories:
            got = _category_samples(wheel, category)
            samples.extend(got.samples)
            skips.add_counts(got.skipped)
            versions |= got.versions
    return LoadResult(source="bfcl", samples=samples, skipped=skips.as_dict(), versions=versions)


def _open_wheel(wheel: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(wheel)
    except zipfile.BadZipFile:
        raise SourceError(f"{wheel} is not a valid zip; delete it and run `robustcall data fetch bfcl`") from None


_SAMPLES_CACHE_FORMAT = "1"


def _category_samples(wheel: Path, category: str) -> LoadResult:
    """One category's samples, skips and members' sha256: built from the wheel the first time, then
    read back from the cache (``core.dumps_trusted``: a category reads back in about half the time it
    takes to build). The cache's key is the wheel file, this module's, the data model's and the
    pickle's source and pydantic's version: a change to any of them builds anew."""
    path = _samples_cache(wheel) / f"{category}.pickle"
    return kept_or_built(path, lambda: _read_category(wheel, category), LoadResult, trusted=True)


@functools.cache
def _samples_cache(wheel: Path) -> Path:
    import pydantic

    key = f"{_SAMPLES_CACHE_FORMAT} {wheel.name} {wheel.stat().st_size} {pydantic.VERSION}"
    here = Path(__file__).resolve()
    core = here.parents[1] / "core"
    return derived_cache_dir("bfcl-samples", key, [here, core / "_model.py", core / "_trusted_pickle.py"])


def _read_category(wheel: Path, category: str) -> LoadResult:
    stem = BFCL_CATEGORIES.get(category, category)  # an extra category's file is named as it is
    skips = Skips("bfcl")
    samples: list[Sample] = []
    versions: dict[str, str] = {}
    with _open_wheel(wheel) as zf:
        q_member = f"{_DATA}/BFCL_v4_{stem}.json"
        questions, versions[q_member] = _read_member(zf, wheel, q_member)
        answers: dict[str, list[Any]] = {}
        if category not in IRRELEVANCE_CATEGORIES and category != RELEVANCE_CATEGORY:
            a_member = f"{_DATA}/possible_answer/BFCL_v4_{stem}.json"
            records, versions[a_member] = _read_member(zf, wheel, a_member)
            answers = {str(r["id"]): r["ground_truth"] for _, r in records}
        # BFCL's live categories repeat their tools (live_multiple: 4,178, 1,073 distinct): equal ones
        # (same JSON, same key order) are one ToolSpec, shared by the samples, which nothing changes
        # in place (a perturbation builds new records); the cache reads back in half the time
        tools: dict[str, ToolSpec] = {}
        for lineno, entry in questions:
            sample = _to_sample(category, entry, answers, skips, f"{wheel.name}!{q_member}:{lineno}", tools)
            if sample is not None:
                samples.append(sample)
    return LoadResult(source="bfcl", samples=samples, skipped=skips.as_dict(), versions=versions)


def load_bfcl_extra(wheel: Path | None = None, categories: Collection[str] | None = None) -> list[Sample]:
    """The samples of ``EXTRA_CATEGORIES`` (``live_relevance`` with ``golden_answers = []``), category
    and original id as BFCL spells them; only those of ``categories`` when given."""
    wheel = wheel if wheel is not None else fetch_bfcl(quiet=True)
    return [
        sample
        for category in EXTRA_CATEGORIES
        if categories is None or category in categories
        for sample in _category_samples(wheel, category).samples
    ]


def bfcl_module(name: str, wheel: Path | None = None) -> Any:
    """A module of BFCL's own code (``bfcl_eval.eval_checker...``), imported from the pinned wheel's
    Python files (``bfcl_code_root``; never from another installed ``bfcl_eval``). Only modules that
    need nothing beyond the standard library (and what the caller says) are imported this way."""
    import importlib

    path = str(bfcl_code_root(wheel))
    loaded = sys.modules.get("bfcl_eval")
    if loaded is not None and not str(getattr(loaded, "__file__", "") or "").startswith(path):
        raise SourceError(f"bfcl_eval is already imported from {loaded.__file__}, not from the pinned wheel {path}")
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module(name)


_CODE_DONE = "UNPACKED"


def bfcl_code_root(wheel: Path | None = None) -> Path:
    """A folder holding the wheel's ``bfcl_eval`` Python files, unmodified, byte-compiled: what
    ``bfcl_module`` imports from. Unpacked once per wheel into the cache (beside the wheel) because
    Python's zip import compiles every module from source on every start (0.1 s of a whole-folder
    ``import bfcl``) and never keeps its bytecode. Written to a temporary folder and renamed, so a
    killed unpacking leaves nothing half-made; a folder that lost its marker is unpacked again. Where
    the cache cannot be written, the wheel file itself (zip import)."""
    import compileall
    import shutil
    import tempfile

    wheel = wheel if wheel is not None else fetch_bfcl(quiet=True)
    root = wheel.with_name(wheel.name + ".code")
    marker = root / _CODE_DONE
    stamp = f"{wheel.name} {wheel.stat().st_size}"
    if marker.is_file() and marker.read_text(encoding="utf-8") == stamp:
        return root
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".code-", dir=wheel.parent))
    except OSError:  # a read-only cache: Python imports from the wheel file itself, only slower
        return wheel
    try:
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(tmp, [m for m in zf.namelist() if m.startswith("bfcl_eval/") and m.endswith(".py")])
        compileall.compile_dir(tmp, quiet=2, workers=1)
        (tmp / _CODE_DONE).write_text(stamp, encoding="utf-8")
        shutil.rmtree(root, ignore_errors=True)
        try:
            tmp.rename(root)
        except OSError:  # another process renamed its own first: use that one
            if not (marker.is_file() and marker.read_text(encoding="utf-8") == stamp):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return root


MODEL_CONFIG = "bfcl_eval/constants/model_config.py"


def bfcl_underscore_models(wheel: Path | None = None) -> dict[str, bool]:
    """BFCL's model list (``MODEL_CONFIG_MAPPING``) as name -> ``underscore_to_dot``: whether its checker
    compares a function name with "." as "_" for that model (the FC handlers are offered "_" names).
    Read from the wheel's source as data (``ast``; nothing of it is run or imported)."""
    return _model_flags("underscore_to_dot", wheel)


def bfcl_fc_models(wheel: Path | None = None) -> dict[str, bool]:
    """BFCL's model list as name -> ``is_fc_model`` (its handler decodes lists of calls, else text)."""
    return _model_flags("is_fc_model", wheel)


def _model_flags(flag_name: str, wheel: Path | None) -> dict[str, bool]:
    return dict(_model_configs(wheel if wheel is not None else fetch_bfcl(quiet=True)).get(flag_name, {}))


_FLAGS_FILE = "model_flags.json"


@functools.cache
def _model_configs(wheel: Path) -> dict[str, dict[str, bool]]:
    """Per ``ModelConfig`` keyword, per model name of BFCL's model list, whether it is ``True``: read
    once per wheel (parsing the file costs 15 ms) and kept beside its unpacked code."""
    kept = bfcl_code_root(wheel) / _FLAGS_FILE
    try:
        flags: dict[str, dict[str, bool]] = json.loads(kept.read_text(encoding="utf-8"))
        return flags
    except (OSError, ValueError):
        pass
    flags = _parse_model_configs(wheel)
    with contextlib.suppress(OSError):
        atomic_write_text(kept, json.dumps(flags, sort_keys=True))
    return flags


def _parse_model_configs(wheel: Path) -> dict[str, dict[str, bool]]:
    import ast

    with zipfile.ZipFile(wheel) as zf:
        tree = ast.parse(zf.read(MODEL_CONFIG).decode("utf-8"))
    flags: dict[str, dict[str, bool]] = {"underscore_to_dot": {}, "is_fc_model": {}}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(value, ast.Call)):
                continue
            if getattr(value.func, "id", None) != "ModelConfig":
                continue
            for flag_name, by_model in flags.items():
                flag = next((k.value for k in value.keywords if k.arg == flag_name), None)
                by_model[key.value] = isinstance(flag, ast.Constant) and flag.value is True
    return flags


def _read_member(zf: zipfile.ZipFile, wheel: Path, member: str) -> tuple[list[tuple[int, Any]], str]:
    """JSON lines of one wheel member as ``(line, record)``, and the member's sha256."""
    try:
        raw = zf.read(member)
    except KeyError:
        raise SourceFormatError(f"{wheel}: no member {member} (is this bfcl-eval {BFCL_VERSION}?)") from None
    out: list[tuple[int, Any]] = []
    for lineno, line in enumerate(jsonl_lines(raw.decode("utf-8")), start=1):
        if not line.strip():
            continue
        try:
            out.append((lineno, json_value(line)))
        except json.JSONDecodeError as exc:
            raise SourceFormatError(f"{wheel}!{member}:{lineno}: invalid JSON ({exc.msg})") from None
    return out, hashlib.sha256(raw).hexdigest()


def _to_sample(
    category: str,
    entry: dict[str, Any],
    answers: dict[str, list[Any]],
    skips: Skips,
    where: str,
    tools: dict[str, ToolSpec],
) -> Sample | None:
    original_id = str(entry["id"])
    sample_id = f"{BENCHMARK}__BFCL_v3_{category}__{original_id}"
    turns = entry["question"]
    if len(turns) != 1:
        skips.add("multi-turn", sample_id)
        return None
    golden: list[GoldenAnswer] = []
    if category not in IRRELEVANCE_CATEGORIES and category != RELEVANCE_CATEGORY:
        ground_truth = answers.get(original_id)
        if not ground_truth:
            skips.add("no gold call", sample_id)
            return None
        try:
            golden = [_golden(call) for call in ground_truth]
        except (TypeError, ValueError, AttributeError) as exc:
            raise SourceFormatError(f"{where}: possible answer of {original_id} not understood: {exc}") from None
    try:
        return Sample(
            id=sample_id,
            benchmark=BENCHMARK,
            category=category,
            source=SourceInfo(
                original_id=original_id,
                benchmark=BENCHMARK,
                file=f"BFCL_v3_{category}.json",
                extra={
                    "golden_mode": "all",
                    "bfcl_eval": BFCL_VERSION,
                    "wheel_category": BFCL_CATEGORIES.get(category, category),
                },
            ),
            conversation=[Message(role=m["role"], content=m["content"]) for m in turns[0]],
            tools=[_tool(f, tools) for f in entry["function"]],
            golden_answers=golden,
            eval_config=EvalConfig(method="bfcl_ast", output_format="bfcl"),
        )
    except (ValidationError, KeyError, TypeError) as exc:
        raise SourceFormatError(f"{where}: question {original_id} not understood: {exc}") from None


def _tool(function: Any, seen: dict[str, ToolSpec]) -> ToolSpec:
    key = json.dumps(function, ensure_ascii=False)
    tool = seen.get(key)
    if tool is None:
        tool = seen[key] = ToolSpec.model_validate(function)
    return tool


def _golden(call: dict[str, Any]) -> GoldenAnswer:
    """One BFCL ground-truth entry ``{name: {param: [acceptable...]}}`` -> ``GoldenAnswer``."""
    if len(call) != 1:
        raise ValueError(f"expected one function per ground-truth entry, got {sorted(call)}")
    ((name, params),) = call.items()
    return GoldenAnswer(name=name, parameters=_canonical_params(params), acceptable=dict(params))


def _canonical_params(params: dict[str, Any]) -> dict[str, Any]:
    """Per parameter the first acceptable value that is not ``""``; parameters without one are left out."""
    out: dict[str, Any] = {}
    for key, options in params.items():
        if not isinstance(options, list):  # a literal where BFCL nests no acceptable list
            out[key] = options
            continue
        for option in options:
            if option != "":
                out[key] = _canonical_value(option)
                break
    return out


def _canonical_value(value: Any) -> Any:
    if isinstance(value, dict):
        return _canonical_params(value)
    if isinstance(value, list):
        return [_canonical_value(v) for v in value]
    return value
