"""Which of the mypyc-compiled modules this process runs compiled (``robustcall --version`` says).

``COMPILED_MODULES`` is the one list of them: ``setup.py`` reads it from this file (so it imports the
standard library only) and compiles exactly these. Each module runs as a C extension when the install
built one beside it, else as the plain Python source; the results are identical either way, only the
speed differs (docs/scoring.md, "Throughput").
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import sysconfig

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

PURE_PYTHON_ENV = "ROBUSTCALL_PURE_PYTHON"
"""Set at install time: build no extensions (the modules run as plain Python)."""


def pure_python_requested() -> bool:
    return os.environ.get(PURE_PYTHON_ENV, "").lower() not in ("", "0", "false", "no")


def c_compiler() -> str | None:
    """The C compiler Python's build tools would use (``$CC``, else the one Python was built with)."""
    cc = os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "")
    words = shlex.split(cc)
    return shutil.which(words[0]) if words else None


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
    """``compiled 8/8``, or ``pure Python (why)``, or ``compiled k/8 (...)`` naming the plain ones."""
    missing = not_compiled()
    total = len(COMPILED_MODULES)
    if not missing:
        return f"compiled {total}/{total}"
    if pure_python_requested():
        why = f"{PURE_PYTHON_ENV} is set"
    elif c_compiler() is None:
        why = "no C compiler found"
    else:
        why = "the extensions were not built: run `pip install -e .` (or `pip install .`) again and read its log"
    if len(missing) == total:
        return f"pure Python ({why})"
    plain = ", ".join(m.removeprefix("robustcall.") for m in missing)
    return f"compiled {total - len(missing)}/{total} (plain Python: {plain}; {why})"
