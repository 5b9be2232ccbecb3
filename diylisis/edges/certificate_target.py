"""F0's certificate_target guard, the half that looks at the file system (spec Phase 0).

The contract may name a file for the certificate; it must be writable and must not be the
record being certified (the referent, not the string: `./TASK.md` and `TASK.md` are one file).
"""

from __future__ import annotations

import os

from diylisis.core.model import Contract, RecordKind, Target
from diylisis.core.phases.f0_contract import ContractMisfit


def check_certificate_target(contract: Contract, target: Target, root: str | os.PathLike[str]) -> None:
    """F0: the certificate must not land inside the record it certifies (referent, not string)."""
    named = contract.certificate_target
    if not named or named in ("notes", "session"):
        return
    parent = os.path.dirname(os.path.join(root, named.split(":", 1)[-1])) or "."
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise ContractMisfit(f"certificate_target {named!r} cannot be written: {parent} is not a writable folder")
    if target.kind not in (RecordKind.FILE, RecordKind.MSGFILE, RecordKind.PRBODY):
        return
    if target.locator == "-":
        return
    if _same_file(root, named.split(":", 1)[-1], target.locator):
        raise ContractMisfit(
            f"certificate_target {named!r} is the record being certified; name another destination"
        )


def _same_file(root: str | os.PathLike[str], first: str, second: str) -> bool:
    one = os.path.realpath(os.path.join(root, first))
    two = os.path.realpath(os.path.join(root, second))
    if os.path.exists(one) and os.path.exists(two):
        return os.path.samefile(one, two)
    return os.path.normcase(one) == os.path.normcase(two)
