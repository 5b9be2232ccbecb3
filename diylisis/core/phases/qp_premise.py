"""Qp, the composite premise gate: the authority-copy answer and its terminal check (Rule 32).

The answer is Derived or AuthoritativeAt(location); before F7 an AuthoritativeAt location
must pass resolves_at and the rendered authority-copy line must be leak-clean, else Qp is
asked again with the failure cited (spec: AuthorityCopy, terminal check).
"""

from __future__ import annotations

from collections.abc import Callable

from diylisis.core.model import AuthoritativeAt, AuthorityCopy, Derived

DERIVED = "derived"  # how a Derived answer is written in the run file and the certificate


def parse_authority(answer: str) -> AuthorityCopy:
    """The author's Qp answer as an AuthorityCopy: 'derived' (or 'derived copy'), else a location."""
    text = answer.strip()
    if text.lower() in (DERIVED, "derived copy"):
        return Derived()
    return AuthoritativeAt(location=text)


def stored(copy: AuthorityCopy) -> str:
    """The AuthorityCopy as the certificate's authority_copy field holds it."""
    return DERIVED if isinstance(copy, Derived) else copy.location


def authority_line(authority_copy: str, target: str) -> str:
    """The inscribed authority-copy line of an externalized copy."""
    match parse_authority(authority_copy):
        case Derived():
            return f"Derived copy of {target}; the record itself is the authoritative copy"
        case AuthoritativeAt(location=location):
            return f"Derived copy, authoritative at {location}"
    raise AssertionError(authority_copy)


def authority_problem(copy: AuthorityCopy, target: str, resolves: Callable[[str], tuple[bool, str]],
                      dropped: tuple[str, ...]) -> str | None:
    """The terminal check: why this answer cannot be inscribed, or None."""
    if isinstance(copy, AuthoritativeAt):
        holds, detail = resolves(copy.location)
        if not holds:
            return f"{copy.location!r} does not resolve without this session ({detail})"
    line = authority_line(stored(copy), target)
    leaked = [token for token in dropped if token.strip() and token.strip() in line]
    if leaked:
        return f"the authority line would carry dropped content ({', '.join(leaked)})"
    return None
