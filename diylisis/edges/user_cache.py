"""A per-user cache of values the package derives from its own data files, rebuilt when stale.

Each entry is one file, `<cache>/diylisis/<name>-<cache tag>.marshal`, holding the key it was
made for (`$XDG_CACHE_HOME`, else `~/.cache`). The format is the standard library's `marshal`,
which loads these tables several times faster than JSON and needs no module the commit-msg
hook does not load already; it is the format of the interpreter's own bytecode cache, so the
file name carries the interpreter's cache tag and the key the marshal version, as a `.pyc`
does. A reader whose key differs, or who finds the file missing, unreadable or malformed, gets
None and computes the value itself; a cache that cannot be written costs time, never a result.
Nothing in it is trusted further than its shape: the caller validates what it reads.
"""

from __future__ import annotations

import marshal
import os
import sys


def cache_dir() -> str:
    """The folder this user's cache entries live in."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "diylisis")


def entry_path(name: str) -> str:
    """The file of one cache entry for the running interpreter."""
    tag = sys.implementation.cache_tag or sys.implementation.name
    return os.path.join(cache_dir(), f"{name}-{tag}.marshal")


def _stamp(key: str) -> str:
    """key, with what else the bytes depend on: the marshal format's version."""
    return f"marshal {marshal.version}\n{key}"


def read(name: str, key: str) -> object | None:
    """The value stored under name when it was made for key (None: absent, stale or unreadable)."""
    try:
        with open(entry_path(name), "rb") as handle:
            body = marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(body, tuple) or len(body) != 2 or body[0] != _stamp(key):
        return None
    value: object = body[1]
    return value


def write(name: str, key: str, value: object) -> None:
    """Store value (built of dicts, lists, tuples, strings, numbers and None) under name for key,
    replacing the file whole so a concurrent reader sees the old or the new."""
    path = entry_path(name)
    partial = f"{path}.{os.getpid()}.partial"
    try:
        # a value marshal cannot write raises ValueError: it is then not cached, as when the disk is full
        data = marshal.dumps((_stamp(key), value))  # type: ignore[arg-type]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, "wb") as handle:
            handle.write(data)
        os.replace(partial, path)
    except (OSError, ValueError):
        try:
            os.unlink(partial)
        except OSError:
            pass  # nothing was written, or it is gone already
