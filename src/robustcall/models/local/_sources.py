"""Local models beyond the embedded one: a GGUF file of your own, a GGUF from a Hugging Face repo
(through ``huggingface_hub``, used only when the Hub answers), and a ``llama-server`` you already
have (``--llama-server PATH`` or one on ``PATH``) instead of building one.

Adopted files are symlinked into the cache (``models/<name>.gguf``, ``bin/llama-server``), never
copied, and get the same ``.ok`` marker (size and mtime) as the embedded model, so a moved or
replaced file is noticed. ``--model local:<gguf>`` picks one: a path, or a name in ``models/``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from robustcall.models.local._artifacts import SERVER_NAME, LocalPaths, marker_ok, write_marker

GGUF_MAGIC = b"GGUF"
HF_DEFAULT_ENDPOINT = "https://huggingface.co"


class ModelSourceError(Exception):
    """A GGUF, a Hub repo or a server binary that cannot be used (the message says why)."""


def _link(target: Path, link: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    tmp = link.with_name(link.name + ".tmp")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(target)
    os.replace(tmp, link)


def check_gguf(path: Path) -> None:
    """Raise ``ModelSourceError`` unless ``path`` is a readable file starting with the GGUF magic."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise ModelSourceError(f"cannot read GGUF {path}: {exc.strerror or exc}") from None
    if head != GGUF_MAGIC:
        raise ModelSourceError(f"{path} is not a GGUF file (it does not start with {GGUF_MAGIC!r})")


def adopt_gguf(path: Path, paths: LocalPaths) -> Path:
    """Link a GGUF of your own into the cache's ``models/``; return the cached path."""
    path = path.expanduser().resolve()
    check_gguf(path)
    dest = paths.gguf.parent / (path.name if path.suffix == ".gguf" else path.name + ".gguf")
    if dest.resolve() != path:
        _link(path, dest)
    write_marker(dest, "")  # size and mtime; a multi-GB file is not hashed
    return dest


def hub_reachable(endpoint: str, timeout_s: float = 5.0) -> str | None:
    """``None`` when a TCP connection to the Hub's host opens within ``timeout_s``, else why not."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except OSError as exc:
        return f"{host}:{port}: {exc.strerror or exc}"


def download_hf_gguf(repo: str, filename: str | None, paths: LocalPaths) -> Path:
    """Fetch a GGUF from a Hugging Face model repo into the cache (``huggingface_hub``, only when the
    Hub is reachable); with no ``filename`` the repo's only ``.gguf`` (or its ``Q4_K_M`` one)."""
    try:  # first: without the extra, whether the Hub answers does not matter
        from huggingface_hub import HfApi, hf_hub_download
        from huggingface_hub.errors import HfHubHTTPError
    except ImportError:
        raise ModelSourceError("--hf-repo needs the `hf` extra: pip install 'robustcall[hf]'") from None
    endpoint = os.environ.get("HF_ENDPOINT") or HF_DEFAULT_ENDPOINT
    why = hub_reachable(endpoint)
    if why is not None:
        raise ModelSourceError(
            f"the Hugging Face Hub ({endpoint}) is not reachable ({why}): pass a local file with --gguf, "
            "or use the default offline setup"
        )
    try:
        if filename is None:
            ggufs = sorted(f for f in HfApi(endpoint=endpoint).list_repo_files(repo) if f.endswith(".gguf"))
            q4 = [f for f in ggufs if "q4_k_m" in f.lower()]
            picked = q4 if len(q4) == 1 else ggufs
            if len(picked) != 1:
                listed = ", ".join(ggufs) or "none"
                raise ModelSourceError(f"{repo} holds {len(ggufs)} .gguf files ({listed}): name one with --hf-file")
            filename = picked[0]
        local_dir = paths.root / "hub" / repo.replace("/", "--")
        got = Path(hf_hub_download(repo, filename, local_dir=str(local_dir), endpoint=endpoint))
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise ModelSourceError(f"cannot fetch {filename or '.gguf'} from {repo}: {str(exc).splitlines()[0]}") from None
    return adopt_gguf(got, paths)


def adopt_server(binary: Path, paths: LocalPaths) -> Path:
    """Use an existing ``llama-server`` instead of building one: link it into the cache after checking
    it runs (``--version``)."""
    found = shutil.which(str(binary)) if binary.parent == Path() else str(binary)
    if not found or not Path(found).is_file():
        raise ModelSourceError(f"no llama-server at {binary}")
    real = Path(found).expanduser().resolve()
    try:
        proc = subprocess.run([str(real), "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ModelSourceError(f"{real} does not run: {exc}") from None
    if proc.returncode != 0:
        raise ModelSourceError(f"{real} does not run (--version exited {proc.returncode}): {proc.stderr[-300:]}")
    if paths.server.resolve() != real:
        _link(real, paths.server)
    write_marker(paths.server, "")
    return paths.server


def server_on_path() -> Path | None:
    """A ``llama-server`` on ``PATH``, if any."""
    found = shutil.which(SERVER_NAME)
    return Path(found) if found else None


def resolve_gguf(name: str, paths: LocalPaths) -> Path:
    """The GGUF ``local:<name>`` means: a path to a file, or a name (with or without ``.gguf``) in
    the cache's ``models/``. Raises ``ModelSourceError``."""
    candidates = [Path(name).expanduser()]
    if "/" not in name:
        candidates += [paths.gguf.parent / name, paths.gguf.parent / f"{name}.gguf"]
    for path in candidates:
        if path.is_file():
            check_gguf(path)
            return path
    raise ModelSourceError(
        f"no GGUF {name!r} (looked for {', '.join(str(c) for c in candidates)}): "
        "give a path, or adopt it with `robustcall model setup --gguf PATH`"
    )


def server_ready(paths: LocalPaths) -> bool:
    return marker_ok(paths.server) and os.access(paths.server, os.X_OK)
