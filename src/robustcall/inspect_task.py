"""The Inspect AI task ``robustbench`` (``robustcall.inspect_task:robustbench``):

    inspect eval robustcall/inspect_task.py@robustbench -T bench=bench -T types=static --model openai/gpt-4o

Its dataset is a benchmark built by ``robustcall build``, its solver robustcall's own answer path
(the two-pass transition harness included) and its scorer robustcall's. Needs the ``inspect`` extra.
"""

from __future__ import annotations

from inspect_ai import Task, task

from robustcall.interop import robustbench_task


@task
def robustbench(bench: str, types: str | list[str] = "all", limit: int | None = None) -> Task:
    """RobustBench-TC over ``bench``: ``types`` as ``robustcall run --types``, ``limit`` clean samples."""
    return robustbench_task(bench, types, limit)
