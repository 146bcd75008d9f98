"""The one place where the ``robustcall`` command turns errors into messages and exit statuses.

Every error ends the same way: ``error: <message>`` on stderr, then a hint line when there is one,
nothing else. Exit statuses: 0 done; 1 an error the user can fix in the input (``UserError`` from any
layer, a file that cannot be read or written, a bad spec); 2 a bad command line (click's usage
errors: an unknown option, a missing or malformed argument); 3 infrastructure (an endpoint or a
database that cannot be reached, a run that finished with more infrastructure errors than
``--max-infra-errors`` allows); 4 a regression gate that failed (``robustcall compare --fail-on-drop`` /
``--fail-on-type``); 5 a comparison with nothing to judge (``report.NothingToJudgeError``: the same
folder twice, a run without a scorable record, a part one side lacks). Commands refuse with
:class:`CommandError` (or any ``UserError``),
never by printing and exiting themselves. Any other exception is a bug of ours and keeps its
traceback; ``--debug`` (or ``ROBUSTCALL_DEBUG=1``) shows the traceback of user errors too.
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

from robustcall.cli._extras import help_line, missing_extra_message
from robustcall.core import UserError

EXIT_USER_ERROR = 1
EXIT_USAGE = 2
EXIT_INFRA_ERRORS = 3
EXIT_REGRESSION = 4
"""``robustcall compare``: a figure dropped by more than the gate allows, significantly."""


class CommandError(UserError):
    """A command's refusal: ``error: <message>``, then ``hint`` on a line of its own when given."""

    def __init__(self, message: str, *, hint: str | None = None, exit_code: int = EXIT_USER_ERROR) -> None:
        super().__init__(message)
        self.hint = hint
        self.exit_code = exit_code


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


def describe(exc: BaseException) -> str:
    """An exception as a user reads it: ``No such file or directory: x.jsonl``, never ``[Errno 2] ...``."""
    got = user_message(exc)
    if got is not None:
        return got[0]
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror + (f": {exc.filename}" if exc.filename is not None else "")
    return str(exc) or type(exc).__name__


def _is_path(param: Any) -> bool:
    """Whether typer reads ``param`` as a path (its own checks: exists, file or folder)."""
    descriptor = getattr(param, "type_descriptor", None)  # typer >= 0.20 coerces by annotation
    return bool(getattr(descriptor, "is_path", False)) or type(getattr(param, "type", None)).__name__ == "Path"


def _input_error(exc: _click.exceptions.BadParameter) -> tuple[str, int, str | None] | None:
    """``(message, exit status, hint)`` when a ``BadParameter`` is really about the input, not the
    command line: click's own checks of a path (missing, a file where a folder is wanted), or a
    ``UserError`` / ``OSError`` a command turned into one without naming an option
    (``raise BadParameter(str(e))``). Those exit 1 whichever way the command raised them."""
    if isinstance(exc, _click.exceptions.MissingParameter):  # nothing given: a usage error
        return None
    if exc.param is not None and _is_path(exc.param):
        longs = [o for o in exc.param.opts if o.startswith("--")]
        name = longs[0] if longs else str(exc.param.name or "").upper()
        return f"{name}: {exc.message}", EXIT_USER_ERROR, None
    if exc.param is not None or exc.param_hint is not None:
        return None
    behind = exc.__cause__ or exc.__context__
    if behind is None:
        return None
    got = user_message(behind)
    if got is None and not isinstance(behind, OSError):
        return None
    message = describe(behind) if exc.message == str(behind) else exc.message  # no raw "[Errno 2] ..."
    return message, got[1] if got is not None else EXIT_USER_ERROR, getattr(behind, "hint", None)


def debug_requested(ctx: _click.Context | None) -> bool:
    """``--debug`` on the command line or ``ROBUSTCALL_DEBUG`` set to a true value."""
    if os.environ.get("ROBUSTCALL_DEBUG", "").lower() in ("1", "true", "yes"):
        return True
    return bool(ctx is not None and ctx.find_root().params.get("debug"))


def _fail(message: str, code: int, hint: str | None = None) -> NoReturn:
    typer.echo(f"error: {message.strip()}", err=True)
    if hint:
        typer.echo(hint, err=True)
    sys.exit(code)


def _leaf_path(group: _click.Command, ctx: _click.Context) -> str | None:
    """``pipe run`` for ``robustcall pipe run ...``: the subcommands named first on the command line."""
    names: list[str] = []
    cmd: Any = group
    for arg in [*ctx._protected_args, *ctx.args]:
        sub = cmd.get_command(ctx, arg) if hasattr(cmd, "get_command") else None
        if sub is None:
            break
        names.append(arg)
        cmd = sub
    return " ".join(names) or None


def _plain_help(cmd: Any, path: str = "") -> None:
    """Every page of help as click writes it (the columns wrap, nothing is ever cut: rich's tables
    cut option names and defaults to fit 80 columns), and every command that needs an extra ends
    its help with the line naming it (``_extras``)."""
    cmd.rich_markup_mode = None
    for name, sub in getattr(cmd, "commands", {}).items():
        here = f"{path} {name}".strip()
        if sub.short_help is None and sub.help:  # the commands' list: their first paragraph, wrapped, never cut
            sub.short_help = " ".join(sub.help.split("\n\n")[0].split())
        line = help_line(here)
        if line and line not in (sub.epilog or ""):
            sub.epilog = f"{sub.epilog}\n\n{line}" if sub.epilog else line
        _plain_help(sub, here)


class RobustcallGroup(TyperGroup):
    """The root command group: user errors from any subcommand end in one or two lines; a missing
    optional extra, wherever its import failed, in one line naming the extra (``_extras``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain_help(self)

    def invoke(self, ctx: _click.Context) -> Any:
        path = _leaf_path(self, ctx)
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort):
            raise
        except Exception as exc:
            extra = None if debug_requested(ctx) else missing_extra_message(exc, path)
            if extra is not None:
                _fail(extra, EXIT_USER_ERROR)
            if isinstance(exc, _click.exceptions.ClickException):
                raise
            got = user_message(exc)
            if got is None or debug_requested(ctx):
                raise
            _fail(*got, getattr(exc, "hint", None))

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
            as_input = _input_error(exc) if isinstance(exc, _click.exceptions.BadParameter) else None
            if as_input is not None:
                _fail(*as_input)
            hint = f"see `{exc.ctx.command_path} --help`" if exc.ctx is not None else None
            _fail(exc.format_message(), exc.exit_code, hint)
        except _click.exceptions.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except typer.Abort:
            typer.echo("aborted", err=True)
            sys.exit(1)
        # non-standalone click returns an Exit's code, or the command's return value (None)
        sys.exit(rv if isinstance(rv, int) else 0)


_skip_teardown = False


def skip_teardown() -> None:
    """Said by a command that finished holding nothing that needs finalizing (no temporary files,
    threads, servers or open output): the console script (``cli.main.main``) then leaves without
    Python's teardown of every imported module (60 ms after a command that imported the scoring
    path, a tenth of a whole-folder ``import bfcl --bfcl-out``). In-process callers (tests, ``app``)
    are unaffected."""
    global _skip_teardown
    _skip_teardown = True


def teardown_skipped() -> bool:
    return _skip_teardown
