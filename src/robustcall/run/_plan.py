"""Which samples a run answers: a built benchmark directory, a type selection and a limit."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from robustcall.core import (
    BEYOND_TYPES,
    CLEAN_SAMPLES,
    MANIFEST,
    STATIC_TYPES,
    TRANSITION_TYPES,
    InputError,
    MissingInputError,
    PerturbationInfo,
    Sample,
    read_bench_manifest,
    read_jsonl,
    record_key,
    seeded_rng,
    type_file,
    type_info,
)
from robustcall.formats import render_messages

ALL_TYPES: tuple[str, ...] = ("clean", *STATIC_TYPES, *TRANSITION_TYPES)

Order = Literal["prefix", "sample", "type"]
"""How a run orders its work: ``sample`` = every variant of one clean sample in a row (type order
within), ``prefix`` = the same, each sample's variants sorted by their prompt text (:func:`by_prefix`),
``type`` = every sample of one type in a row."""

ORDERS: tuple[str, ...] = ("prefix", "sample", "type")


def bench_digest(bench_dir: Path) -> str:
    """The sha256 of ``manifest.json``: which build a run answered.

    Raises ``MissingInputError`` when the folder is missing or holds no manifest (not a finished
    ``robustcall build`` output), ``NewerFormatError`` when a newer robustcall built it."""
    manifest = bench_dir / MANIFEST
    if not bench_dir.is_dir():
        what = "a file, not a benchmark folder" if bench_dir.exists() else "no such benchmark folder"
        raise MissingInputError(f"{bench_dir}: {what}; make one with `robustcall build --out`")
    if not manifest.is_file():
        raise MissingInputError(
            f"{bench_dir} has no {MANIFEST}: not a finished `robustcall build` output (build it again)"
        )
    read_bench_manifest(manifest)  # refuses a format this robustcall cannot read
    return hashlib.sha256(manifest.read_bytes()).hexdigest()


def bench_release(bench_dir: Path) -> dict[str, Any] | None:
    """The release a benchmark was read from (its manifest's ``release``), for the run's ``run.json``;
    ``None`` for a build of our own (or a folder with no manifest)."""
    manifest = bench_dir / MANIFEST
    return read_bench_manifest(manifest).release if manifest.is_file() else None


@dataclass(frozen=True)
class WorkItem:
    """One sample to answer under one perturbation type (in one trial of a ``--trials K`` run)."""

    sample: Sample
    type: str
    trial: int | None = None
    """0-based trial; ``None``: a one-trial run (no request seed, no ``trial`` in the record)."""
    seed: int | None = None
    """The request seed of this trial (``trial_seed``)."""

    @property
    def key(self) -> tuple[str, str, int]:
        sample_id, code = record_key(self.sample)
        return (sample_id, code, 0 if self.trial is None else self.trial)


def trial_seed(seed: int, trial: int) -> int:
    """The request seed of trial ``trial`` of a run seeded ``seed``: a 31-bit integer fixed by both
    (servers take a non-negative int; neighbouring seeds give unrelated streams)."""
    return seeded_rng(seed, "trial", str(trial)).getrandbits(31)


def with_trials(items: list[WorkItem], trials: int, seed: int = 0) -> list[WorkItem]:
    """``items`` asked ``trials`` times: trial after trial, each in the items' order (so a killed run
    holds whole early trials). ``trials == 1`` keeps the items as they are (the paper's protocol: no
    seed is sent and the records carry no ``trial``)."""
    if trials < 1:
        raise InputError(f"--trials must be at least 1, got {trials}")
    if trials == 1:
        return items
    return [WorkItem(it.sample, it.type, t, trial_seed(seed, t)) for t in range(trials) for it in items]


def clean_id_of(sample: Sample) -> str:
    """The id of the clean sample a perturbed sample was made from."""
    suffix = f"__{sample.perturbation.type}"
    if sample.perturbation.type != "clean" and sample.id.endswith(suffix):
        return sample.id[: -len(suffix)]
    return sample.id


def built_types(bench_dir: Path) -> list[str]:
    """The types ``bench_dir`` can run: clean, the 6 transition types (made at run time from clean) and
    every static or beyond type whose file the build wrote."""
    static = [c for c in (*STATIC_TYPES, *BEYOND_TYPES) if (bench_dir / type_file(c)).is_file()]
    return ["clean", *static, *TRANSITION_TYPES]


def parse_types(spec: str, bench_dir: Path | None = None) -> list[str]:
    """``all`` (the paper's 22 and clean; with ``bench_dir``, every type that benchmark holds:
    :func:`built_types`, so that a ``--types beyond`` build runs), ``static``, ``transition``,
    ``beyond`` (Appendix N's static axes) or a comma list of code / display names."""
    out: list[str] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part == "all":
            out.extend(ALL_TYPES if bench_dir is None else built_types(bench_dir))
        elif part == "static":
            out.extend(("clean", *STATIC_TYPES))
        elif part == "transition":
            out.extend(TRANSITION_TYPES)
        elif part == "beyond":
            out.extend(BEYOND_TYPES)
        else:
            out.append(type_info(part).code)
    return list(dict.fromkeys(out))


def as_transition(sample: Sample, code: str) -> Sample:
    """A clean sample relabelled as a transition-type sample (the fault is injected at run time)."""
    info = type_info(code)
    return sample.model_copy(
        update={
            "id": f"{sample.id}__{code}",
            "perturbation": PerturbationInfo(type=code, mdp_category=info.component),
        }
    )


def spread_subset(samples: list[Sample], n: int) -> list[Sample]:
    """``n`` samples taken round-robin over (benchmark, category) groups, each group in id order.

    Groups whose samples expect a call come first (each type is built around their own GT tool), BFCL
    live ones last (irrelevance items get the Action and Reward types around a stand-in tool)."""
    groups: dict[tuple[str, str], list[Sample]] = {}
    for s in sorted(samples, key=lambda s: s.id):
        groups.setdefault((s.benchmark, s.category), []).append(s)
    queues = [groups[k] for k in sorted(groups, key=lambda k: (not groups[k][0].golden_answers, "live_" in k[1], k))]
    out: list[Sample] = []
    depth = 0
    while len(out) < n and any(depth < len(q) for q in queues):
        out.extend(q[depth] for q in queues if depth < len(q))
        depth += 1
    return out[:n]


def by_sample(items: list[WorkItem]) -> list[WorkItem]:
    """``items`` reordered so that the variants of one clean sample follow each other (clean samples
    in order of first appearance, each one's variants in their original order).

    The variants of a sample share most of their prompt (the system prompt, the tool list up to the
    first edited tool, the query): sent back to back, a server that caches prompt prefixes per slot
    (llama-server's ``cache_prompt``, vLLM's and SGLang's prefix caches) evaluates only what differs.
    """
    return [it for group in _groups(items).values() for it in group]


def prompt_key(sample: Sample) -> str:
    """The text a request for ``sample`` starts with, in prompt order: each message's role and
    content (prompt mode: the system prompt with the tools, then the conversation)."""
    return "".join(f"<|{m.role}|>{m.content}" for m in render_messages(sample, "prompt"))


def by_prefix(items: list[WorkItem]) -> list[WorkItem]:
    """:func:`by_sample`, and within each sample its variants sorted by :func:`prompt_key` (ties in
    their original order).

    Sorted prompts are a depth-first walk of their prefix tree, so each prompt shares with the one
    before it the longest prefix it shares with any earlier prompt of the sample: a server slot that
    keeps only the previous prompt (llama-server's ``cache_prompt``) evaluates the least. The
    variants that keep the tool list (clean, the transition types' first pass, the query edits)
    follow each other; those that edit a tool follow each other in the order of the edit's place.
    """
    out: list[WorkItem] = []
    for group in _groups(items).values():
        keyed = sorted(((prompt_key(it.sample), i) for i, it in enumerate(group)))
        out.extend(group[i] for _, i in keyed)
    return out


def _groups(items: list[WorkItem]) -> dict[str, list[WorkItem]]:
    groups: dict[str, list[WorkItem]] = {}
    for it in items:
        groups.setdefault(clean_id_of(it.sample), []).append(it)
    return groups


def order_items(items: list[WorkItem], order: Order) -> list[WorkItem]:
    """``items`` (in type order, as :func:`plan_work` reads them) in ``order``."""
    if order == "prefix":
        return by_prefix(items)
    if order == "sample":
        return by_sample(items)
    return items


def plan_work(
    bench_dir: Path, types: list[str], limit: int | None = None, *, order: Order = "sample"
) -> list[WorkItem]:
    """Work items for ``types`` from ``bench_dir`` (``clean.jsonl`` + ``<code>.jsonl`` files).

    With ``limit``, the same ``limit`` clean samples are used for every type, so that drops are
    measured on paired samples (a type that does not apply to some of them has fewer); they are
    taken round-robin over (benchmark, category) so that a small limit still spans the sources.
    ``order``: ``sample`` (default) asks the variants of one sample back to back (:func:`by_sample`);
    ``prefix`` does too, sorted by prompt (:func:`by_prefix`); ``type`` asks type after type. Records
    are the same either way.
    """
    if limit is not None and limit < 1:
        raise InputError(f"limit must be at least 1, got {limit}")
    clean_path = bench_dir / CLEAN_SAMPLES
    if not clean_path.is_file():
        raise MissingInputError(f"{clean_path} not found: is {bench_dir} a benchmark built by `robustcall build`?")
    clean = sorted(read_jsonl(clean_path, Sample), key=lambda s: s.id)
    chosen = {s.id for s in (spread_subset(clean, limit) if limit is not None else clean)}
    items: list[WorkItem] = []
    for code in types:
        info = type_info(code)
        if info.component == "transition":
            samples = [as_transition(s, code) for s in clean if s.id in chosen]
        elif code == "clean":
            samples = [s for s in clean if s.id in chosen]
        else:
            path = bench_dir / type_file(code)
            if not path.is_file():
                raise MissingInputError(f"{path} not found: build the benchmark with this type")
            samples = [s for s in read_jsonl(path, Sample) if clean_id_of(s) in chosen]
            samples.sort(key=lambda s: s.id)
        items.extend(WorkItem(s, code) for s in samples)
    return order_items(items, order)
