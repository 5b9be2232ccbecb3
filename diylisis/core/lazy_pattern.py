"""A regular expression compiled on its first use, for patterns only some records need.

The `re` module compiles in pure Python, and a pattern with large character classes (the CJK
ranges of the path rules) costs milliseconds; the commit-msg hook judges one record, which
most such patterns never touch once the prefilter has skipped their rule. The source text
and flags are at hand without compiling (`pattern`, `flags`), as on `re.Pattern`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import Any


class LazyPattern:
    """re.compile(pattern, flags), made when a match is first asked for."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (the same object on every call)."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def compiled_for(self, text: str) -> re.Pattern[str]:
        """The compiled pattern to match text with: the one pattern here (CjkPattern picks by text)."""
        return self.compiled()

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled_for(text).finditer(text)

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled_for(text).search(text)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled_for(text).match(text, pos)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled_for(text).fullmatch(text)

    def findall(self, text: str) -> list[Any]:
        return self.compiled_for(text).findall(text)

    def split(self, text: str) -> list[str | Any]:
        return self.compiled_for(text).split(text)

    def sub(self, replacement: str, text: str) -> str:
        return self.compiled_for(text).sub(replacement, text)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags!r})"
