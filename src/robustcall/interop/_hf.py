"""A built benchmark as one Hugging Face dataset (``robustcall export hf BENCH --out DIR``).

One Parquet file per perturbation type under ``data/``, a config per type plus ``all`` (the default,
every type with a ``type`` column), and a dataset card (``README.md``) with the composition, the
sources and their licences, how it was built and the seed. Every file has the same features
(``FEATURES``): what is free-form JSON in our records (tool schemas, argument values, perturbation
and source metadata, which differ in shape from row to row, ``changed_parameters`` among them) is
stored as JSON text, so ``datasets.load_dataset`` reads every config without type conflicts.
``sample_from_row`` turns a row back into our ``Sample``. Needs the ``hf`` extra (``datasets``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from robustcall.core import MANIFEST, Sample, read_bench_manifest, read_jsonl, type_file, type_info

try:
    from datasets import Dataset, Features, Value  # type: ignore[import-untyped]
    from datasets.utils.logging import disable_progress_bar  # type: ignore[import-untyped]
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("Hugging Face export needs the `hf` extra: pip install 'robustcall[hf]'") from exc

FEATURES = Features(
    {
        "id": Value("string"),
        "type": Value("string"),
        "type_display": Value("string"),
        "component": Value("string"),
        "variant": Value("string"),
        "benchmark": Value("string"),
        "category": Value("string"),
        "source_original_id": Value("string"),
        "source_file": Value("string"),
        "conversation": [
            {
                "role": Value("string"),
                "content": Value("string"),
                "name": Value("string"),
                "tool_calls": Value("string"),
            }
        ],
        "tools": [{"name": Value("string"), "description": Value("string"), "parameters": Value("string")}],
        "golden_answers": [{"name": Value("string"), "parameters": Value("string"), "acceptable": Value("string")}],
        "eval_method": Value("string"),
        "output_format": Value("string"),
        "perturbation_metadata": Value("string"),
        "source_extra": Value("string"),
    }
)
"""The features of every file and config (JSON text where our records are free-form)."""

SOURCE_LICENCES = {
    "bfcl": ("BFCL v3 (Berkeley Function Calling Leaderboard, the bfcl-eval wheel)", "Apache-2.0"),
    "apibank": ("API-Bank (AlibabaResearch/DAMO-ConvAI)", "Apache-2.0"),
    "rotbench": ("RoTBench", "Apache-2.0"),
    "toolalpaca": ("ToolAlpaca", "Apache-2.0"),
    "tooleyes": ("ToolEyes", "Apache-2.0"),
}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def sample_row(sample: Sample) -> dict[str, Any]:
    """One dataset row of a sample."""
    info = type_info(sample.perturbation.type)
    return {
        "id": sample.id,
        "type": info.code,
        "type_display": info.display,
        "component": sample.perturbation.mdp_category,
        "variant": sample.perturbation.variant,
        "benchmark": sample.benchmark,
        "category": sample.category,
        "source_original_id": sample.source.original_id,
        "source_file": sample.source.file,
        "conversation": [
            {
                "role": m.role,
                "content": m.content,
                "name": m.name,
                "tool_calls": None
                if m.tool_calls is None
                else _json([c.model_dump(mode="json") for c in m.tool_calls]),
            }
            for m in sample.conversation
        ],
        "tools": [
            {"name": t.name, "description": t.description, "parameters": _json(t.parameters)} for t in sample.tools
        ],
        "golden_answers": [
            {
                "name": g.name,
                "parameters": _json(g.parameters),
                "acceptable": None if g.acceptable is None else _json(g.acceptable),
            }
            for g in sample.golden_answers
        ],
        "eval_method": sample.eval_config.method,
        "output_format": sample.eval_config.output_format,
        "perturbation_metadata": _json(sample.perturbation.metadata),
        "source_extra": _json(sample.source.extra),
    }


def sample_from_row(row: dict[str, Any]) -> Sample:
    """The ``Sample`` a row was made from (``sample_row`` inverted)."""
    return Sample.model_validate(
        {
            "id": row["id"],
            "benchmark": row["benchmark"],
            "category": row["category"],
            "source": {
                "original_id": row["source_original_id"],
                "benchmark": row["benchmark"],
                "file": row["source_file"],
                "extra": json.loads(row["source_extra"]),
            },
            "perturbation": {
                "type": row["type"],
                "mdp_category": row["component"],
                "variant": row["variant"],
                "metadata": json.loads(row["perturbation_metadata"]),
            },
            "conversation": [
                {
                    "role": m["role"],
                    "content": m["content"],
                    "name": m["name"],
                    "tool_calls": None if m["tool_calls"] is None else json.loads(m["tool_calls"]),
                }
                for m in row["conversation"]
            ],
            "tools": [
                {"name": t["name"], "description": t["description"], "parameters": json.loads(t["parameters"])}
                for t in row["tools"]
            ],
            "golden_answers": [
                {
                    "name": g["name"],
                    "parameters": json.loads(g["parameters"]),
                    "acceptable": None if g["acceptable"] is None else json.loads(g["acceptable"]),
                }
                for g in row["golden_answers"]
            ],
            "eval_config": {"method": row["eval_method"], "output_format": row["output_format"]},
        }
    )


def _card(manifest: dict[str, Any], types: list[str], name: str) -> str:
    sources = list(manifest.get("sources", []))
    by_source: dict[str, dict[str, int]] = manifest.get("counts_by_source", {})
    counts: dict[str, int] = manifest.get("counts", {})
    configs = [{"config_name": "all", "data_files": [{"split": "test", "path": "data/*.parquet"}], "default": True}]
    configs += [{"config_name": t, "data_files": [{"split": "test", "path": f"data/{t}.parquet"}]} for t in types]
    licences = sorted({SOURCE_LICENCES.get(s, (s, "see the source"))[1] for s in sources})
    header = {
        "license": licences[0].lower() if len(licences) == 1 else "other",
        "pretty_name": f"RobustBench-TC ({name})",
        "task_categories": ["text-generation"],
        "tags": ["tool-calling", "function-calling", "robustness", "robustcall"],
        "configs": configs,
    }
    lines = ["---", yaml.safe_dump(header, sort_keys=False).rstrip(), "---", "", f"# RobustBench-TC: {name}", ""]
    lines += [
        "Tool-calling samples and their perturbations, built by "
        "[robustcall](https://github.com/robustcall/robustcall) (`robustcall build`), following the RobustBench-TC "
        "paper: clean samples from real benchmarks and seeded, deterministic edits of each by POMDP component "
        "(Observation, Action, Reward; the Transition types are injected at run time and have no rows here).",
        "",
        "Load one type (`config`) or all of them (`all`, with a `type` column):",
        "",
        "```python",
        "from datasets import load_dataset",
        f'clean = load_dataset("{name}", "clean", split="test")',
        f'everything = load_dataset("{name}", split="test")',
        "```",
        "",
        "Free-form JSON (tool parameter schemas, argument values, perturbation metadata) is stored as JSON "
        "text so that every config has the same features; `sample_from_row` in `robustcall.interop._hf` gives the "
        "robustcall `Sample` back.",
        "",
        "## Composition",
        "",
        "| type | display name | component | " + " | ".join(sources) + " | total |",
        "|---|---|---|" + "---:|" * (len(sources) + 1),
    ]
    for t in types:
        info = type_info(t)
        row = [str(by_source.get(t, {}).get(s, 0)) for s in sources]
        lines.append(f"| `{t}` | {info.display} | {info.component} | " + " | ".join(row) + f" | {counts.get(t, 0)} |")
    lines += ["", "## Sources and licences", "", "| source | from | licence |", "|---|---|---|"]
    for s in sources:
        what, licence = SOURCE_LICENCES.get(s, (s, "see the source"))
        lines.append(f"| `{s}` | {what} | {licence} |")
    versions = manifest.get("source_versions", {})
    lines += [
        "",
        "## How it was built",
        "",
        f"- Command: `robustcall build --sources {','.join(sources)} --seed {manifest.get('seed')}"
        + (
            " --per-source " + ",".join(f"{k}={v}" for k, v in sorted(manifest.get("per_source", {}).items()))
            if manifest.get("per_source")
            else ""
        )
        + "`",
        f"- Seed: {manifest.get('seed')} (the same sources, data and seed give byte-identical files).",
        f"- Rewriter: {_json(manifest.get('rewriter', {}))}.",
        f"- Source versions: {_json({k: v for k, v in versions.items() if not isinstance(v, dict)} or versions)}"[
            :4000
        ],
        "- The JSONL files and `manifest.json` (with each file's sha256) that these Parquet files were made from "
        "are the `robustcall build` output; `sha256` below lists them.",
        "",
        "```json",
        json.dumps(manifest.get("sha256", {}), indent=1, sort_keys=True),
        "```",
        "",
    ]
    return "\n".join(lines)


def export_hf(bench: Path, out: Path, name: str | None = None) -> dict[str, int]:
    """Write ``bench`` (a ``robustcall build`` directory) as a Hugging Face dataset folder at ``out``;
    return the rows per type."""
    manifest_path = bench / MANIFEST
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{manifest_path} not found: is {bench} a benchmark built by `robustcall build`?")
    # as the file gives it (a newer format is refused)
    manifest: dict[str, Any] = read_bench_manifest(manifest_path).model_dump(mode="json", exclude_unset=True)
    types = [t for t in manifest.get("types", []) if (bench / type_file(t)).is_file()]
    (out / "data").mkdir(parents=True, exist_ok=True)
    disable_progress_bar()
    rows_per_type: dict[str, int] = {}
    for t in types:
        rows = [sample_row(s) for s in read_jsonl(bench / type_file(t), Sample)]
        Dataset.from_list(rows, features=FEATURES).to_parquet(str(out / "data" / f"{t}.parquet"))
        rows_per_type[t] = len(rows)
    (out / "README.md").write_text(_card(manifest, types, name or bench.resolve().name), encoding="utf-8")
    return rows_per_type
