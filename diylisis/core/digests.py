"""SHA-1 and SHA-256 without loading OpenSSL: the record digests, blob ids and pack checksums.

Importing hashlib loads the OpenSSL library (its _hashlib module), about 2.5 ms of every
commit-msg hook run. CPython also builds its own implementations of both hashes (_sha1, and
_sha256 or from 3.12 on _sha2), which load in a tenth of that. They are slower on large inputs
(about 0.7 ms against 0.1 ms for 150 kB), but records, notes and trees are short: on 300 bytes
either takes one or two microseconds. An interpreter built without them falls back to hashlib.
"""

from __future__ import annotations

TYPE_CHECKING = False  # true for type checkers only: the builtin modules have no stubs in typeshed
if TYPE_CHECKING:
    from hashlib import sha1, sha256  # the same constructors, typed
else:
    try:
        from _sha1 import sha1
    except ImportError:  # pragma: no cover - CPython builds _sha1 unless configured without it
        from hashlib import sha1

    try:
        from _sha256 import sha256  # CPython 3.11's builtin
    except ImportError:  # pragma: no cover - the module's name from 3.12 on, or no builtin at all
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256

__all__ = ["sha1", "sha256"]
