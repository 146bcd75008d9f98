"""Standard formats in and out: parquet, JSONL, JSON lists and HF ``datasets`` folders.

Rows are plain dicts. Parquet written here is deterministic (no pandas index, fixed writer
settings), so the same rows give byte-identical files. RL rows keep veRL's / ToolRL's layout
(``data_source, prompt, ability, reward_model, extra_info``) and SFT rows TRL's conversational
layout (``messages``), which veRL's multi-turn SFT dataset also reads (``messages_key``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from robustcall.core import MissingInputError, iter_json_lines


def load_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a ``.parquet``, ``.jsonl``, ``.json`` (a list) file, or an HF ``save_to_disk`` folder."""
    if path.is_dir():
        import datasets  # type: ignore[import-untyped,unused-ignore]

        loaded = datasets.load_from_disk(str(path))
        if isinstance(loaded, datasets.DatasetDict):
            raise ValueError(f"{path}: a DatasetDict; point at one split's folder")
        return [dict(r) for r in loaded]
    if not path.is_file():
        raise MissingInputError(f"{path}: no such file or folder")
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq  # type: ignore[import-untyped,unused-ignore]

        rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
        return rows
    if path.suffix == ".jsonl":
        out = []
        for lineno, obj in iter_json_lines(path):
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object per line")
            out.append(obj)
        return out
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            raise ValueError(f"{path}: expected a JSON list of records")
        return [dict(r) for r in data]
    raise ValueError(f"{path}: unknown format; use .parquet, .jsonl, .json or an HF datasets folder")


def save_rows(rows: list[dict[str, Any]], path: Path) -> Path:
    """Write rows by suffix: ``.parquet``, ``.jsonl``; anything else is an HF datasets folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".parquet":
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]
        import pyarrow.parquet as pq  # type: ignore[import-untyped,unused-ignore]

        table = pa.Table.from_pylist(rows)
        pq.write_table(table, path, compression="snappy", write_statistics=False)
    elif path.suffix == ".jsonl":
        with open(path, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")
    else:
        import datasets  # type: ignore[import-untyped,unused-ignore]

        datasets.Dataset.from_list(rows).save_to_disk(str(path))
    return path
