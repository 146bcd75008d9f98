"""A package's names loaded from their modules on first use (PEP 562), so that importing the package
costs nothing until a name is used."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, modules: dict[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: a name of ``modules`` (name -> submodule, ``_x``) is
    imported from ``package._x`` when first asked for; any other name is an ``AttributeError``."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
