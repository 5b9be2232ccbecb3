"""Long ranges judged chunk by chunk, in order, shared among forked worker processes (scan, verify).

The calling process judges the first items itself (a quarter of a chunk), then forks the
workers: they start with everything it loaded and warmed (modules, compiled patterns, lookup
tables), and the rest of the first chunk's work is shared. Workers are
forked on Linux only, where fork is safe for the libraries this uses; elsewhere everything
runs in the calling process. A judge must not use a pygit2 repository opened before the
fork: each process opens its own (see `open_in_this_process`).

Each worker has two pipes: chunks go down one, pickled with their index, and results come
back on the other. The calling process runs one loop without threads: it keeps every worker
two chunks ahead, writes without blocking (a worker busy writing a large result must not wait
for a caller stuck writing it a large chunk), and puts the results back in order.
multiprocessing.Pool did the same with three threads in the caller, whose hand-offs took
CPU time from the workers on a machine with two CPUs.
"""

from __future__ import annotations

from functools import partial
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
    import sys

    return sys.platform.startswith("linux")


def in_order(items: Iterable[T], judge: Callable[[list[T]], list[R]], *, jobs: int, chunk: int,
             parallel_from: int = 0) -> Iterator[R]:
    """judge's results for consecutive chunks of items, in the items' order; in jobs worker processes when jobs > 1.

    jobs 0 chooses one worker per usable CPU when there are parallel_from items or more, else
    none: below that, starting workers costs more than they save. An exception judge raises in
    a worker is raised here.
    """
    items = iter(items)
    if jobs == 0:
        head = list(islice(items, parallel_from))
        jobs = usable_cpus() if len(head) >= parallel_from else 1
        items = chain(head, items)
    forking = jobs > 1 and can_fork()
    # before a fork, a quarter of a chunk is enough to warm everything up
    first = list(islice(items, max(1, chunk // 4) if forking else chunk))
    chunks = _chunks(items, chunk)
    if not first:
        return
    judged = judge(first)
    second = next(chunks, None)  # none: the first items were all, and no worker is worth starting
    chunks = chain([second], chunks) if second is not None else chunks
    if not forking or second is None:
        yield from judged
        for part in chunks:
            yield from judge(part)
        return
    # Fork before handing out any result: a consumer may start threads (a progress bar) once
    # it has some, and a process forked beside a running thread can inherit its locks held.
    crew = _fork(jobs, judge)
    finished = False
    try:
        yield from judged
        yield from _judged_by(crew, chunks)
        finished = True
    finally:
        _stop(crew, finished)


def walk_in_order(walk: Any, judge: Callable[[list[tuple[str, bytes]]], list[R]], *, early_batch: int, jobs: int,
                  chunk: int, parallel_from: int = 0) -> Iterator[R]:
    """in_order over the (commit id, message) pairs of a started gitio.history.Walk.

    While the walk sorts, the messages along its tip's first-parent line are judged here,
    early_batch at a time (between two batches the walk checks whether the sort is done), and
    those the range holds are not judged again.
    """
    from operator import itemgetter

    early: dict[str, R] = {}
    by_id: Callable[[tuple[str, bytes]], str] = itemgetter(0)

    def while_sorting(tip_line: Iterator[tuple[str, bytes]]) -> None:
        while part := list(islice(tip_line, early_batch)):
            early.update(zip([commit_id for commit_id, _ in part], judge(part), strict=True))

    yield from in_order(walk.messages(while_sorting), partial(known_first, early, by_id, judge), jobs=jobs,
                        chunk=chunk, parallel_from=parallel_from)


def known_first(known: dict[Any, R], key: Callable[[T], Any], judge: Callable[[list[T]], list[R]],
                chunk: list[T]) -> list[R]:
    """judge's results for a chunk, taking from known those of the items whose key it holds (each
    result is handed out once); judge sees only the others, in order."""
    if not known:
        return judge(chunk)
    fresh = iter(judge([item for item in chunk if key(item) not in known]))
    return [known.pop(key(item)) if key(item) in known else next(fresh) for item in chunk]


def _chunks(items: Iterator[T], size: int) -> Iterator[list[T]]:
    while part := list(islice(items, size)):
        yield part


class WorkerDied(RuntimeError):
    """A worker process ended without answering (killed, or out of memory)."""


class _Worker:
    """The calling process's side of one worker: its pid, its pipe ends, and what is left to send it."""

    __slots__ = ("pid", "chunks", "results", "unsent")

    def __init__(self, pid: int, chunks: int, results: int) -> None:
        self.pid = pid
        self.chunks = chunks  # write end: chunks to judge
        self.results = results  # read end: judged chunks
        self.unsent = bytearray()  # framed chunks the pipe had no room for yet

    def died(self) -> WorkerDied:
        return WorkerDied(f"worker process {self.pid} ended before judging the records it was given")


_AHEAD = 2  # chunks each worker holds: it starts the next as soon as it sends a result
_PIPE_SIZE = 1 << 20  # Linux's default ceiling for an unprivileged pipe; 64 KiB holds less than a chunk


def _fork(jobs: int, judge: Callable[[list[Any]], list[Any]]) -> list[_Worker]:
    crew: list[_Worker] = []
    try:
        for _ in range(jobs):
            crew.append(_fork_one(judge, crew))
    except BaseException:
        _stop(crew, finished=False)  # a fork or a pipe refused (too many processes or files)
        raise
    return crew


def _fork_one(judge: Callable[[list[Any]], list[Any]], crew: list[_Worker]) -> _Worker:
    """One more worker; crew: those forked before it, whose pipe ends it closes."""
    import os

    opened: list[int] = []
    try:
        chunk_read, chunk_write = _pipe()
        opened += (chunk_read, chunk_write)
        result_read, result_write = _pipe()
        opened += (result_read, result_write)
        pid = os.fork()
    except BaseException:
        for fd in opened:
            os.close(fd)
        raise
    if pid == 0:  # the worker: it never returns into the caller's frames
        status = 1
        try:
            for fd in [chunk_write, result_read, *(fd for w in crew for fd in (w.chunks, w.results))]:
                os.close(fd)  # a worker holding another's write end would keep it from seeing the end
            status = _serve(judge, chunk_read, result_write)
        finally:
            os._exit(status)
    os.close(chunk_read)
    os.close(result_write)
    os.set_blocking(chunk_write, False)
    return _Worker(pid, chunk_write, result_read)


def _pipe() -> tuple[int, int]:
    import fcntl
    import os

    read, write = os.pipe()
    try:
        fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    except OSError:
        pass  # a lower limit set by the administrator: the pipe keeps its size, and works
    return read, write


def _serve(judge: Callable[[list[Any]], list[Any]], chunks: int, results: int) -> int:
    """A worker's loop: judge each chunk read until the caller closes the pipe. The exit status."""
    while (task := _read_frame(chunks)) is not None:
        index, part = task
        answer: tuple[int, list[Any] | None, Exception | None]
        try:
            answer = (index, judge(part), None)
        except Exception as error:  # raised again in the caller
            answer = (index, None, _portable(error))
        _write_all(results, _frame(answer))
    return 0


def _portable(error: Exception) -> Exception:
    """error itself when it survives pickling, else a RuntimeError that names it."""
    import pickle

    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def _judged_by(crew: list[_Worker], chunks: Iterator[list[Any]]) -> Iterator[Any]:
    """The results of every chunk, in order, from workers kept _AHEAD chunks ahead."""
    import selectors

    selector = selectors.DefaultSelector()
    for worker in crew:
        selector.register(worker.results, selectors.EVENT_READ, worker)
    sent = received = 0
    ready: dict[int, tuple[list[Any] | None, Exception | None]] = {}
    more = True

    def give(worker: _Worker) -> None:
        nonlocal sent, more
        part = next(chunks, None) if more else None
        if part is None:
            more = False
            return
        worker.unsent += _frame((sent, part))
        sent += 1
        _send_some(selector, worker)

    try:
        for worker in crew:
            for _ in range(_AHEAD):
                give(worker)
        while received < sent:
            for key, _ in selector.select():
                worker = key.data
                if key.fd == worker.chunks:
                    _send_some(selector, worker)
                    continue
                answer = _read_frame(worker.results)
                if answer is None:
                    raise worker.died()
                index, result, error = answer
                ready[index] = (result, error)
                give(worker)
            while received in ready:
                result, error = ready.pop(received)
                if error is not None:
                    raise error  # the first failing chunk in order, as judging them one by one finds
                yield from result or ()
                received += 1
    finally:
        selector.close()


def _send_some(selector: Any, worker: _Worker) -> None:
    """Write what the worker's pipe takes now; watch the pipe while some is left."""
    import os
    import selectors

    if worker.unsent:
        try:
            written = os.write(worker.chunks, worker.unsent)
        except BlockingIOError:
            written = 0
        except BrokenPipeError:
            raise worker.died() from None
        del worker.unsent[:written]
    watched = worker.chunks in selector.get_map()
    if worker.unsent and not watched:
        selector.register(worker.chunks, selectors.EVENT_WRITE, worker)
    elif not worker.unsent and watched:
        selector.unregister(worker.chunks)


def _stop(crew: list[_Worker], finished: bool) -> None:
    """End the workers: a closed pipe ends a finished one; one cut short is terminated."""
    import os
    import signal

    for worker in crew:
        os.close(worker.chunks)
        os.close(worker.results)
        if not finished:
            try:
                os.kill(worker.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for worker in crew:
        try:
            os.waitpid(worker.pid, 0)
        except ChildProcessError:
            pass  # reaped elsewhere


def _frame(value: Any) -> bytes:
    import pickle

    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(8, "little") + data


def _read_frame(fd: int) -> Any:
    """The next pickled value on a pipe, waiting for all of it; None at its end."""
    import pickle

    header = _read_exactly(fd, 8)
    if header is None:
        return None
    body = _read_exactly(fd, int.from_bytes(header, "little"))
    if body is None:
        return None
    return pickle.loads(body)


def _read_exactly(fd: int, size: int) -> bytes | None:
    import os

    parts = []
    while size:
        data = os.read(fd, min(size, _PIPE_SIZE))
        if not data:
            return None
        parts.append(data)
        size -= len(data)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    import os

    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_OPENED: dict[tuple[int, str], Any] = {}


def open_in_this_process(path: str) -> Any:
    """The pygit2 repository at path (gitio.open_repo), opened once per process (a forked worker never
    shares its parent's)."""
    import os

    key = (os.getpid(), path)
    if key not in _OPENED:
        from diylisis.edges.gitio import open_repo

        _OPENED[key] = open_repo(path)
    return _OPENED[key]
