"""BFCL's result files, both ways.

``bfcl generate`` writes ``<result dir>/<model>/<group>/BFCL_v4_<category>_result.json``: JSON lines
``{"id": "simple_python_0", "result": ..., <metadata>}`` where ``result`` is the model's text
(prompting handlers) or a list of ``{function name: arguments}`` (function-calling handlers; the
arguments a JSON string or an object), and ``<group>`` is ``non_live`` or ``live``.

- ``import_bfcl_results`` (``read_bfcl_results`` in memory): such a folder (any depth) -> a
  robustcall run directory, one clean BFCL record per line (text parsed with robustcall's BFCL
  parser, FC lists read as calls, an FC list BFCL cannot decode kept as a scored ``model_format``
  error without calls), which ``robustcall score`` scores like any run. Files of categories
  robustcall does not score are skipped.
- ``export_bfcl_results``: the clean BFCL records of a run -> that layout, so that BFCL's own
  ``bfcl evaluate`` (or anything reading those files) takes our answers.

Function names with a dot: BFCL's FC handlers are offered ``a.b`` as ``a_b`` (OpenAI-style names allow
no dots) and answer with that name; ``bfcl evaluate`` then compares the gold name turned the same way
when the model's entry in BFCL's model list says ``underscore_to_dot`` (``ast_checker.convert_func_name``).
Both directions follow it, reading the flag for the result folder's model name from the wheel
(``sources.bfcl_underscore_models``): import maps such an answer's ``a_b`` back to the sample's ``a.b``;
export writes ``a_b`` for a model whose entry has the flag. A folder name BFCL does not list is read as
a function-calling handler's when its results are lists of calls (every BFCL FC handler is offered
``_`` names).

Needs no extra: the samples come from the ``bfcl-eval`` wheel robustcall already reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from robustcall.core import (
    PREDICTIONS,
    RUN_META,
    InputError,
    Prediction,
    PredictionRecord,
    RunMeta,
    Sample,
    ToolCall,
    jsonl_lines,
    read_call,
    read_checkpoint,
    read_run_meta,
    record_key,
    record_of,
    write_jsonl,
)
from robustcall.envs import MULTI_TURN_CATEGORIES
from robustcall.formats import UNREADABLE
from robustcall.interop._bfcl_samples import agentic_samples, multi_turn_samples
from robustcall.score import CHECKED_AS, BfclNotCalls, BfclWrongOutputFormat, decode_ast_format, decode_ast_prompting
from robustcall.sources import BFCL_BENCHMARK as BENCHMARK
from robustcall.sources import (
    BFCL_CATEGORIES,
    EXTRA_CATEGORIES,
    bfcl_fc_models,
    bfcl_module,
    bfcl_underscore_models,
    load_bfcl,
    load_bfcl_extra,
)

VERSION_PREFIX = "BFCL_v4"
RESULT_GLOB = "BFCL_*_result.json"
_RESULT_NAME = re.compile(r"^BFCL_(v\d+)_(.+)_result\.json$")
READ_VERSIONS = ("v3", "v4")
"""The ``bfcl generate`` versions whose result folders are read (v3 ids are mapped to today's)."""
V3_RENAMED = {"simple": "simple_python", "java": "simple_java", "javascript": "simple_javascript"}
"""BFCL v3 categories renamed in v4 (ids too: ``simple_3`` is today's ``simple_python_3``); the rest kept theirs."""


class BfclFileError(InputError):
    """A result file or line robustcall cannot read."""


def _group(stem: str) -> str:
    return "live" if stem.startswith("live_") else "non_live"


class _NotCalls(ValueError):
    """An FC answer BFCL's decoder cannot read as calls: BFCL scores it as one without any."""


def _fc_calls(result: list[Any], names: dict[str, str]) -> list[ToolCall]:
    """The calls of a function-calling answer, each name read through ``names`` (when there)."""
    calls = []
    for item in result:
        if not isinstance(item, dict) or len(item) != 1:
            raise _NotCalls("a function-calling result holds one {name: arguments} per call")
        ((name, args),) = item.items()
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError as exc:
                raise _NotCalls(f"arguments of {name} are not JSON: {exc}") from None
        if not isinstance(args, dict):
            raise _NotCalls(f"arguments of {name} are not an object")
        name = str(name)
        calls.append(read_call(names.get(name, name), args))
    return calls


DEFAULT_MODEL_DIRS = {"fc": "gpt-4o-2024-11-20-FC", "prompt": "gpt-4o-2024-11-20"}
"""``export bfcl``'s folder name when none is given: entries of BFCL's model list (OpenAI-compatible
handlers, FC with ``underscore_to_dot``, prompting without), so ``bfcl evaluate --model <it>`` runs."""


def fc_name(name: str) -> str:
    """A function name as BFCL's FC handlers are offered it (``ast_checker.convert_func_name``)."""
    return name.replace(".", "_")


def _underscore_to_dot(model_dir: str, flags: dict[str, bool]) -> bool | None:
    """BFCL's flag for a result folder's model (the folder is the name with "/" as "_")."""
    return flags.get(model_dir, flags.get(model_dir.replace("_", "/")))


_PARSERS = {"simple_java": ("java_parser", "parse_java_function_call"),
            "simple_javascript": ("js_parser", "parse_javascript_function_call")}  # fmt: skip
LANGUAGE_EXTRA = "bfcl-java"
"""The extra whose tree-sitter grammars BFCL's Java / JavaScript parsers need (text answers only)."""


def _language_parser(category: str, where: str) -> Any:
    module, function = _PARSERS[category]
    try:
        return getattr(bfcl_module(f"bfcl_eval.model_handler.parser.{module}"), function)
    except ImportError as exc:
        raise BfclFileError(
            f"{where}: reading {category} text answers needs BFCL's tree-sitter parser ({exc}): "
            f"pip install 'robustcall[{LANGUAGE_EXTRA}]' (function-calling answers need nothing more)"
        ) from None


def _missing_parser(path: Path) -> str | None:
    """Why a Java / JavaScript file of text answers cannot be read here (its parser's extra is not
    installed), else ``None``."""
    category = result_category(path)
    if category not in _PARSERS or not any(isinstance(e["result"], str) for _, e in _result_lines(path)):
        return None
    try:
        _language_parser(category, str(path))
    except BfclFileError:
        return (f"its {category} text answers need BFCL's tree-sitter parser: "
                f"pip install 'robustcall[{LANGUAGE_EXTRA}]'")  # fmt: skip
    return None


def _language_prediction(sample: Sample, text: str, where: str) -> Prediction:
    """A Java / JavaScript text answer as BFCL's prompting decoder reads it (its own tree-sitter parser)."""
    parse = _language_parser(sample.category, where)
    text = text.strip("`\n ")
    text = text if text.startswith("[") else "[" + text
    text = text if text.endswith("]") else text + "]"
    try:
        decoded = parse(text[1:-1])
    except Exception as exc:  # BFCL: ast_decoder:decoder_failed
        return Prediction(raw_output=text, error=f"BFCL cannot decode the answer: {exc}", error_kind="model_format")
    if not isinstance(decoded, list) or not all(isinstance(c, dict) and len(c) == 1 for c in decoded):
        return Prediction(raw_output=text, error="BFCL decodes no call in the answer", error_kind="model_format")
    calls = []
    for call in decoded:
        ((name, args),) = call.items()
        calls.append(ToolCall(name=str(name), arguments={"" if k is None else str(k): v for k, v in args.items()}))
    return Prediction(raw_output=text, tool_calls=calls)


def _json_value(value: Any) -> Any:
    """A decoded value as a record keeps it: tuples as lists (as BFCL's checker reads them for
    ``tuple``), a value JSON cannot hold (bytes, complex) as unreadable (BFCL: a type error)."""
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return {UNREADABLE: f"a {type(value).__name__} value"}


def _python_prediction(text: str) -> Prediction:
    """A text answer as BFCL's prompting decoder reads it (``default_decode_ast_prompting``), so that an
    imported result file gets ``bfcl evaluate``'s verdict: keyword arguments only, a bare name or a
    subscript as its text, a text that is not a list of calls decodes to no call (``decoder_failed``)."""
    try:
        decoded = decode_ast_prompting(text)
    except BfclNotCalls as exc:
        return Prediction(raw_output=text, error=f"BFCL cannot decode the answer: {exc}", error_kind="model_format")
    calls = [ToolCall(name=name, arguments={k: _json_value(v) for k, v in args.items()}) for name, args in decoded]
    return Prediction(raw_output=text, tool_calls=calls)


DECODE_FAILED = "BFCL cannot decode the answer"
NO_CALL_DECODED = "BFCL decodes no call in the answer"
FC_TEXT_ERROR = "BFCL's function-calling handler decodes no call from a text answer"


def _prediction(sample: Sample, result: Any, where: str, underscored: bool, fc_handler: bool = False) -> Prediction:
    if isinstance(result, str):
        if result.startswith("Error during inference:"):
            return Prediction(raw_output="", error=result, error_kind="infra")
        if fc_handler:  # its decode_ast reads lists of calls only: a text answer has none (decoder_failed)
            return Prediction(raw_output=result, error=FC_TEXT_ERROR, error_kind="model_format")
        if sample.category in _PARSERS:
            return _language_prediction(sample, result, where)
        return _python_prediction(result)
    if isinstance(result, list):
        # the handler saw a.b as a_b when underscored: its a_b is read as the sample's a.b
        back = {fc_name(t.name): t.name for t in sample.tools if "." in t.name} if underscored else {}
        try:
            calls = _fc_calls(result, back)
        except _NotCalls as exc:  # BFCL: decoder_failed (no call: right on irrelevance, wrong elsewhere)
            return Prediction(raw_output="", error=f"BFCL cannot decode the answer: {exc}", error_kind="model_format")
        return Prediction(raw_output="", tool_calls=calls)
    raise BfclFileError(f"{where}: `result` is neither text nor a list of calls")


GROUPS = frozenset({"non_live", "live", "multi_turn", "agentic", "format_sensitivity"})
"""The folders ``bfcl generate`` writes under ``result/<model>/`` (``utils.get_general_grouping``)."""


def result_version(path: Path) -> str | None:
    """``v4`` for ``BFCL_v4_simple_python_result.json``; ``None`` for a name of another shape."""
    m = _RESULT_NAME.match(path.name)
    return m[1] if m else None


def result_category(path: Path) -> str:
    """Today's category of a result file: ``simple_python`` for ``BFCL_v4_simple_python_result.json``
    and for v3's ``BFCL_v3_simple_result.json``."""
    m = _RESULT_NAME.match(path.name)
    if m is None:
        raise BfclFileError(f"{path}: not a BFCL result file name (BFCL_<version>_<category>_result.json)")
    return V3_RENAMED.get(m[2], m[2]) if m[1] == "v3" else m[2]


def today_id(bfcl_id: str, version: str) -> str:
    """A result id as today's data spells it: v3's ``simple_3`` / ``java_3`` / ``javascript_3`` renamed."""
    if version == "v3":
        stem, _, tail = bfcl_id.rpartition("_")
        if stem in V3_RENAMED:
            return f"{V3_RENAMED[stem]}_{tail}"
    return bfcl_id


FORMAT_SENSITIVITY = "format_sensitivity"
_FS_ID = re.compile(
    r"^format_sensitivity_\d+:(?P<config>ret_fmt=(?P<ret>python|json|verbose_xml|concise_xml)"
    r"&tool_call_tag=(?P<tag>True|False)&func_doc_fmt=(?:python|xml|json)&prompt_fmt=(?:plaintext|markdown)"
    r"&style=(?:classic|experimental)):(?P<original>.+)$"
)
"""A format-sensitivity id: ``format_sensitivity_<n>:<configuration>:<original id>``."""
AGENTIC_CATEGORIES = ("memory_kv", "memory_vector", "memory_rec_sum", "web_search_base", "web_search_no_snippet")
"""BFCL's agentic categories (``bfcl evaluate`` leaves the memory ``*_prereq`` files unscored, as does import)."""
SCORED_CATEGORIES: tuple[str, ...] = (
    *BFCL_CATEGORIES.values(),
    *EXTRA_CATEGORIES,
    *MULTI_TURN_CATEGORIES,
    *AGENTIC_CATEGORIES,
    FORMAT_SENSITIVITY,
)
"""Every BFCL category (file names' ``<category>``, today's spelling) ``import bfcl`` reads."""


def choose_bfcl_categories(names: Iterable[str]) -> frozenset[str]:
    """The BFCL categories (file names' ``<category>``) to import; robustcall's own names (``simple``)
    are read as BFCL's. Raises ``BfclFileError`` naming one it does not score."""
    chosen = set()
    for name in names:
        stem = BFCL_CATEGORIES.get(name, name)
        if stem not in SCORED_CATEGORIES:
            known = ", ".join(SCORED_CATEGORIES)
            raise BfclFileError(f"robustcall does not score BFCL category {name!r}; it scores {known}")
        chosen.add(stem)
    return frozenset(chosen)


def _model_dir(path: Path) -> str:
    """The model folder of a result file: the parent of its nearest group folder (else its own folder)."""
    for parent in path.resolve().parents:
        if parent.name in GROUPS:
            return parent.parent.name
    return path.resolve().parent.name


def _result_lines(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    for n, line in enumerate(jsonl_lines(path.read_text(encoding="utf-8")), 1):
        if not line.strip():
            continue
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:  # what orjson refuses and Python reads (NaN, huge integers), or
            try:  # not JSON at all: said in Python's words
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BfclFileError(f"{path}:{n}: not JSON: {exc}") from None
        if not isinstance(entry, dict) or "id" not in entry or "result" not in entry:
            raise BfclFileError(f"{path}:{n}: a result line needs `id` and `result`")
        yield n, entry


@dataclass(frozen=True)
class BfclImport:
    """What ``import_bfcl_results`` did."""

    records: int
    format_errors: int
    """Answers BFCL's decoder cannot read (scored as answers without a call, as BFCL scores them)."""
    skipped: list[str]
    """One line per result file left out, saying why."""
    version: str = "v4"
    """The ``bfcl generate`` version whose files were read (``v3`` ids are mapped to today's)."""
    written: tuple[PredictionRecord, ...] = field(default=(), repr=False)
    """The records written, in the file's order: scored in the same process without reading them back."""
    mode: str = "fc"
    """The handler's mode as its results show it (``prompt``: text only)."""
    model_dir: str = ""
    """The result folder's model name (``bfcl evaluate`` writes its score folder under it)."""


def _files_of_one_version(folder: Path) -> tuple[str, list[Path]]:
    files = sorted(folder.rglob(RESULT_GLOB))
    if not files:
        raise BfclFileError(
            f"no BFCL_v4_*_result.json (or v3) files under {folder}: is it a `bfcl generate` result folder?"
        )
    versions = sorted({result_version(p) or "?" for p in files})
    unread = [v for v in versions if v not in READ_VERSIONS]
    if unread:
        example = next(p for p in files if (result_version(p) or "?") == unread[0])
        raise BfclFileError(
            f"{folder} holds BFCL {unread[0]} result files (e.g. {example.name}): robustcall reads BFCL v3 and v4 "
            "result folders only"
        )
    if len(versions) > 1:
        raise BfclFileError(f"{folder} holds both BFCL v3 and v4 result files: import one version's folder")
    return versions[0], files


def _is_fc_result(result: Any) -> bool:
    """Whether a multi-turn result holds a function-calling handler's steps (lists of calls)."""
    return isinstance(result, list) and any(
        isinstance(step, (list, dict)) for turn in result if isinstance(turn, list) for step in turn
    )


def import_bfcl_results(
    folder: Path,
    out: Path,
    *,
    model: str = "bfcl-results",
    categories: frozenset[str] | None = None,
    wheel: Path | None = None,
) -> BfclImport:
    """Turn the BFCL result files (v3 or v4) under ``folder`` into the run directory ``out``. Files of
    categories robustcall does not score (Java, memory, ...) or not in ``categories`` (default: every
    one it scores) are left out, each with a line in ``skipped``."""
    if (out / PREDICTIONS).exists():
        raise BfclFileError(f"{out} already holds predictions: import into a new directory")
    done = read_bfcl_results(folder, model=model, categories=categories, wheel=wheel)
    write_jsonl(out / PREDICTIONS, done.written)
    meta = RunMeta(bench=None, model=model, model_name=done.model_dir, mode=done.mode, types="clean", limit=None,
                   imported_from=str(folder.resolve()), format="bfcl-results")  # fmt: skip
    meta.write(out)
    return done


@dataclass(frozen=True)
class BfclFolder:
    """The result files of a ``bfcl generate`` folder chosen for import: one model, one version."""

    version: str
    model_dir: str
    """The model folder's name (``bfcl evaluate`` writes its score folder under it)."""
    files: tuple[Path, ...]
    skipped: tuple[str, ...]
    """One line per result file left out, saying why."""


def bfcl_result_folder(folder: Path, categories: frozenset[str] | None = None) -> BfclFolder:
    """The result files under ``folder`` to import: every category robustcall scores, or those of
    ``categories``; the others (and memory's prerequisite conversations) left out with a line each."""
    version, files = _files_of_one_version(folder)
    wanted = categories if categories is not None else frozenset(SCORED_CATEGORIES)
    skipped, chosen = [], []
    for path in files:
        category = result_category(path)
        if "prereq" in category:
            skipped.append(f"skipped {path}: memory prerequisite conversations (bfcl evaluate does not score them)")
        elif category not in SCORED_CATEGORIES:
            skipped.append(f"skipped {path}: robustcall does not score BFCL category {category}")
        elif category not in wanted:
            skipped.append(f"skipped {path}: {category} is not in --categories")
        else:
            chosen.append(path)
    models = sorted({_model_dir(p) for p in chosen})
    if len(models) > 1:
        raise BfclFileError(
            f"{folder} holds the results of {len(models)} models ({', '.join(models)}): "
            f"import one model's folder, e.g. {folder / models[0]}"
        )
    if not chosen:
        raise BfclFileError(f"no result file under {folder} of a category to import ({len(skipped)} skipped)")
    return BfclFolder(version=version, model_dir=models[0], files=tuple(chosen), skipped=tuple(skipped))


def is_turn_based(path: Path) -> bool:
    """Whether a result file is of a multi-turn or agentic category (entries replayed turn by turn)."""
    return result_category(path) in (*MULTI_TURN_CATEGORIES, *AGENTIC_CATEGORIES)


def read_bfcl_results(
    folder: Path,
    *,
    model: str = "bfcl-results",
    categories: frozenset[str] | None = None,
    wheel: Path | None = None,
) -> BfclImport:
    """The records ``import_bfcl_results`` writes, in memory."""
    return read_bfcl_files(bfcl_result_folder(folder, categories), model=model, wheel=wheel)


def read_bfcl_files(
    chosen: BfclFolder,
    files: Iterable[Path] | None = None,
    *,
    model: str = "bfcl-results",
    wheel: Path | None = None,
) -> BfclImport:
    """The records of ``chosen``'s result files (or of ``files``, some of them), in memory."""
    paths = list(chosen.files if files is None else files)
    version, skipped = chosen.version, list(chosen.skipped if files is None else ())
    single = [p for p in paths if not is_turn_based(p)]
    multi = [p for p in paths if is_turn_based(p)]
    by_id: dict[str, Sample] = {}
    if single:
        # only the categories of these files (a format-sensitivity entry may be of any of them)
        stems = {result_category(p) for p in single}
        every = FORMAT_SENSITIVITY in stems
        v3 = None if every else [c for c, stem in BFCL_CATEGORIES.items() if stem in stems]
        extra = None if every else [c for c in EXTRA_CATEGORIES if c in stems]
        if v3 is None or v3:
            by_id |= {s.source.original_id: s for s in load_bfcl(wheel, v3).samples}
        if extra is None or extra:
            by_id |= {s.source.original_id: s for s in load_bfcl_extra(wheel, extra)}
    flag = _underscore_to_dot(chosen.model_dir, bfcl_underscore_models(wheel))
    handler_fc = bfcl_fc_models(wheel).get(chosen.model_dir)
    records: dict[tuple[str, str], PredictionRecord] = {}
    fc = False
    for path in single:
        missing = None if handler_fc else _missing_parser(path)
        if missing is not None:
            skipped.append(f"skipped {path}: {missing}")
            continue
        for n, entry in _result_lines(path):
            where = f"{path}:{n}"
            bfcl_id = today_id(str(entry["id"]), version)
            if result_category(path) == FORMAT_SENSITIVITY:
                _add_format_entry(records, by_id, entry, where, model, handler_fc is True)
                continue
            sample = by_id.get(bfcl_id)
            if sample is None:
                raise BfclFileError(f"{where}: id {entry['id']!r} is not a BFCL {version} sample robustcall covers")
            underscored = flag if flag is not None else isinstance(entry["result"], list)
            prediction = _prediction(sample, entry["result"], where, underscored, handler_fc is True)
            rec = record_of(sample, prediction, model)
            if isinstance(entry["result"], list):  # only function-calling handlers write lists of calls
                fc = True
            _add(records, rec, where, entry["id"])
    for path in multi:
        lines = list(_result_lines(path))
        handler = handler_fc if handler_fc is not None else any(_is_fc_result(e["result"]) for _, e in lines)
        fc = fc or handler
        category = result_category(path)
        mode = "fc" if handler else "prompt"
        tasks = (
            agentic_samples(category, mode) if category in AGENTIC_CATEGORIES else multi_turn_samples([category], mode)
        )
        for n, entry in lines:
            where = f"{path}:{n}"
            sample = tasks.get(str(entry["id"]))
            if sample is None:
                raise BfclFileError(f"{where}: id {entry['id']!r} is not a BFCL {version} {category} entry")
            raw = json.dumps(entry["result"], ensure_ascii=False)
            rec = record_of(sample, Prediction(raw_output=raw), model)
            _add(records, rec, where, entry["id"])
    written = tuple(records[k] for k in sorted(records))
    errors = sum(r.prediction.error_kind == "model_format" for r in records.values())
    # the handler's mode as its results show it: a prompting handler writes text only
    return BfclImport(records=len(records), format_errors=errors, skipped=skipped, version=version, written=written,
                      mode="fc" if fc else "prompt", model_dir=chosen.model_dir)  # fmt: skip


def _add_format_entry(
    records: dict[tuple[str, str], PredictionRecord],
    by_id: dict[str, Sample],
    entry: dict[str, Any],
    where: str,
    model: str,
    fc_handler: bool,
) -> None:
    """One ``format_sensitivity`` entry: its original sample under the entry's id, checked as the original
    id (BFCL's dispatch), its text decoded in the configuration's return format."""
    m = _FS_ID.match(str(entry["id"]))
    original = by_id.get(m["original"]) if m else None
    if m is None or original is None:
        raise BfclFileError(f"{where}: id {entry['id']!r} is not a BFCL format_sensitivity entry robustcall covers")
    extra = {**original.source.extra, "wheel_category": FORMAT_SENSITIVITY, CHECKED_AS: m["original"],
             "bfcl_config": m["config"]}  # fmt: skip
    bfcl_id = str(entry["id"])
    sample = original.model_copy(update={
        "id": f"{BENCHMARK}__BFCL_v3_{FORMAT_SENSITIVITY}__{bfcl_id}", "category": FORMAT_SENSITIVITY,
        "source": original.source.model_copy(update={"original_id": bfcl_id, "extra": extra}),
    })  # fmt: skip
    result = entry["result"]
    if isinstance(result, str) and not fc_handler and not result.startswith("Error during inference:"):
        try:
            decoded = decode_ast_format(result, m["ret"], m["tag"] == "True")
        except BfclWrongOutputFormat as exc:
            prediction = Prediction(raw_output=result, error=f"{NO_CALL_DECODED}: {exc}", error_kind="model_format")
        except BfclNotCalls as exc:
            prediction = Prediction(raw_output=result, error=f"{DECODE_FAILED}: {exc}", error_kind="model_format")
        else:
            calls = [
                ToolCall(name=str(n), arguments={str(k): _json_value(v) for k, v in a.items()}) for n, a in decoded
            ]
            prediction = Prediction(raw_output=result, tool_calls=calls)
    else:
        prediction = _prediction(sample, result, where, isinstance(result, list), fc_handler)
    _add(records, record_of(sample, prediction, model), where, entry["id"])


def _add(records: dict[tuple[str, str], PredictionRecord], rec: PredictionRecord, where: str, bfcl_id: Any) -> None:
    key = record_key(rec)
    if key in records:
        raise BfclFileError(f"{where}: id {bfcl_id!r} appears twice")
    records[key] = rec


def _result(pred: Prediction, fc: bool, underscored: bool) -> Any:
    """What BFCL's handler of the run's mode writes: an FC handler writes the message's calls when it
    has any (its text, if also there, is dropped) and its text otherwise; a prompting handler, the text."""
    if (fc or not pred.raw_output) and pred.tool_calls:
        name = fc_name if underscored else str
        return [{name(c.name): json.dumps(c.arguments, ensure_ascii=False)} for c in pred.tool_calls]
    return pred.raw_output


def _fc_run(run_dir: Path) -> bool:
    meta = read_run_meta(run_dir) if (run_dir / RUN_META).is_file() else None
    return meta is not None and meta.mode == "fc"


def bfcl_model_dir(run_dir: Path, model_dir: str | None = None) -> str:
    """``model_dir``; else, for a run imported from BFCL result files, their model folder's name;
    else the default entry of BFCL's model list for the run's mode."""
    if model_dir is not None:
        return model_dir
    meta = read_run_meta(run_dir) if (run_dir / RUN_META).is_file() else None
    if meta is not None and meta.format == "bfcl-results" and meta.model_name:
        return meta.model_name
    return DEFAULT_MODEL_DIRS["fc" if meta is not None and meta.mode == "fc" else "prompt"]


def export_bfcl_results(
    run_dir: Path, out: Path, *, model_dir: str | None = None, wheel: Path | None = None
) -> dict[str, int]:
    """Write the clean BFCL records of ``run_dir`` as ``bfcl generate`` result files under
    ``out/<model_dir>/`` (default: ``DEFAULT_MODEL_DIRS`` for the run's mode); return the lines
    written per file name. Perturbed records, other sources and infra errors are left out (BFCL knows
    only its own ids; an infra error has no answer)."""
    path = run_dir / PREDICTIONS
    if not path.is_file():
        raise BfclFileError(f"{path} not found: is {run_dir} a run directory?")
    model_dir = bfcl_model_dir(run_dir, model_dir)
    fc = _fc_run(run_dir)
    underscored = bool(_underscore_to_dot(model_dir, bfcl_underscore_models(wheel)))
    latest: dict[tuple[str, str], PredictionRecord] = {}
    for rec in read_checkpoint(path, PredictionRecord):
        latest[record_key(rec)] = rec
    files: dict[Path, list[dict[str, Any]]] = {}
    for rec in latest.values():
        if rec.benchmark != BENCHMARK or rec.perturbation.type != "clean" or rec.prediction.error_kind == "infra":
            continue
        stem = BFCL_CATEGORIES.get(rec.category)
        if stem is None:
            continue
        target = out / model_dir / _group(stem) / f"{VERSION_PREFIX}_{stem}_result.json"
        result = _result(rec.prediction, fc, underscored)
        files.setdefault(target, []).append({"id": rec.source.original_id, "result": result})
    written: dict[str, int] = {}
    for target, entries in sorted(files.items()):
        target.parent.mkdir(parents=True, exist_ok=True)
        entries.sort(key=lambda e: _id_order(str(e["id"])))
        text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)
        target.write_text(text, encoding="utf-8")
        written[target.name] = len(entries)
    return written


def _id_order(bfcl_id: str) -> tuple[str, list[int]]:
    """BFCL sorts result lines by id with numeric parts compared as numbers (``simple_python_2`` < ``_10``)."""
    stem, _, tail = bfcl_id.rpartition("_")
    numbers = [int(p) for p in tail.split("-") if p.isdigit()]
    return stem, numbers
