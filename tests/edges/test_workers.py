"""diylisis.edges.workers.in_order: chunks judged in order, the first items here, the rest in forked workers."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

from diylisis.core.errors import RuleCrashed
from diylisis.edges import workers

pytestmark = pytest.mark.usefixtures("deadline")  # a regression in the worker loop fails, not hangs


def _judge(part: list[int]) -> list[tuple[int, int]]:
    return [(n * n, os.getpid()) for n in part]


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_keep_the_items_order_and_the_first_items_are_judged_here(jobs: int) -> None:
    results = list(workers.in_order(range(1, 40), _judge, jobs=jobs, chunk=8))
    assert [square for square, _ in results] == [n * n for n in range(1, 40)]
    pids = [pid for _, pid in results]
    assert set(pids[:2]) == {os.getpid()}  # a quarter of a chunk warms the caller up before the fork
    if jobs == 1 or not workers.can_fork():
        assert set(pids) == {os.getpid()}
    else:
        assert os.getpid() not in pids[2:]


@pytest.mark.parametrize("cpus", [1, 2])
def test_jobs_zero_starts_one_worker_per_cpu_from_the_range_length_on(
        cpus: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "usable_cpus", lambda: cpus)
    short = {pid for _, pid in workers.in_order(range(39), _judge, jobs=0, chunk=8, parallel_from=40)}
    assert short == {os.getpid()}
    pids = {pid for _, pid in workers.in_order(range(40), _judge, jobs=0, chunk=8, parallel_from=40)}
    assert len(pids - {os.getpid()}) == (cpus if cpus > 1 and workers.can_fork() else 0)


def test_nothing_to_judge_starts_nothing() -> None:
    assert list(workers.in_order([], _judge, jobs=2, chunk=4)) == []


def _raising(error: Exception) -> Callable[[list[int]], list[int]]:
    """A judge that raises error on the chunk holding 30, which a worker judges when workers run."""

    def judge(part: list[int]) -> list[int]:
        if 30 in part:
            raise error
        return part

    return judge


def test_a_worker_error_reaches_the_caller() -> None:
    with pytest.raises(ValueError, match="no thirty"):
        list(workers.in_order(range(40), _raising(ValueError("no thirty")), jobs=2, chunk=4))


@pytest.mark.skipif(not workers.can_fork(), reason="workers are forked on Linux only")
def test_a_rule_crash_in_a_worker_process_reaches_the_caller_whole() -> None:
    crash = RuleCrashed("EP507", "commit:0123abcd", OSError("tree unreadable"))
    with pytest.raises(RuleCrashed) as caught:
        list(workers.in_order(range(40), _raising(crash), jobs=2, chunk=4))
    assert caught.value.rule_id == "EP507" and caught.value.exit_code == 70
    assert caught.value.message == "rule EP507 crashed on commit:0123abcd: OSError: tree unreadable"


@pytest.mark.skipif(not workers.can_fork(), reason="workers are forked on Linux only")
def test_of_several_failing_chunks_the_first_in_order_is_raised() -> None:
    def judge(part: list[int]) -> list[int]:
        if part[-1] >= 30:
            if 30 in part:
                time.sleep(0.3)  # the chunks after it fail first
            raise ValueError(f"chunk from {part[0]}")
        return part

    with pytest.raises(ValueError, match="chunk from 29$"):
        list(workers.in_order(range(100), judge, jobs=3, chunk=4))


def _children() -> set[int]:
    """This process's child processes, exited and unreaped ones included (Linux /proc)."""
    found: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as listing:
            found.update(int(pid) for pid in listing.read().split())
    return found


@pytest.mark.skipif(not workers.can_fork(), reason="workers are forked on Linux only")
def test_chunks_and_results_larger_than_a_pipe_pass_both_ways() -> None:
    def judge(part: list[bytes]) -> list[bytes]:
        return [item[::-1] * 2 for item in part]

    items = [bytes([n]) * 700_000 for n in range(12)]  # a chunk of three is 2 MB, its result 4 MB
    before = _children()
    results = list(workers.in_order(items, judge, jobs=2, chunk=3))
    assert results == [item * 2 for item in items]
    assert _children() <= before


@pytest.mark.skipif(not workers.can_fork(), reason="workers are forked on Linux only")
def test_a_worker_that_dies_is_an_error_not_a_hang() -> None:
    def judge(part: list[int]) -> list[int]:
        if 30 in part:
            os._exit(9)
        return part

    before = _children()
    with pytest.raises(workers.WorkerDied, match="ended before judging"):
        list(workers.in_order(range(40), judge, jobs=2, chunk=4))
    assert _children() <= before


@pytest.mark.skipif(not workers.can_fork(), reason="workers are forked on Linux only")
def test_an_error_that_cannot_be_pickled_arrives_named() -> None:
    class Local(Exception):  # a class pickle cannot find by name
        pass

    with pytest.raises(RuntimeError, match="Local: thirty"):
        list(workers.in_order(range(40), _raising(Local("thirty")), jobs=2, chunk=4))


@pytest.mark.skipif(not workers.can_fork(), reason="workers are forked on Linux only")
def test_a_consumer_that_stops_early_leaves_no_worker_behind() -> None:
    before = _children()
    results = workers.in_order(range(10_000), _judge, jobs=2, chunk=4)
    assert [square for square, _ in (next(results) for _ in range(50))] == [n * n for n in range(50)]
    assert len(_children() - before) == 2
    results.close()
    assert _children() <= before


def test_known_results_are_handed_out_once_and_judge_sees_only_the_rest() -> None:
    asked: list[list[str]] = []

    def judge(chunk: list[str]) -> list[tuple[str, str]]:
        asked.append(chunk)
        return [(item, "judged") for item in chunk]

    known = {"b": ("b", "known"), "z": ("z", "known")}
    assert workers.known_first(known, str, judge, ["a", "b", "c"]) == [("a", "judged"), ("b", "known"), ("c", "judged")]
    assert asked == [["a", "c"]]
    assert known == {"z": ("z", "known")}
