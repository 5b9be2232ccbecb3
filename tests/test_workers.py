"""diylisis.workers.in_order: chunks judged in order, the first here, the rest in forked workers."""

from __future__ import annotations

import os

import pytest

from diylisis import workers


def _judge(part: list[int]) -> list[tuple[int, int]]:
    return [(n * n, os.getpid()) for n in part]


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_keep_the_items_order_and_the_first_chunk_is_judged_here(jobs: int) -> None:
    results = list(workers.in_order(range(1, 40), _judge, jobs=jobs, chunk=4))
    assert [square for square, _ in results] == [n * n for n in range(1, 40)]
    pids = [pid for _, pid in results]
    assert set(pids[:4]) == {os.getpid()}
    if jobs == 1 or not workers.can_fork():
        assert set(pids) == {os.getpid()}
    else:
        assert os.getpid() not in pids[4:]


def test_nothing_to_judge_starts_nothing() -> None:
    assert list(workers.in_order([], _judge, jobs=2, chunk=4)) == []


def test_a_worker_error_reaches_the_caller() -> None:
    def judge(part: list[int]) -> list[int]:
        if 30 in part:
            raise ValueError("no thirty")
        return part

    with pytest.raises(ValueError, match="no thirty"):
        list(workers.in_order(range(40), judge, jobs=2, chunk=4))
