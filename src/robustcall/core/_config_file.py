"""Reading a small YAML or JSON file a user wrote (settings, model sizes, fault profiles)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from robustcall.core._errors import InputError


def load_config_file(path: Path) -> Any:
    """The parsed content of ``path``: JSON for ``.json``, YAML otherwise (JSON is YAML too).

    Unreadable content raises ``InputError`` with a one-line message naming file, line and column.
    A missing file raises the ``FileNotFoundError`` of ``open`` (it names the file)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    import yaml  # here, not at import: most commands read no YAML and should not load it

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"{where}: not valid YAML: {problem}") from None
