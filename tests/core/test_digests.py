"""digests: the builtin SHA-1 and SHA-256 give hashlib's digests."""

from __future__ import annotations

import hashlib

import pytest

from diylisis.core import digests


@pytest.mark.parametrize("data", [b"", b"abc", "caf\u00e9\n".encode(), bytes(range(256)) * 600])
def test_the_digests_are_hashlibs(data: bytes) -> None:
    assert digests.sha1(data).hexdigest() == hashlib.sha1(data).hexdigest()
    assert digests.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    incremental = digests.sha1()
    for start in range(0, len(data), 1000):
        incremental.update(data[start:start + 1000])
    assert incremental.digest() == hashlib.sha1(data).digest()
