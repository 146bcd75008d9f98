"""The one place where the ``robustcall`` command turns errors into messages and exit statuses.

Exit statuses: 0 done; 1 an error the user can fix (``UserError`` from any layer, a file that
cannot be read or written); 2 a bad command line (click's usage errors); 3 a run that finished
but left more infrastructure errors than ``--max-infra-errors`` allows. Any other exception is a
bug of ours and keeps its traceback; ``--debug`` (or ``ROBUSTCALL_DEBUG=1``) shows the traceback
of user errors too.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import typer
from typer import _click  # typer's vendored click: its exceptions are what typer raises
from typer.core import TyperGroup

from robustcall.core import UserError

EXIT_USER_ERROR = 1
EXIT_USAGE = 2
EXIT_INFRA_ERRORS = 3

_FILE_ERRNOS = frozenset(
    {errno.ENOENT, errno.EACCES, errno.EPERM, errno.EISDIR, errno.ENOTDIR, errno.EEXIST, errno.ENOSPC, errno.EROFS}
)


def user_message(exc: BaseException) -> tuple[str, int] | None:
    """``(message, exit status)`` for an error the user caused, ``None`` for a bug of ours."""
    if isinstance(exc, UserError):
        return str(exc), exc.exit_code
    if isinstance(exc, OSError) and exc.errno in _FILE_ERRNOS and exc.filename is not None:
        where = f"{exc.filename}" + (f" -> {exc.filename2}" if exc.filename2 is not None else "")
        return f"{exc.strerror or 'cannot use'}: {where}", EXIT_USER_ERROR
    return None


def debug_requested(ctx: _click.Context | None) -> bool:
    """``--debug`` on the command line or ``ROBUSTCALL_DEBUG`` set to a true value."""
    if os.environ.get("ROBUSTCALL_DEBUG", "").lower() in ("1", "true", "yes"):
        return True
    return bool(ctx is not None and ctx.find_root().params.get("debug"))


def _fail(message: str, code: int, hint: str | None = None) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    if hint:
        typer.echo(hint, err=True)
    sys.exit(code)


class RobustcallGroup(TyperGroup):
    """The root command group: user errors from any subcommand end in one or two lines."""

    def invoke(self, ctx: _click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, _click.exceptions.ClickException):
            raise
        except Exception as exc:
            got = user_message(exc)
            if got is None or debug_requested(ctx):
                raise
            _fail(*got)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except _click.exceptions.NoArgsIsHelpError as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except _click.exceptions.UsageError as exc:
            hint = f"see `{exc.ctx.command_path} --help`" if exc.ctx is not None else None
            _fail(exc.format_message(), exc.exit_code, hint)
        except _click.exceptions.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except typer.Abort:
            typer.echo("aborted", err=True)
            sys.exit(1)
        # non-standalone click returns an Exit's code, or the command's return value (None)
        sys.exit(rv if isinstance(rv, int) else 0)
