"""The Inspect AI task ``robustbench`` (``robustcall.inspect_task:robustbench``), registered under
Inspect's ``inspect_ai`` entry point once robustcall is installed:

    OPENAI_API_KEY=none inspect eval robustcall/robustbench -T types=static \\
        --model openai/Qwen3-8B --model-base-url http://127.0.0.1:8000/v1

Its dataset is a benchmark built by ``robustcall build`` (``-T bench=DIR``; default ``./bench``,
else ``./runs/bench/bench``, where ``robustcall bench`` builds it), its solver robustcall's own answer path
(the two-pass transition harness included) and its scorer robustcall's. Needs the ``inspect`` extra.
"""

from __future__ import annotations

from inspect_ai import Task, task

from robustcall.interop import robustbench_task


@task
def robustbench(bench: str | None = None, types: str | list[str] = "all", limit: int | None = None) -> Task:
    """RobustBench-TC over ``bench`` (default ``./bench``, else ``./runs/bench/bench``): ``types`` as
    ``robustcall run --types``, ``limit`` clean samples."""
    return robustbench_task(bench, types, limit)
