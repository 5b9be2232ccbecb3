"""A per-user cache of values the package derives from its own data files, rebuilt when stale.

Each entry is one JSON file, `<cache>/diylisis/<name>-<cache tag>.json`, holding the key it
was made for (`$XDG_CACHE_HOME`, else `~/.cache`). A reader whose key differs, or who finds
the file missing, unreadable or malformed, gets None and computes the value itself; a cache
that cannot be written costs time, never a result. Nothing in it is trusted further than
its shape: the caller validates what it reads.
"""

from __future__ import annotations

import os
import sys

import msgspec  # loaded by the models already; the json module would cost the hook an import


def cache_dir() -> str:
    """The folder this user's cache entries live in."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "diylisis")


def entry_path(name: str) -> str:
    """The file of one cache entry for the running interpreter."""
    tag = sys.implementation.cache_tag or sys.implementation.name
    return os.path.join(cache_dir(), f"{name}-{tag}.json")


def read(name: str, key: str) -> object | None:
    """The value stored under name when it was made for key (None: absent, stale or unreadable)."""
    try:
        with open(entry_path(name), "rb") as handle:
            body = msgspec.json.decode(handle.read())
    except (OSError, msgspec.DecodeError):
        return None
    if not isinstance(body, dict) or body.get("key") != key or "value" not in body:
        return None
    value: object = body["value"]
    return value


def write(name: str, key: str, value: object) -> None:
    """Store value under name for key, replacing the file whole so a concurrent reader sees the old or the new."""
    path = entry_path(name)
    partial = f"{path}.{os.getpid()}.partial"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, "wb") as handle:
            handle.write(msgspec.json.encode({"key": key, "value": value}))
        os.replace(partial, path)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass  # nothing was written, or it is gone already
