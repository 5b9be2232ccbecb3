"""What verify trusts beyond a certificate's own fields: the signature policy and re-detection.

The policy comes from flags over the repository's `[verify]` over git config; the detector
is the repository's, under its `[detect]` settings. verify, show and the pre-push hook
read both from here.
"""

from __future__ import annotations

import os

from diylisis.core.errors import BadInput, ConfigError

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from typing import Any

    from diylisis.app import verification
    from diylisis.core.model import Finding, RepoContext, Snapshot
    from diylisis.edges import signing
    from diylisis.edges.workspace import Workspace


def trust_for(workspace: Workspace, *, require_signed: bool = False,
              allowed_signers: Path | None = None) -> verification.Trust:
    """verification.Trust: the signature policy and the record's detector under the repository's
    [detect] settings."""
    from diylisis.app import verification
    from diylisis.core.detectors import detect_with_suppressions

    policy = signature_policy(workspace, require_signed=require_signed, allowed_signers=allowed_signers)
    detect_settings = workspace.config.detect_settings()

    def detect(snapshot: Snapshot, context: RepoContext | None) -> tuple[Finding, ...]:
        return detect_with_suppressions(snapshot, context, detect_settings)[0]

    return verification.Trust(policy=policy, detect=detect)


def signature_policy(workspace: Workspace, *, require_signed: bool = False,
                     allowed_signers: Path | None = None, strict: bool = True) -> signing.Policy:
    """signing.Policy: --require-signed or [verify] require_signed; the allowed-signers file of
    --allowed-signers, else [verify] allowed_signers (inside the repository), else git config
    gpg.ssh.allowedSignersFile; the checking programs of git config.

    A configured allowed-signers file that is missing is exit 2 when strict (verify); otherwise
    (show, brief, which only describe) every signature is reported unchecked, with the reason."""
    from diylisis.edges import signing

    try:
        return _policy(workspace, require_signed=require_signed, allowed_signers=allowed_signers)
    except (BadInput, ConfigError) as error:
        if strict or allowed_signers is not None:
            raise
        return signing.policy_from(workspace.git_config, require_signed=False, allowed_signers=None,
                                   unusable=error.message)


def signature_checks(workspace: Workspace, notes: Sequence[Mapping[str, Any]],
                     digest: str) -> list[signing.SignatureCheck]:
    """Each note's signature, checked against the allowed signers verify would use (show, brief:
    a missing allowed-signers file makes them unchecked, not an error)."""
    from diylisis.core import codec
    from diylisis.edges import signing

    # the allowed signers are looked up only when there is a signature to check against them
    signed = any(codec.SIGNATURE_FIELD in note for note in notes)
    policy = signature_policy(workspace, strict=False) if signed else signing.Policy()
    return [signing.check(note, digest, policy) for note in notes]


def _policy(workspace: Workspace, *, require_signed: bool, allowed_signers: Path | None) -> signing.Policy:
    from diylisis.edges import signing

    settings = workspace.config.verify
    values = workspace.git_config
    if allowed_signers is not None:
        allowed: str | None = os.path.abspath(allowed_signers)
        if not os.path.isfile(os.path.abspath(allowed_signers)):
            raise BadInput(f"--allowed-signers {allowed_signers}: no such file")
    elif settings.allowed_signers is not None:
        allowed = os.path.join(workspace.root, settings.allowed_signers)
        if not os.path.isfile(allowed):
            raise ConfigError(f"{workspace.config.source}: [verify] allowed_signers names "
                              f"{settings.allowed_signers}, which is not a file in the work tree")
    elif values.get("gpg.ssh.allowedsignersfile"):
        allowed = os.path.join(workspace.root, os.path.expanduser(values["gpg.ssh.allowedsignersfile"]))
        if not os.path.isfile(allowed):
            raise BadInput(f"git config gpg.ssh.allowedSignersFile names {allowed}, which is not a file")
    else:
        allowed = None
    return signing.policy_from(values, require_signed=require_signed or settings.require_signed,
                               allowed_signers=allowed)


def signature_json(signature: signing.SignatureCheck) -> dict[str, str | None]:
    """A signature check as JSON: its state, format, signer, key and the verdict in words."""
    return {"state": signature.state.value, "format": signature.format, "signer": signature.signer,
            "key": signature.key, "words": signature.words()}
