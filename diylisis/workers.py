"""Long ranges judged chunk by chunk, in order, shared among forked worker processes (scan, verify).

The calling process judges the first chunk itself, then forks the workers: they start with
everything it loaded and warmed (modules, compiled patterns, lookup tables). Workers are
forked on Linux only, where fork is safe for the libraries this uses; elsewhere everything
runs in the calling process. A judge must not use a pygit2 repository opened before the
fork: each process opens its own (see `open_in_this_process`).
"""

from __future__ import annotations

from itertools import chain, islice

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, TypeVar

    T = TypeVar("T")
    R = TypeVar("R")


def usable_cpus() -> int:
    """CPUs this process may run on (at most 8 are used)."""
    import os

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(usable, 8))


def can_fork() -> bool:
    """Worker processes can be forked here (Linux; macOS frameworks are not safe across fork)."""
    import multiprocessing
    import sys

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def in_order(items: Iterable[T], judge: Callable[[list[T]], list[R]], *, jobs: int, chunk: int,
             parallel_from: int = 0) -> Iterator[R]:
    """judge's results for consecutive chunks of items, in the items' order; in jobs worker processes when jobs > 1.

    jobs 0 chooses one worker per usable CPU when there are parallel_from items or more, else
    none: below that, starting workers costs more than they save.
    """
    items = iter(items)
    if jobs == 0:
        head = list(islice(items, parallel_from))
        jobs = usable_cpus() if len(head) >= parallel_from else 1
        items = chain(head, items)
    chunks = _chunks(items, chunk)
    first = next(chunks, None)
    if first is None:
        return
    judged = judge(first)
    second = next(chunks, None)  # none: the first chunk was all, and no worker is worth starting
    chunks = chain([second], chunks) if second is not None else chunks
    if jobs <= 1 or second is None or not can_fork():
        yield from judged
        for part in chunks:
            yield from judge(part)
        return
    import multiprocessing

    # Fork before handing out any result: a consumer may start threads (a progress bar) once
    # it has some, and a process forked beside a running thread can inherit its locks held.
    pool = multiprocessing.get_context("fork").Pool(jobs, _start_worker, (judge,))
    try:
        results = pool.imap(_judge_in_worker, chunks)
        yield from judged
        for part in results:
            yield from part
    finally:
        pool.terminate()


def _chunks(items: Iterator[T], size: int) -> Iterator[list[T]]:
    while part := list(islice(items, size)):
        yield part


_WORKER: dict[str, Callable[[list[Any]], list[Any]]] = {}


def _start_worker(judge: Callable[[list[Any]], list[Any]]) -> None:
    _WORKER["judge"] = judge


def _judge_in_worker(part: list[Any]) -> list[Any]:
    return _WORKER["judge"](part)


_OPENED: dict[tuple[int, str], Any] = {}


def open_in_this_process(path: str) -> Any:
    """The pygit2 repository at path (gitio.open_repo), opened once per process (a forked worker never
    shares its parent's)."""
    import os

    key = (os.getpid(), path)
    if key not in _OPENED:
        from diylisis.gitio import open_repo

        _OPENED[key] = open_repo(path)
    return _OPENED[key]
