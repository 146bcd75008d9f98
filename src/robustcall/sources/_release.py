"""The authors' released RobustBench-TC, read as one more source (docs/sources.md, "The released
benchmark").

Two documented layouts:

- **The release** (Hugging Face dataset ``robustbench-tc/RobustBench-TC``, CC-BY-4.0, commit ``d962f2b``:
  "17 eval JSONLs + 3 GRPO parquets + Croissant + README"): ``clean.jsonl`` (the 199 clean samples) and
  one ``<type>.jsonl`` per static type (Table 4's code names: ``realistic_typos.jsonl`` …
  ``TD_AB.jsonl``) at the top, the GRPO parquets under ``training/`` (``train.parquet``, ``test.parquet``,
  ``mixed_train.parquet``). The same files under ``api_eval/`` or ``datasets/api_eval/`` (the code
  release's and the larger card's eval subset) read the same way.
- **The larger card** (``Justin1233/RobustBench-TC``, 69,921 samples over six sources):
  ``unified_benchmark/<source>/**/*.jsonl``, every record naming its type in ``perturbation.type``.

A record is ``{id, benchmark, category, perturbation {type, mdp_category, variant}, conversation [{role,
content}], tools [{name, description, parameters}], golden_answers [{name, parameters}], eval_config
{method}}``; ``tools[].parameters`` and ``golden_answers[].parameters`` may be JSON strings (the card's
dtype), and so may any of the list / struct fields (the larger card's README types them all
``string``). A record that does not fit is refused in one line naming the file and line.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from robustcall.core import (
    STATIC_TYPES,
    TYPES,
    EvalConfig,
    GoldenAnswer,
    Message,
    PerturbationInfo,
    Sample,
    SourceInfo,
    ToolSpec,
    file_sha256,
    iter_json_lines,
)
from robustcall.sources._apibank import APIBANK_THINK_TOOL
from robustcall.sources._types import MissingDataError, SourceError, SourceFormatError

RELEASE_REPO = "robustbench-tc/RobustBench-TC"
"""The paper's release on the Hugging Face hub (a dataset repository)."""
RELEASE_COMMIT = "d962f2b6e0f687c113b1708b68ec11baf6bea94c"
"""Its initial release ("17 eval JSONLs + 3 GRPO parquets + Croissant + README"); ``--release hf`` asks for it."""
LARGER_REPO = "Justin1233/RobustBench-TC"
TRAINING_FILES = {"full": "train.parquet", "test": "test.parquet", "mixed": "mixed_train.parquet"}
"""The release's GRPO parquets under ``training/``: DR-Full's train split, the shared validation
split, DR-Mixed's train split (§5: 3,905 + 79 and 4,000 rows)."""

# benchmark as the release spells it -> (our scorer, golden mode, prompt-mode output format): each
# source's own rule (Appendix I; docs/sources.md), whatever the record's eval_config.method says
_RULES: dict[str, tuple[str, str, str]] = {
    "bfcl_v3": ("bfcl_ast", "all", "bfcl"),
    "apibank": ("apibank", "all", "tool_call"),
    "rotbench": ("rotbench", "any", "react"),
    "toolalpaca": ("toolalpaca", "sequence", "react"),
    "tooleyes": ("tooleyes", "any_name", "react"),
}
_ALIASES = {"bfcl": "bfcl_v3", "bfcl_v3_st": "bfcl_v3", "api_bank": "apibank", "api-bank": "apibank"}
NOT_SCORED = {"acebench": "ACEBench: not one of the paper's five sources (no scorer here)"}
"""Benchmarks of the larger card this robustcall skips (counted in the build's ``release.skipped``)."""
_ROLES = {"system", "user", "assistant", "tool"}
_RECORD_KEYS = {"id", "benchmark", "category", "source", "perturbation", "conversation", "tools"}
_RECORD_KEYS |= {"golden_answers", "eval_config"}
_HF_SNAPSHOT = re.compile(r"datasets--([^/]+)--([^/]+)/snapshots/([0-9a-f]{40})")


class ReleaseRecordError(SourceFormatError):
    """A release record that is not in the documented layout (the message names file and line)."""


@dataclass
class ReleaseData:
    """What a release folder gave: samples per type, what was skipped, and what exactly was read."""

    root: Path
    name: str
    commit: str | None
    layout: str
    """``release`` (the flat eval files) or ``unified`` (the larger card's ``unified_benchmark/``)."""
    by_type: dict[str, list[Sample]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    """Every file read (path relative to the root) -> its sha256."""

    @property
    def complete(self) -> bool:
        """Whether the eval files hold clean and all 16 static types: the paper's own benchmark."""
        return self.layout == "release" and all(self.by_type.get(c) for c in ("clean", *STATIC_TYPES))

    def info(self) -> dict[str, Any]:
        """What ``manifest.json`` and every run's ``run.json`` record as ``release``."""
        return {
            "name": self.name,
            "commit": self.commit,
            "layout": self.layout,
            "like_for_like": self.complete,
            "files": dict(sorted(self.files.items())),
            "skipped": dict(sorted(self.skipped.items())),
        }


def _json_field(value: Any, what: str, kind: type) -> Any:
    """A field given as its value or as a JSON string of it (the cards type several as ``string``)."""
    if isinstance(value, str) and kind is not str:
        try:
            value = json.loads(value) if value.strip() else kind()
        except (ValueError, RecursionError):
            raise ValueError(f"{what} is a string that is not JSON") from None
    if not isinstance(value, kind):
        raise ValueError(f"{what} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def _tool(raw: Any, k: int) -> ToolSpec:
    raw = _json_field(raw, f"tools[{k}]", dict)
    if not isinstance(raw.get("name"), str) or not raw["name"]:
        raise ValueError(f"tools[{k}] has no name")
    params = _json_field(raw.get("parameters", {}), f"tools[{k}].parameters", dict)
    extra = {key: v for key, v in raw.items() if key not in ("name", "description", "parameters")}
    return ToolSpec(name=raw["name"], description=str(raw.get("description") or ""), parameters=params, **extra)


def _golden(raw: Any, k: int) -> GoldenAnswer:
    raw = _json_field(raw, f"golden_answers[{k}]", dict)
    if not isinstance(raw.get("name"), str):
        raise ValueError(f"golden_answers[{k}] has no name")
    params = _json_field(raw.get("parameters", {}), f"golden_answers[{k}].parameters", dict)
    return GoldenAnswer(name=raw["name"], parameters=params)


def _message(raw: Any, k: int) -> Message:
    raw = _json_field(raw, f"conversation[{k}]", dict)
    role = raw.get("role")
    if role not in _ROLES:
        raise ValueError(f"conversation[{k}].role is {role!r}, not one of {sorted(_ROLES)}")
    content = raw.get("content")
    return Message(role=role, content="" if content is None else str(content))


def release_sample(obj: Any, file_type: str | None) -> Sample | str:
    """One release record as a ``Sample`` (the id of a perturbed record is ``<clean id>__<type>``,
    as our builds name it; the release's id is ``source.original_id``), or the reason it is skipped
    (a benchmark in :data:`NOT_SCORED`). ``file_type``: the type the file's name says (``None``:
    the record says). Raises ``ValueError`` naming the field that does not fit."""
    if not isinstance(obj, dict):
        raise ValueError(f"a record must be a JSON object, got {type(obj).__name__}")
    missing = [k for k in ("id", "benchmark", "conversation", "tools", "golden_answers") if k not in obj]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    rid, bench = obj["id"], obj["benchmark"]
    if not isinstance(rid, str) or not rid or not isinstance(bench, str):
        raise ValueError("id and benchmark must be non-empty strings")
    key = _ALIASES.get(bench.lower(), bench.lower())
    if key in NOT_SCORED:
        return NOT_SCORED[key]
    if key not in _RULES:
        raise ValueError(f"benchmark {bench!r} is none of {', '.join(_RULES)} (or {', '.join(NOT_SCORED)})")
    method, golden_mode, fmt = _RULES[key]
    pert = _json_field(obj.get("perturbation") or {}, "perturbation", dict)
    code = pert.get("type") or "clean"
    if not isinstance(code, str) or code not in TYPES or TYPES[code].beyond:
        raise ValueError(f"perturbation.type {code!r} is not one of the paper's 22 types (or clean)")
    if TYPES[code].component == "transition":
        raise ValueError(f"perturbation.type {code!r} is a transition type: the release stores none (a run adds them)")
    if file_type is not None and code != file_type:
        raise ValueError(f"perturbation.type {code!r} in a file of type {file_type!r}")
    conversation = [_message(m, k) for k, m in enumerate(_json_field(obj["conversation"], "conversation", list))]
    if not any(m.role == "user" for m in conversation):
        raise ValueError("conversation has no user turn")
    tools = [_tool(t, k) for k, t in enumerate(_json_field(obj["tools"], "tools", list))]
    golden = [_golden(g, k) for k, g in enumerate(_json_field(obj["golden_answers"], "golden_answers", list))]
    config = _json_field(obj.get("eval_config") or {}, "eval_config", dict)
    extra: dict[str, Any] = {"golden_mode": golden_mode, "release_id": rid}
    if config.get("method") is not None:
        extra["release_method"] = config["method"]  # kept; the source's own rule scores (docs/sources.md)
    if key == "apibank" and any(t.name == APIBANK_THINK_TOOL for t in tools):
        extra["meta_tools"] = [APIBANK_THINK_TOOL]
    mdp = pert.get("mdp_category")
    if mdp is not None and str(mdp).lower() != TYPES[code].component:
        extra["release_mdp_category"] = mdp  # the release's spelling; the component is the type's (Table 1)
    others = {k: v for k, v in obj.items() if k not in _RECORD_KEYS}
    if others:
        extra["release_fields"] = others
    suffix = f"__{code}"
    clean_id = rid if code == "clean" or not rid.endswith(suffix) else rid[: -len(suffix)]
    variant = pert.get("variant")
    return Sample(
        id=clean_id if code == "clean" else f"{clean_id}{suffix}",
        benchmark=key,
        category=str(obj.get("category") or ""),
        source=SourceInfo(original_id=rid, benchmark=key, extra=extra),
        perturbation=PerturbationInfo(
            type=code,
            mdp_category=TYPES[code].component,
            variant=None if variant is None else str(variant),
            metadata=meta if isinstance(meta := pert.get("metadata"), dict) else {},  # decoy positions, if given
        ),
        conversation=conversation,
        tools=tools,
        golden_answers=golden,
        eval_config=EvalConfig(method=method, output_format=fmt),
    )


def _read_file(path: Path, root: Path, file_type: str | None, data: ReleaseData) -> None:
    rel = path.relative_to(root).as_posix()
    data.files[rel] = file_sha256(path)
    seen: dict[tuple[str, str], int] = {}
    for lineno, obj in iter_json_lines(path):
        try:
            got = release_sample(obj, file_type)
        except (ValueError, ValidationError) as exc:
            why = str(exc).splitlines()[0] if not isinstance(exc, ValidationError) else _first(exc)
            raise ReleaseRecordError(f"{path}:{lineno}: not a RobustBench-TC release record: {why}") from None
        if isinstance(got, str):
            data.skipped[got] = data.skipped.get(got, 0) + 1
            continue
        key = (got.id, got.perturbation.type)
        if key in seen:
            raise ReleaseRecordError(f"{path}:{lineno}: id {got.id!r} repeats line {seen[key]}")
        seen[key] = lineno
        data.by_type.setdefault(got.perturbation.type, []).append(got)


def _first(exc: ValidationError) -> str:
    e = exc.errors()[0]
    return f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"


def _identity(root: Path, layout: str) -> tuple[str, str | None]:
    """The release's repository and commit: from a Hugging Face cache path
    (``datasets--OWNER--NAME/snapshots/COMMIT``) or the ``.cache/huggingface/download/*.metadata``
    files ``hf download --local-dir`` leaves (their first line is the commit), else unknown."""
    match = _HF_SNAPSHOT.search(root.resolve().as_posix())
    if match:
        return f"{match[1]}/{match[2]}", match[3]
    default = RELEASE_REPO if layout == "release" else LARGER_REPO
    meta_dir = root / ".cache" / "huggingface" / "download"
    commits = {
        p.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].strip() for p in meta_dir.rglob("*.metadata")
    }
    commits = {c for c in commits if re.fullmatch(r"[0-9a-f]{40}", c)}
    return default, commits.pop() if len(commits) == 1 else None


def _eval_dir(root: Path) -> Path | None:
    for d in (root, root / "api_eval", root / "datasets" / "api_eval"):
        if (d / "clean.jsonl").is_file():
            return d
    return None


def load_release(root: Path) -> ReleaseData:
    """Read a release folder (either documented layout); raise ``MissingDataError`` when it holds
    neither, ``ReleaseRecordError`` (file:line) on a record that does not fit."""
    root = Path(root)
    if not root.is_dir():
        raise MissingDataError(f"--release {root}: no such folder")
    eval_dir = _eval_dir(root)
    unified = root / "unified_benchmark"
    if eval_dir is not None:
        name, commit = _identity(root, "release")
        data = ReleaseData(root=root, name=name, commit=commit, layout="release")
        for code in ("clean", *STATIC_TYPES):
            path = eval_dir / f"{code}.jsonl"
            if path.is_file():
                _read_file(path, root, code, data)
        unknown = sorted(
            p.name for p in eval_dir.glob("*.jsonl") if p.stem not in ("clean", *STATIC_TYPES)
        )  # a file of another name is not the layout: say so rather than leave it unread
        if unknown:
            raise ReleaseRecordError(
                f"{eval_dir}: {', '.join(unknown)}: not a type file of the release (clean.jsonl and Table 4's "
                "16 static type names)"
            )
    elif unified.is_dir():
        name, commit = _identity(root, "unified")
        data = ReleaseData(root=root, name=name, commit=commit, layout="unified")
        for path in sorted(unified.rglob("*.jsonl")):
            _read_file(path, root, None, data)
    else:
        raise MissingDataError(
            f"--release {root}: neither clean.jsonl (the release's eval files, also under api_eval/ or "
            "datasets/api_eval/) nor unified_benchmark/ (the larger card's layout)"
        )
    if not data.by_type.get("clean"):
        raise SourceFormatError(f"--release {root}: no clean record read (the perturbed types need their clean twins)")
    clean_ids = {s.id for s in data.by_type["clean"]}
    for code, rows in data.by_type.items():
        orphans = [
            s.source.original_id for s in rows if code != "clean" and s.id.removesuffix(f"__{code}") not in clean_ids
        ]
        if orphans:
            raise SourceFormatError(
                f"--release {root}: {len(orphans)} {code} record(s) have no clean twin (first: {orphans[0]!r})"
            )
    for code in data.by_type:
        data.by_type[code].sort(key=lambda s: s.id)
    return data


def release_training(root: Path, split: str) -> tuple[Path, Path | None]:
    """The release's GRPO parquets for ``train``: (training rows, validation rows) of ``split``
    (``full``: DR-Full's ``train.parquet``; ``mixed``: DR-Mixed's ``mixed_train.parquet``; both
    validate on ``test.parquet``)."""
    if split not in ("full", "mixed"):
        raise SourceError(f"--release-split must be full or mixed, got {split!r}")
    folder = Path(root) / "training"
    train = folder / TRAINING_FILES[split]
    if not train.is_file():
        raise MissingDataError(f"{root}: no training/{TRAINING_FILES[split]} (the release's GRPO parquets)")
    test = folder / TRAINING_FILES["test"]
    return train, test if test.is_file() else None


def download_release(cache: Path, revision: str = RELEASE_COMMIT) -> Path:
    """``--release hf``: the release's files from the Hugging Face hub (``huggingface_hub``), into
    ``cache``; where the hub cannot be reached, ``SourceError`` says so in one line."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise SourceError(
            "--release hf needs huggingface_hub (pip install 'robustcall[hf]'); or download "
            f"{RELEASE_REPO} yourself and give --release DIR"
        ) from None
    try:
        path = snapshot_download(repo_id=RELEASE_REPO, repo_type="dataset", revision=revision, cache_dir=str(cache))
    except Exception as exc:  # the hub client raises many kinds (offline, HTTP, DNS): all mean "not here"
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise SourceError(
            f"the Hugging Face hub is not reachable from here ({type(exc).__name__}: {first}): download "
            f"{RELEASE_REPO} elsewhere and give --release DIR"
        ) from None
    return Path(path)


def type_counts(data: ReleaseData) -> dict[str, int]:
    """Records per type as read."""
    return {code: len(rows) for code, rows in data.by_type.items()}


def counts_by_source(data: ReleaseData) -> dict[str, dict[str, int]]:
    return {code: dict(sorted(Counter(s.benchmark for s in rows).items())) for code, rows in data.by_type.items()}
