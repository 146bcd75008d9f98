"""Errors a user can cause and fix: the ``robustcall`` command prints their message, never a traceback.

Lower layers raise these (or subclasses of them); ``cli/_errors.py`` is the one place that turns
them into a short message and an exit status. Each also derives from the builtin exception that
callers already catch (``ValueError``, ``FileNotFoundError``, ...), so library users see no change.
A message says what is wrong, where (file, line, field) and, where it helps, what to do.
"""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix: an argument, a file, a missing setup step, an endpoint."""

    exit_code: int = 1
    """What the ``robustcall`` command exits with."""
    hint: str | None = None
    """What to do about it, printed on a line after the message (when set)."""

    def __init__(self, *args: object, hint: str | None = None) -> None:
        super().__init__(*args)
        if hint is not None:
            self.hint = hint


class InputError(UserError, ValueError):
    """A bad argument value or bad file content (a spec, a settings key, a JSONL line)."""


class MissingInputError(UserError, FileNotFoundError):
    """A file or folder the command needs is not there."""

    def __str__(self) -> str:  # FileNotFoundError's own str() prints "[Errno ...]" only with errno
        return str(self.args[0]) if self.args else "missing input"


class ExistingOutputError(UserError, FileExistsError):
    """An output that would be overwritten (a run folder that already holds predictions)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "output exists"


class UnknownNameError(UserError, KeyError):
    """A name (perturbation type, environment, policy, source) that no registry knows."""

    def __str__(self) -> str:  # KeyError's str() would quote the whole message
        return str(self.args[0]) if self.args else "unknown name"


class NotReadyError(UserError, RuntimeError):
    """A setup step has not been done (``robustcall model setup``) or an endpoint cannot be used."""


class RunFailed(UserError, RuntimeError):
    """A run that cannot go on or ended badly (repeated identical endpoint failures, infra errors)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code
