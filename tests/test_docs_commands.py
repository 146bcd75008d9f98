"""The ``robustcall`` lines of README's and docs/'s command blocks run as printed (issue 36 item 2).

Each page's lines run in the order printed, in one scratch folder beside a ``../shared`` that is the
shared data (as the pages assume), so a line reads what the lines above it wrote. Model endpoints
(``http://127.0.0.1:8000/v1`` and the like) are swapped for a mock OpenAI server; ``rlla_4k/`` holds
ToolRL's test split under both of the names the pages read. What cannot run on a CPU-only machine
without the network is skipped, each with its reason in ``SKIP``; a line that is skipped and a line
after it that reads its output are both listed.
"""

from __future__ import annotations

import fnmatch
import glob
import itertools
import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from robustcall.cli.main import app

sys.path.insert(0, str(Path(__file__).resolve().parent / "run"))
from mock_openai import mock_openai

REPO = Path(__file__).resolve().parents[1]
PAGES_FAILING: dict[str, str] = {}
"""Pages whose command blocks do not yet run as printed, with the first line that fails and why
(strict: the test fails once a page runs, so that it leaves this list)."""

PAGES = [
    pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=PAGES_FAILING[p.name]))
    if p.name in PAGES_FAILING
    else p
    for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
]

SKIP: list[tuple[str, str]] = [
    (r"--model local\b|-g local\b|judge:local|--generator local|=local\b", "the embedded local model"),
    (r"^robustcall (model setup|bench)\b", "builds or runs the embedded local model"),
    (r"^robustcall data fetch\b", "the network (PyPI)"),
    (r"^robustcall (leaderboard serve|envs serve|faults mcp-proxy|model serve)\b", "a server that runs until stopped"),
    (r"^robustcall train (grpo|sft)\b(?!.*--model tiny)", "a GPU (a 3B-8B model); tests/train runs --model tiny"),
    (
        r"^robustcall train verl\b(?!.*--dry-run)",
        "starts veRL on GPUs (tests/train/test_verl.py: README's launch, --dry-run)",
    ),
    (r"path/to/|<[a-z_]+>|\$(?!k\b)[a-zA-Z]|\bSPEC\b|\.\.\.|…", "a placeholder the reader fills in"),
    (r"runs/a runs/b|sizes\.yaml", "runs and a sizes file of the reader's own (tests/report run report)"),
    (
        r"compare (runs/baseline|runs/card-a|cards/main)\b",
        "the reader's own runs or cards (tests/report/test_compare_cli.py compares scripted ones)",
    ),
    (r"--from-file fc-reward-bench\.parquet", "FC-RewardBench's release file from the Hugging Face Hub"),
    (
        r"^robustcall rm build-bench --pool pool\.json\b(?!.*(-g|--generator) )",
        "reads pool.json, which the line above draws from the embedded local model",
    ),
    (r"agentgym:\w+@http", "an AgentGym server (tests/interop drive one)"),
    (r"--hf-repo|hf:(?!path)", "the Hugging Face Hub"),
]
"""(pattern on the command line, why it cannot run here)."""

KNOWN_BROKEN: dict[str, str] = {}
"""Lines that fail today, each with what is wrong (to be fixed, then removed from here)."""

_ENDPOINT = re.compile(r"http://[\w.$]+:\d+/v1")
SHARDS = 4
"""README's sharded run: ``$k`` = 0 .. 3, one line per shard (its endpoint ``node$k`` the mock)."""


def _commands(page: Path) -> list[str]:
    out: list[str] = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip().startswith("robustcall "):
                out.append(" ".join(map(_quote, shlex.split(line, comments=True))))
    return out


def _quote(word: str) -> str:
    """``shlex.quote``, except that a glob stays unquoted, as it was printed (a shell expands it)."""
    return word if re.fullmatch(r"[\w@%+=:,./*$-]+", word) else shlex.quote(word)


def _shell_words(line: str) -> list[str]:
    """The words a shell hands the command: an unquoted word with ``*`` is expanded (sorted, as bash
    does; kept as it is when nothing matches)."""
    out: list[str] = []
    for word in shlex.split(line):
        quoted = f"'{word}'" in line or f'"{word}"' in line
        hits = sorted(glob.glob(word)) if "*" in word and not quoted else []
        out += hits or [word]
    return out


def _skip_reason(line: str) -> str | None:
    if line in KNOWN_BROKEN:
        return f"known defect: {KNOWN_BROKEN[line]}"
    return next((why for pattern, why in SKIP if re.search(pattern, line)), None)


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Iterator[tuple[Path, str]]:
    """One folder for every page, README's first: the docs pages read what a reader who followed
    README has (``bench``, ``runs/my-model``); and the mock endpoint, also as ``OPENAI_BASE_URL``."""
    root = tmp_path_factory.mktemp("docs")
    work = root / "work"
    (work / "rlla_4k").mkdir(parents=True)
    (root / "shared").symlink_to(shared_data.parent)
    test_split = shared_data / "toolrl" / "dataset" / "rlla_4k" / "test.parquet"
    for name in ("train.parquet", "test.parquet"):  # users bring the 4k train split; here: the test split
        (work / "rlla_4k" / name).symlink_to(test_split)
    with mock_openai("[f(a=1)]") as url:
        yield work, url


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_line_of_the_page_runs_as_printed(page: Path, place: tuple[Path, str]) -> None:
    work, url = place
    lines = _commands(page)
    ran, skipped = [], []
    cwd = Path.cwd()
    os.chdir(work)
    try:
        unwritten: set[str] = set()  # what skipped lines would have written
        for line in lines:
            words = shlex.split(line)
            why = _skip_reason(line)
            if why is None and any(fnmatch.fnmatchcase(u, w) for u in unwritten for w in words):
                why = "reads what a skipped line writes"  # a glob over a skipped line's outputs too
            if why is not None:
                skipped.append((line, why))
                unwritten |= {w for o, w in itertools.pairwise(words) if o in ("--out", "-o")}
                continue
            for k in range(SHARDS if "$k" in line else 1):
                args = _shell_words(_ENDPOINT.sub(url, line).replace("$k", str(k)))[1:]
                res = CliRunner().invoke(app, args, env={"OPENAI_BASE_URL": url})
                assert res.exit_code == 0, f"{page.name}: `{line}` -> exit {res.exit_code}\n{res.output[-2000:]}"
            ran.append(line)
    finally:
        os.chdir(cwd)
    assert len(ran) + len(skipped) == len(lines)
    print(f"{page.name}: ran {len(ran)}, skipped {len(skipped)}:", *(f"  {w}: {ln}" for ln, w in skipped), sep="\n")
