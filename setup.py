"""Compile the scoring hot path with mypyc (docs/scoring.md: about 1.6x faster parse + score).

The modules stay plain, typed Python; mypyc turns them into C extensions at install time. Without a
C compiler, or with ``ROBUSTCALL_PURE_PYTHON=1``, the same modules run as Python: the extensions are
optional and the results are identical either way (the tests run on whichever was built).
"""

from __future__ import annotations

import os

from setuptools import Extension, setup

COMPILED = [
    "src/robustcall/formats/_fastpy.py",
    "src/robustcall/formats/_canonical.py",
    "src/robustcall/formats/_parse.py",
    "src/robustcall/score/_bfcl_ast.py",
    "src/robustcall/score/_scorer.py",
    "src/robustcall/score/_batch.py",
    "src/robustcall/score/_error_modes.py",
]


def compiled_modules() -> list[Extension]:
    if os.environ.get("ROBUSTCALL_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    # types of third-party packages are not needed to compile (they are absent from the isolated
    # build environment): mypyc treats them as Any, as it does all non-compiled code
    try:
        exts: list[Extension] = mypycify(
            ["--ignore-missing-imports", "--config-file=", *COMPILED], group_name="robustcall_native"
        )
    except (Exception, SystemExit) as exc:  # mypyc refused the code (it exits on type errors)
        print(f"robustcall: not compiling with mypyc ({exc!r}); the modules run as plain Python")
        return []
    for ext in exts:
        ext.optional = True  # a failed compile leaves the pure-Python module in place
    return exts


setup(ext_modules=compiled_modules())
