"""The letters and punctuation of Chinese, Japanese and Korean text, as ranges of a regex character class.

One definition for every reader of CJK text: the detectors (where a path or a tracker key ends),
the language coverage (which script a line is written in) and excision (what a dropped token
leaves of its sentence). Each constant is the inside of a class: f"[{CJK_LETTERS}]".
"""

from __future__ import annotations

HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3"  # jamo, compatibility jamo, syllables
KANA = "\u3040-\u30ff\u31f0-\u31ff"  # hiragana, katakana, katakana phonetic extensions
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # extension A, unified and compatibility ideographs
CJK_LETTERS = HAN + KANA + HANGUL
# radicals, the CJK symbols and punctuation (、。「」), bopomofo and the enclosed and
# compatibility blocks, and the fullwidth forms (（），：)
CJK_PUNCTUATION = "\u2e80-\u2fff\u3000-\u303f\u3100-\u33ff\uff00-\uffef"
CJK_TEXT = CJK_LETTERS + CJK_PUNCTUATION
