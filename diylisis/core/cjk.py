"""The letters and punctuation of Chinese, Japanese and Korean text, as ranges of a regex character class.

One definition for every reader of CJK text: the detectors (where a path or a tracker key ends),
the language coverage (which script a line is written in) and excision (what a dropped token
leaves of its sentence). Each constant is the inside of a class: f"[{CJK_LETTERS}]". A pattern
whose classes hold them is a CjkPattern, which on text without CJK characters matches through a
twin that is cheap to compile.
"""

from __future__ import annotations

import re

from diylisis.core.lazy_pattern import LazyPattern

HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3"  # jamo, compatibility jamo, syllables
KANA = "\u3040-\u30ff\u31f0-\u31ff"  # hiragana, katakana, katakana phonetic extensions
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # extension A, unified and compatibility ideographs
CJK_LETTERS = HAN + KANA + HANGUL
# radicals, the CJK symbols and punctuation (、。「」), bopomofo and the enclosed and
# compatibility blocks, and the fullwidth forms (（），：)
CJK_PUNCTUATION = "\u2e80-\u2fff\u3000-\u303f\u3100-\u33ff\uff00-\uffef"
CJK_TEXT = CJK_LETTERS + CJK_PUNCTUATION

# Every code point of CJK_TEXT, as (first, last) pairs: the constants are runs of "first-last".
_RANGES = tuple((ord(CJK_TEXT[at]), ord(CJK_TEXT[at + 2])) for at in range(0, len(CJK_TEXT), 3))
_LOWEST = min(first for first, _ in _RANGES)


def has_cjk(text: str) -> bool:
    """Some character of text is in CJK_TEXT (a CJK letter or a CJK punctuation mark)."""
    if text.isascii():
        return False
    return any(first <= code <= last for code in map(ord, set(text)) if code >= _LOWEST for first, last in _RANGES)


# One CJK letter: in a text with no CJK character, a class of it alone matches nothing.
_STAND_IN = "\u4e00"


class CjkPattern(LazyPattern):
    """A LazyPattern whose source holds CJK_TEXT or CJK_LETTERS inside character classes, matched
    on a text without CJK characters through a twin that has one CJK letter in their place.

    On such a text the two match the same (no character of it is in the ranges either way) and
    the twin compiles in a fraction of the time: the `re` compiler visits every code point of a
    class's ranges, some 40,000 here, for each class. Most records hold no CJK text, and the
    commit-msg hook compiles what it matches in every run. Same methods as LazyPattern; the
    source (`pattern`) is the full one.
    """

    __slots__ = ("_plain",)

    def __init__(self, pattern: str, flags: int = 0) -> None:
        super().__init__(pattern, flags)
        plain = pattern.replace(CJK_TEXT, _STAND_IN).replace(CJK_LETTERS, _STAND_IN)
        if plain == pattern:
            raise ValueError("a CjkPattern's source holds neither CJK_TEXT nor CJK_LETTERS")
        self._plain = LazyPattern(plain, flags)

    def plain(self) -> re.Pattern[str]:
        """The twin used on texts without CJK characters, compiled."""
        return self._plain.compiled()

    def compiled_for(self, text: str) -> re.Pattern[str]:
        return self.compiled() if has_cjk(text) else self._plain.compiled()

    def __repr__(self) -> str:
        return f"CjkPattern({self.pattern!r}, {self.flags!r})"
