"""Which of the mypyc-compiled modules this process runs compiled (``robustcall --version`` says).

``COMPILED_MODULES`` is the one list of them: ``setup.py`` reads it from this file (so it imports the
standard library only) and compiles exactly these. Each module runs as a C extension when the install
built one beside it, else as the plain Python source; the results are identical either way, only the
speed differs (docs/scoring.md, "Throughput").
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

COMPILED_MODULES = (
    "robustcall.formats._pytokens",
    "robustcall.formats._flatreader",
    "robustcall.formats._callreader",
    "robustcall.formats._literalreader",
    "robustcall.formats._canonical",
    "robustcall.formats._parse",
    "robustcall.formats._scan",
    "robustcall.score._bfcl_ast",
    "robustcall.score._scorer",
    "robustcall.score._batch",
    "robustcall.score._error_modes",
)

SOURCES_FILE = "_native_sources.json"
"""Beside this file: the sha256 of each compiled module's source at build time (written by setup.py)."""
PACKAGE = Path(__file__).resolve().parent

PURE_PYTHON_ENV = "ROBUSTCALL_PURE_PYTHON"
"""Set at install time: build no extensions (the modules run as plain Python)."""


def pure_python_requested() -> bool:
    return os.environ.get(PURE_PYTHON_ENV, "").lower() not in ("", "0", "false", "no")


def c_compiler() -> str | None:
    """The C compiler Python's build tools would use (``$CC``, else the one Python was built with)."""
    cc = os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "")
    words = shlex.split(cc)
    return shutil.which(words[0]) if words else None


def source_path(name: str, package: Path = PACKAGE) -> Path:
    """The ``.py`` file of the module ``name`` (``robustcall.x.y``) under ``package``."""
    return package.joinpath(*name.split(".")[1:]).with_suffix(".py")


def source_digests(package: Path = PACKAGE) -> dict[str, str]:
    """sha256 of each compiled module's source under ``package``."""
    return {name: hashlib.sha256(source_path(name, package).read_bytes()).hexdigest() for name in COMPILED_MODULES}


def stale_extensions(package: Path = PACKAGE) -> list[str]:
    """The modules whose extension beside their source was built from another source (or from one
    not recorded): an editable install after an edit or a ``git pull``. Python would load the
    extension and run the old code (or fail importing a module that no longer exists)."""
    built = [
        name
        for name in COMPILED_MODULES
        if any(source_path(name, package).with_suffix(s).is_file() for s in importlib.machinery.EXTENSION_SUFFIXES)
    ]
    if not built:
        return []
    try:
        recorded = json.loads((package / SOURCES_FILE).read_text())
    except (OSError, ValueError):
        return built
    now = source_digests(package)
    return [name for name in built if not isinstance(recorded, dict) or recorded.get(name) != now[name]]


class _SourceFirst:
    """Loads every compiled module from its ``.py`` file, past an extension beside it."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED_MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


_stale: list[str] = []


def run_stale_as_source() -> None:
    """Where an extension is stale, run every compiled module as plain Python (all of them: the
    compiled ones call each other natively, past the modules' names) and say so on stderr, once."""
    if _stale or any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        return
    _stale.extend(stale_extensions())
    if _stale:
        sys.meta_path.insert(0, _SourceFirst())
        print(f"robustcall: {STALE}; running them as plain Python meanwhile", file=sys.stderr)


STALE = "the compiled scoring modules are older than their sources: run `pip install -e .` again"


def not_compiled() -> list[str]:
    """The modules of :data:`COMPILED_MODULES` that would run (or run) as plain Python here."""
    out: list[str] = []
    for name in COMPILED_MODULES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin is None or not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            out.append(name)
    return out


def compiled_status() -> str:
    """``compiled 11/11``, or ``pure Python (why)``, or ``compiled k/11 (...)`` naming the plain ones."""
    missing = not_compiled()
    total = len(COMPILED_MODULES)
    if not missing:
        return f"compiled {total}/{total}"
    if _stale:
        why = STALE
    elif pure_python_requested():
        why = f"{PURE_PYTHON_ENV} is set"
    elif c_compiler() is None:
        why = "no C compiler found"
    else:
        why = "the extensions were not built: run `pip install -e .` (or `pip install .`) again and read its log"
    if len(missing) == total:
        return f"pure Python ({why})"
    plain = ", ".join(m.removeprefix("robustcall.") for m in missing)
    return f"compiled {total - len(missing)}/{total} (plain Python: {plain}; {why})"
