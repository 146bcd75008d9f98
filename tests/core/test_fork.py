"""``core.forked_map``: parts in forked children give what they give here, in order; a child's
error is raised here; one process (or one part) runs everything in this process."""

from __future__ import annotations

import os

import pytest

from robustcall.core import InputError, forked_map


def _pid_and_square(n: int) -> tuple[int, int]:
    return os.getpid(), n * n


def test_parts_run_in_children_and_come_back_in_order() -> None:
    got = forked_map(_pid_and_square, [1, 2, 3, 4, 5], processes=2)
    assert [sq for _, sq in got] == [1, 4, 9, 16, 25]
    pids = [pid for pid, _ in got]
    assert pids[0] == pids[2] == pids[4] == os.getpid()  # each round's first part here
    assert os.getpid() not in (pids[1], pids[3]) and pids[1] != pids[3]


def test_one_process_or_one_part_runs_here() -> None:
    assert {pid for pid, _ in forked_map(_pid_and_square, [1, 2, 3], processes=1)} == {os.getpid()}
    assert forked_map(_pid_and_square, [7], processes=4) == [(os.getpid(), 49)]
    assert forked_map(_pid_and_square, [], processes=4) == []


def _fails_on_two(n: int) -> int:
    if n == 2:
        raise InputError("results.json:3: not JSON")
    return n


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:
        super().__init__(f"{a}/{b}")


def _fails_oddly(n: int) -> int:
    if n == 2:
        raise _Unpicklable(1, 2)
    return n


def test_a_childs_error_is_raised_here_as_itself_or_named() -> None:
    with pytest.raises(InputError, match=r"results\.json:3: not JSON"):
        forked_map(_fails_on_two, [1, 2], processes=2)
    with pytest.raises(RuntimeError, match=r"_Unpicklable: 1/2"):
        forked_map(_fails_oddly, [1, 2], processes=2)
