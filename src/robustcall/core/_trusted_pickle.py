"""Pickles of pydantic records for robustcall's own caches, read back without validating them again.

A pydantic model pickles through ``__getstate__`` / ``__setstate__``, Python code run per object:
reading back the 3,641 BFCL single-turn samples that way takes longer than building them from the
wheel. Here each record is written as its class, its field values, the fields set and its extra
fields, and read back by building the object from those (``_unvalidated``, what ``model_construct``
does, faster).
Only for data robustcall built (and so validated) itself: nothing read back is checked again.
"""

from __future__ import annotations

import contextlib
import io
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from robustcall.core._jsonl import atomic_write_bytes
from robustcall.core._model import _unvalidated

T = TypeVar("T")


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, BaseModel) and obj.__pydantic_private__ is None:
            return _unvalidated, (type(obj), obj.__dict__, obj.__pydantic_fields_set__, obj.__pydantic_extra__)
        return NotImplemented


def dumps_trusted(obj: Any) -> bytes:
    """``obj`` pickled, its pydantic records as class, values and fields set (``loads_trusted``)."""
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def loads_trusted(blob: bytes) -> Any:
    """What ``dumps_trusted`` wrote; the records are built without validation."""
    return pickle.loads(blob)


_UNREADABLE = (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError,
               IndexError)  # fmt: skip
"""What reading back a missing, damaged or outdated pickle raises."""


def kept_or_built(path: Path, build: Callable[[], T], kind: type[T], *, trusted: bool = False) -> T:
    """The ``kind`` object pickled at ``path`` (a cache of data derived by robustcall itself), else
    ``build()``, written there atomically for next time. An entry that is missing, damaged or of
    another kind is built anew; one that cannot be written (a read-only cache, something that does
    not pickle) is only not kept. ``trusted``: pydantic records as ``dumps_trusted`` writes them."""
    try:
        blob = path.read_bytes()
        kept = loads_trusted(blob) if trusted else pickle.loads(blob)
        if isinstance(kept, kind):
            return kept
    except _UNREADABLE:
        pass  # not built yet, or unreadable: build it
    built = build()
    with contextlib.suppress(OSError, pickle.PicklingError, TypeError, AttributeError):
        dumped = dumps_trusted(built) if trusted else pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL)
        atomic_write_bytes(path, dumped)
    return built
