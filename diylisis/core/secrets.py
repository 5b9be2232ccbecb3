"""A secret scanner for text about to leave the author's machine (DESIGN.md, Trust).

It runs before any text is copied into a certificate or kept as a snapshot blob, and in
the commit-msg hook on every reading of the message git may store. Pure functions over
one string; the patterns are compiled once, and a text that holds none of the cheap
markers below is answered without running them (the hook runs on every commit).

A finding names the kind and the line and shows only a masked form of the value, so a
report never repeats the secret it found.
"""

from __future__ import annotations

import math

from msgspec import Struct

from diylisis.core.errors import EXIT_FAILED, DistillError
from diylisis.core.lazy_pattern import LazyPattern

# (kind, pattern): each pattern's group "value" is the secret itself
_TOKENS = (
    ("an AWS access key id", r"\b(?P<value>(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)"
                             r"[A-Z0-9]{16})\b"),
    ("a Google API key", r"\b(?P<value>AIza[0-9A-Za-z_\-]{35})(?![0-9A-Za-z_\-])"),
    ("a GitHub token", r"\b(?P<value>(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{36,255})\b"),
    ("a GitHub fine-grained token", r"\b(?P<value>github_pat_[A-Za-z0-9_]{22,255})\b"),
    ("a Slack token", r"\b(?P<value>xox[baprs]-[A-Za-z0-9-]{10,250})"),
    ("a Slack webhook URL", r"(?P<value>https://hooks\.slack\.com/(?:services|workflows|triggers)/"
                            r"[A-Za-z0-9+/_\-]{8,})"),
    ("a private key block", r"(?P<value>-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----)"),
    ("a Google service-account key id", r'"private_key_id"\s*:\s*"(?P<value>[0-9a-f]{40})"'),
)
# cheap substrings: a text with none of them cannot match a token pattern
_MARKERS = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA",
            "ASCA", "AIza", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "xox",
            "hooks.slack.com", "PRIVATE KEY", "private_key_id")
_TOKEN_PATTERN = LazyPattern("|".join(f"(?P<t{n}>{pattern.replace('?P<value>', f'?P<v{n}>')})"
                                      for n, (_, pattern) in enumerate(_TOKENS)))

# the name roots a secret-named key contains (`db_password`, `API_KEY`, `client_secret`, `authToken`)
_ROOTS = ("password", "passwd", "passphrase", "pwd", "secret", "token", "key")
# from a root: `<root>... = "value"`, `<root>...: value`, `<ROOT>...=value`, 12 or more non-space characters
_ASSIGNMENT = LazyPattern(
    r"(?i)(?:" + "|".join(_ROOTS) + r")[A-Za-z0-9_.-]*[\"']?\s*(?::=|=>|:|=)\s*"
    r"[\"'`]?(?P<value>[^\s\"'`,;]{12,})")
MIN_ENTROPY = 3.5  # bits per character; English words and paths fall below, random keys above
MIN_HEX_ENTROPY = 3.0  # a hex digest has 16 symbols, so at most 4 bits per character


class SecretFinding(Struct, frozen=True, kw_only=True):
    """One secret-looking value: what kind, on which line, and a masked form to show."""

    kind: str
    line: int
    masked: str

    def describe(self) -> str:
        """`line N: an AWS access key id (AKIA…, 20 characters)`: never the value itself."""
        return f"line {self.line}: {self.kind} ({self.masked})"


class SecretFound(DistillError):
    """Text about to be stored or published holds what looks like a secret: nothing is written."""

    exit_code = EXIT_FAILED


def mask(value: str) -> str:
    """The first four characters and the length: enough to find it, not enough to use it."""
    return f"{value[:4]}…, {len(value)} characters"


def entropy(value: str) -> float:
    """Shannon entropy of value in bits per character."""
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _random_looking(value: str) -> bool:
    """High entropy for its alphabet, letters and digits mixed, and not a dotted name or a path."""
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False  # an identifier (settings.SECRET_KEY) or a word, not a generated key
    if "/" in value and value.count("/") > 2:
        return False  # a path
    hexadecimal = all(c in "0123456789abcdefABCDEF" for c in value)
    return entropy(value) >= (MIN_HEX_ENTROPY if hexadecimal else MIN_ENTROPY)


def scan(text: str) -> tuple[SecretFinding, ...]:
    """Every secret-looking value in text, in the order they occur."""
    found: list[tuple[int, SecretFinding]] = []
    if any(marker in text for marker in _MARKERS):
        for match in _TOKEN_PATTERN.finditer(text):
            group = match.lastgroup or "t0"  # every alternative of the pattern is a named group
            number = int(group[1:])  # t<n>: the outer group of the pattern that matched
            value = match.group(f"v{number}")
            found.append((match.start(), SecretFinding(kind=_TOKENS[number][0], line=_line(text, match.start()),
                                                       masked=mask(value))))
    for start, value in _assignments(text):
        if any(start <= at < start + len(value) for at, _ in found) or not _random_looking(value):
            continue
        found.append((start, SecretFinding(kind="a high-entropy value assigned to a secret-named key",
                                           line=_line(text, start), masked=mask(value))))
    return tuple(finding for _, finding in sorted(found, key=lambda pair: pair[0]))


def _assignments(text: str) -> list[tuple[int, str]]:
    """(offset, value) of each `<secret-named key> = <value>`, tried only where a root occurs."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lower case is longer: offsets differ
        return [(m.start("value"), m.group("value")) for m in _ASSIGNMENT.finditer(text)]
    starts = set()
    for root in _ROOTS:
        at = lowered.find(root)
        while at >= 0:
            starts.add(at)
            at = lowered.find(root, at + 1)
    values, reached = [], -1
    for start in sorted(starts):
        if start < reached:
            continue  # inside a key name already read (`secret_key` holds `key`)
        match = _ASSIGNMENT.match(text, start)
        if match:
            values.append((match.start("value"), match.group("value")))
            reached = match.end()
    return values


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def refuse(data: bytes | str, what: str) -> None:
    """Raise SecretFound naming each finding when data holds a secret; return when it holds none."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    findings = scan(text)
    if findings:
        listed = "; ".join(finding.describe() for finding in findings)
        raise SecretFound(f"{what} holds what looks like a secret, so nothing was stored: {listed}. "
                          "Remove it (and revoke it if it was real), then try again")
