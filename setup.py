"""Compile the scoring hot path with mypyc (docs/scoring.md: about 1.6x faster parse + score).

The modules stay plain, typed Python; mypyc turns them into C extensions at install time. Without a
C compiler, or with ``ROBUSTCALL_PURE_PYTHON=1``, the same modules run as Python: the extensions are
optional and the results are identical either way (the tests run on whichever was built, and
``tests/test_compiled_modules.py`` fails where a compiler exists but they were not built).
``robustcall --version`` says which ran.
"""

from __future__ import annotations

import json
import os
import runpy

from setuptools import Extension, setup

# the one list of compiled modules; _native.py imports only the standard library
NATIVE = runpy.run_path(os.path.join("src", "robustcall", "_native.py"))
COMPILED = ["src/" + name.replace(".", "/") + ".py" for name in NATIVE["COMPILED_MODULES"]]


def compiled_modules() -> list[Extension]:
    if NATIVE["pure_python_requested"]():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    # pip's isolated build environment holds setuptools and mypy only: the third-party packages the
    # modules import (pydantic, numpy) are missing there, so their types are Any (as all non-compiled
    # code is to mypyc), and the modules the compiled ones import are analysed but not judged
    # (follow-imports=silent): only the compiled modules themselves must type-check
    flags = ["--ignore-missing-imports", "--follow-imports=silent", "--config-file="]
    try:
        exts: list[Extension] = mypycify([*flags, *COMPILED], group_name="robustcall_native")
    except (Exception, SystemExit) as exc:  # mypyc refused the code (it exits on type errors)
        print(f"robustcall: not compiling with mypyc ({exc!r}); the modules run as plain Python")
        return []
    for ext in exts:
        ext.optional = True  # a failed compile leaves the pure-Python module in place
    # what the extensions are built from: robustcall runs a module's source instead of an extension
    # built from another (an editable install after an edit or a pull; robustcall._native)
    digests = NATIVE["source_digests"](NATIVE["PACKAGE"])
    with open(os.path.join("src", "robustcall", NATIVE["SOURCES_FILE"]), "w") as f:
        json.dump(digests, f, indent=1, sort_keys=True)
    return exts


setup(ext_modules=compiled_modules())
