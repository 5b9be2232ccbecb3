"""Certificates signed with the signing git is configured for, and their signatures checked.

A signature covers a pre-authentication encoding of three fields: the domain string
DOMAIN, the digest of the record the note is stored under, and the certificate's canonical
bytes (codec.canonical_bytes). Each field is length-prefixed, so no two different triples
encode to the same bytes, and the digest ties the signature to the record: a signed
certificate copied under other content no longer verifies. The signature travels in the
note beside the certificate, in its "signature" field (docs/certificate.md).

The programs are the ones git signs commits with (`gpg.format`, `user.signingKey`,
`gpg.program`, `gpg.<format>.program`), read from git config, which a committed file cannot
set. ssh signatures use their own namespace, NAMESPACE, not git's "git": a certificate
signature can never pass for a commit or tag signature, nor one of those for a certificate.
"""

from __future__ import annotations

import enum
import os

from msgspec import Struct

from diylisis.core import codec
from diylisis.core.errors import BadInput

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

DOMAIN = b"diylisis-certificate-v1"
SCHEME = DOMAIN.decode("ascii")  # the envelope's "scheme": which encoding the signature covers
NAMESPACE = "diylisis-certificate"  # ssh-keygen -Y sign -n
FORMATS = ("openpgp", "ssh", "x509")
# the git config a signature is made and checked with is git_keys.SIGNING_KEYS, read with the rest
# gpg's owner-trust levels, lowest first, as git's gpg.minTrustLevel names them
TRUST_LEVELS = ("undefined", "never", "marginal", "fully", "ultimate")
DEFAULT_MIN_TRUST = "fully"
SIGN_TIMEOUT = 120.0  # a signing program may wait for a passphrase or the touch of a hardware key
CHECK_TIMEOUT = 30.0
MAX_SIGNATURE = 64 * 1024  # an armored ssh or openpgp signature is well under 2 kB


def pae(fields: Sequence[bytes]) -> bytes:
    """Pre-authentication encoding: the field count, then each field's length and bytes, every
    number 8 bytes little-endian (as PASETO's PAE)."""
    parts = [len(fields).to_bytes(8, "little")]
    for value in fields:
        parts += [len(value).to_bytes(8, "little"), value]
    return b"".join(parts)


def payload(note: Mapping[str, Any], digest: str) -> bytes:
    """The bytes a certificate's signature covers, for the record whose digest is given."""
    return pae((DOMAIN, digest.encode("utf-8"), codec.canonical_bytes(dict(note))))


# --- signing ----------------------------------------------------------------------------------


class Signer(Struct, frozen=True, kw_only=True):
    """How to sign: git's signing format, its program, and user.signingKey."""

    format: str
    program: str
    key: str | None = None  # a key id (openpgp, x509); a key file or a `key::` public key (ssh)


def wanted(values: Mapping[str, str], flag: bool | None) -> bool:
    """Whether to sign: the --sign/--no-sign flag, else git config distill.sign (default no)."""
    if flag is not None:
        return flag
    text = values.get("distill.sign", "").strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("", "false", "no", "off", "0"):
        return False
    raise BadInput(f"git config distill.sign is {text!r}; set it to true or false")


def program_for(format_name: str, values: Mapping[str, str]) -> str:
    """The program git would use for this signing format, as the absolute path PATH gave it the
    first time (gitio.program_path): a refuter dispatched before signing cannot plant another."""
    from diylisis.edges.gitio import program_path

    if format_name == "ssh":
        name = values.get("gpg.ssh.program") or "ssh-keygen"
    elif format_name == "x509":
        name = values.get("gpg.x509.program") or "gpgsm"
    else:
        name = values.get("gpg.openpgp.program") or values.get("gpg.program") or "gpg"
    return program_path(name)


def signer_from(values: Mapping[str, str]) -> Signer:
    """The signer git config describes; a setting that cannot sign is exit 2."""
    format_name = (values.get("gpg.format") or "openpgp").strip().lower()
    if format_name not in FORMATS:
        raise BadInput(f"git config gpg.format is {format_name!r}; signing knows openpgp, ssh and x509")
    key = values.get("user.signingkey") or None
    if format_name == "ssh" and not key:
        raise BadInput("signing with gpg.format=ssh needs git config user.signingKey "
                       "(a key file, or key::<public key> for a key in ssh-agent)")
    return Signer(format=format_name, program=program_for(format_name, values), key=key)


def sign(note: Mapping[str, Any], digest: str, signer: Signer, cwd: str) -> dict[str, Any]:
    """The note with its signature envelope added (any old one replaced); exit 2 when signing fails."""
    data = payload(note, digest)
    if signer.format == "ssh":
        value = _ssh_sign(data, signer, cwd)
    else:
        value = _gpg_sign(data, signer, cwd)
    return {**note, codec.SIGNATURE_FIELD: {"format": signer.format, "scheme": SCHEME, "value": value}}


def _ssh_sign(data: bytes, signer: Signer, cwd: str) -> str:
    import tempfile

    key = signer.key or ""
    with tempfile.TemporaryDirectory(prefix="distill-sign-") as scratch:
        literal = key.removeprefix("key::") if key.startswith(("key::", "ssh-")) else None
        if literal is not None:
            # a public key whose private half is in ssh-agent, as git takes it
            key_file = os.path.join(scratch, "key.pub")
            with open(key_file, "w", encoding="utf-8") as handle:
                handle.write(literal.strip() + "\n")
            extra = ["-U"]
        else:
            key_file = os.path.join(cwd, os.path.expanduser(key))
            extra = []
        args = [signer.program, "-Y", "sign", "-n", NAMESPACE, "-f", key_file, *extra]
        code, out, err = _run(args, data, cwd, SIGN_TIMEOUT, what="sign the certificate")
    if code != 0 or b"-----BEGIN SSH SIGNATURE-----" not in out:
        raise BadInput(f"signing the certificate with {signer.program} failed: {_reason(err, code)}; "
                       f"check git config user.signingKey ({key})")
    return out.decode("ascii", errors="replace")


def _gpg_sign(data: bytes, signer: Signer, cwd: str) -> str:
    args = [signer.program, "--status-fd=2", "-bsa"] + (["-u", signer.key] if signer.key else [])
    code, out, err = _run(args, data, cwd, SIGN_TIMEOUT, what="sign the certificate")
    if code != 0 or b"[GNUPG:] SIG_CREATED " not in err:
        raise BadInput(f"signing the certificate with {signer.program} failed: {_reason(err, code)}; "
                       "check git config user.signingKey and gpg.format")
    return out.decode("ascii", errors="replace")


# --- checking ---------------------------------------------------------------------------------


class SignatureState(enum.Enum):
    """What a certificate's signature shows."""

    UNSIGNED = "unsigned"
    VALID = "valid"  # a good signature by an allowed signer
    UNPINNED = "unpinned"  # a good ssh signature, but no allowed-signers file says who may sign
    BAD = "bad-signature"  # the signature does not cover this certificate for this record
    NOT_ALLOWED = "signer-not-allowed"
    UNCHECKED = "unchecked"  # the program to check it is missing or did not answer


class SignatureCheck(Struct, frozen=True, kw_only=True):
    """The verdict on one certificate's signature, naming its signer where one is known."""

    state: SignatureState
    format: str | None = None
    signer: str | None = None  # the principal (ssh allowed signers) or the key's user id (openpgp, x509)
    key: str | None = None  # the signing key's fingerprint or id
    detail: str = ""

    def words(self) -> str:
        """The verdict in plain words, e.g. "signed by alice@example.com (ssh key SHA256:…), valid"."""
        key = f"{self.format} key {self.key}" if self.key else f"a {self.format} key"
        match self.state:
            case SignatureState.UNSIGNED:
                return "unsigned"
            case SignatureState.VALID:
                return f"signed by {self.signer or self.key} ({key}), valid"
            case SignatureState.UNPINNED:
                return f"signed with {key}, valid, but not pinned: no allowed-signers file says who may sign"
            case SignatureState.BAD:
                return f"bad signature ({self.detail})"
            case SignatureState.NOT_ALLOWED:
                return f"signed with {key}, a signer not allowed ({self.detail})"
        return f"signed ({self.format}), not checked: {self.detail}"


class Policy(Struct, frozen=True, kw_only=True):
    """Who may sign, and whether a signature is required (verify --require-signed, [verify])."""

    require_signed: bool = False
    allowed_signers: str | None = None  # git's ssh allowed-signers file, an absolute path
    ssh_program: str = "ssh-keygen"
    openpgp_program: str = "gpg"
    x509_program: str = "gpgsm"
    # the formats whose checking program may run: ssh, and the verifier's own gpg.format; only
    # ssh while an allowed-signers file is in force (it names ssh keys, nothing else)
    formats: tuple[str, ...] = ("openpgp", "ssh")
    min_trust: str = DEFAULT_MIN_TRUST  # the lowest gpg owner trust a VALID openpgp/x509 signer has
    unusable: str | None = None  # why no signature can be checked now (a policy file is missing)

    def failure(self, check: SignatureCheck) -> str | None:
        """The failure this signature check is under this policy, or None.

        A bad signature or a signer the allowed-signers file does not name always fails; an
        unsigned, unpinned or unchecked certificate fails only when signatures are required.
        """
        if check.state in (SignatureState.BAD, SignatureState.NOT_ALLOWED):
            return f"{check.state.value}: {check.words()}"
        if self.require_signed and check.state is not SignatureState.VALID:
            return f"unsigned: signatures are required, and this certificate is {check.words()}"
        return None


def policy_from(values: Mapping[str, str], *, require_signed: bool, allowed_signers: str | None,
                unusable: str | None = None) -> Policy:
    """The policy with the checking programs, gpg.format and gpg.minTrustLevel of git config (values)."""
    own = (values.get("gpg.format") or "openpgp").strip().lower()
    if allowed_signers is not None:
        formats: tuple[str, ...] = ("ssh",)
    else:
        formats = tuple(sorted({"ssh", own} & set(FORMATS)))
    min_trust = (values.get("gpg.mintrustlevel") or DEFAULT_MIN_TRUST).strip().lower()
    if min_trust not in TRUST_LEVELS:
        raise BadInput(f"git config gpg.minTrustLevel is {min_trust!r}; set it to one of {', '.join(TRUST_LEVELS)}")
    return Policy(require_signed=require_signed, allowed_signers=allowed_signers,
                  ssh_program=program_for("ssh", values), openpgp_program=program_for("openpgp", values),
                  x509_program=program_for("x509", values), formats=formats, min_trust=min_trust,
                  unusable=unusable)


def check(note: Mapping[str, Any], digest: str, policy: Policy, cwd: str | None = None) -> SignatureCheck:
    """The signature of one certificate note, checked for the record whose digest is given.

    The note is untrusted: its envelope only selects which of the configured programs checks it,
    among the formats the policy allows (a format it does not allow runs nothing), and the
    signature goes to that program as a file. Nothing else of it is run."""
    envelope = note.get(codec.SIGNATURE_FIELD)
    if envelope is None:
        return SignatureCheck(state=SignatureState.UNSIGNED)
    if not isinstance(envelope, dict):
        return SignatureCheck(state=SignatureState.BAD, detail="the signature field is not an object")
    format_name = envelope.get("format")
    if format_name not in FORMATS:
        return SignatureCheck(state=SignatureState.BAD, detail=f"unknown signature format {format_name!r}")
    value = envelope.get("value")
    if envelope.get("scheme") != SCHEME or not isinstance(value, str) or not value.isascii() \
            or len(value) > MAX_SIGNATURE:
        return SignatureCheck(state=SignatureState.BAD, format=format_name,
                              detail=f"the signature is not a {SCHEME} signature")
    if policy.unusable is not None:
        return SignatureCheck(state=SignatureState.UNCHECKED, format=format_name, detail=policy.unusable)
    if format_name != "ssh" and policy.allowed_signers is not None:
        return SignatureCheck(state=SignatureState.NOT_ALLOWED, format=format_name,
                              detail=f"the allowed-signers file {policy.allowed_signers} names ssh keys "
                                     f"only, so an {format_name} signature is not accepted")
    if format_name not in policy.formats:
        return SignatureCheck(state=SignatureState.UNCHECKED, format=format_name,
                              detail=f"your git config gpg.format does not name {format_name}, so its "
                                     "signatures are not checked here")
    import tempfile

    try:
        data = payload(note, digest)
    except (TypeError, ValueError) as error:
        return SignatureCheck(state=SignatureState.BAD, format=format_name,
                              detail=f"the certificate has no canonical encoding ({error})")
    with tempfile.TemporaryDirectory(prefix="distill-verify-") as scratch:
        signature_file = os.path.join(scratch, "certificate.sig")
        with open(signature_file, "w", encoding="ascii") as handle:
            handle.write(value)
        try:
            if format_name == "ssh":
                return _ssh_check(data, signature_file, policy, cwd)
            program = policy.openpgp_program if format_name == "openpgp" else policy.x509_program
            return _gpg_check(data, signature_file, format_name, program, cwd, policy.min_trust)
        except _Unchecked as error:
            return SignatureCheck(state=SignatureState.UNCHECKED, format=format_name, detail=str(error))


def _ssh_check(data: bytes, signature_file: str, policy: Policy, cwd: str | None) -> SignatureCheck:
    program, allowed = policy.ssh_program, policy.allowed_signers
    if allowed is not None:
        code, out, _ = _run([program, "-Y", "find-principals", "-s", signature_file, "-f", allowed],
                            None, cwd, CHECK_TIMEOUT, what="check the signature")
        principals = out.decode("utf-8", errors="replace").split() if code == 0 else []
        for principal in principals:
            code, out, _ = _run([program, "-Y", "verify", "-f", allowed, "-I", principal, "-n", NAMESPACE,
                                 "-s", signature_file], data, cwd, CHECK_TIMEOUT, what="check the signature")
            if code == 0:
                return SignatureCheck(state=SignatureState.VALID, format="ssh", signer=principal,
                                      key=_ssh_fingerprint(out))
    code, out, err = _run([program, "-Y", "check-novalidate", "-n", NAMESPACE, "-s", signature_file],
                          data, cwd, CHECK_TIMEOUT, what="check the signature")
    if code != 0:
        return SignatureCheck(state=SignatureState.BAD, format="ssh",
                              detail="the certificate was changed after it was signed, or the signature "
                                     f"is not over it: {_reason(err or out, code)}")
    key = _ssh_fingerprint(out)
    if allowed is None:
        return SignatureCheck(state=SignatureState.UNPINNED, format="ssh", key=key)
    if principals:
        detail = (f"the entry for {', '.join(principals)} in {allowed} does not allow namespace "
                  f"{NAMESPACE} now")
    else:
        detail = f"key {key} is not in {allowed}"
    return SignatureCheck(state=SignatureState.NOT_ALLOWED, format="ssh", key=key, detail=detail)


def _ssh_fingerprint(out: bytes) -> str | None:
    """The key fingerprint in ssh-keygen's `Good "…" signature … with ED25519 key SHA256:…`."""
    words = out.decode("utf-8", errors="replace").split()
    return next((word for word in reversed(words) if word.startswith(("SHA256:", "MD5:"))), None)


def _gpg_check(data: bytes, signature_file: str, format_name: str, program: str, cwd: str | None,
               min_trust: str) -> SignatureCheck:
    code, out, err = _run([program, "--status-fd=1", "--verify", signature_file, "-"], data, cwd,
                          CHECK_TIMEOUT, what="check the signature")
    status: dict[str, list[str]] = {}
    for line in out.decode("utf-8", errors="replace").splitlines():
        if line.startswith("[GNUPG:] "):
            word, _, rest = line[len("[GNUPG:] "):].partition(" ")
            status.setdefault(word, rest.split(" ", 1) if word in ("GOODSIG", "BADSIG", "EXPKEYSIG", "REVKEYSIG")
                              else rest.split())
    name = next((status[word] for word in ("GOODSIG", "BADSIG", "EXPKEYSIG", "REVKEYSIG") if word in status), None)
    user = name[1] if name and len(name) > 1 else None
    key = status["VALIDSIG"][0] if status.get("VALIDSIG") else (name[0] if name else None)
    if "BADSIG" in status:
        return SignatureCheck(state=SignatureState.BAD, format=format_name, signer=user, key=key,
                              detail="the certificate was changed after it was signed, or the signature is not over it")
    for word, why in (("EXPKEYSIG", "the key has expired"), ("REVKEYSIG", "the key was revoked")):
        if word in status:
            return SignatureCheck(state=SignatureState.NOT_ALLOWED, format=format_name, signer=user, key=key,
                                  detail=why)
    if "GOODSIG" in status and "VALIDSIG" in status and code == 0:
        # a good signature by any key in the keyring is not yet a signer the verifier trusts
        trust = next((level for level in reversed(TRUST_LEVELS) if f"TRUST_{level.upper()}" in status),
                     "undefined")
        if TRUST_LEVELS.index(trust) < TRUST_LEVELS.index(min_trust):
            return SignatureCheck(state=SignatureState.NOT_ALLOWED, format=format_name, signer=user, key=key,
                                  detail=f"{program} trusts the key's owner {trust}, below {min_trust} "
                                         "(git config gpg.minTrustLevel)")
        return SignatureCheck(state=SignatureState.VALID, format=format_name, signer=user, key=key)
    if "NO_PUBKEY" in status or ("ERRSIG" in status and status["ERRSIG"][-1:] == ["9"]):
        missing = (status.get("NO_PUBKEY") or status.get("ERRSIG") or ["?"])[0]
        return SignatureCheck(state=SignatureState.NOT_ALLOWED, format=format_name, key=missing,
                              detail=f"key {missing} is not in your {program} keyring")
    return SignatureCheck(state=SignatureState.BAD, format=format_name, key=key,
                          detail=f"{program} does not accept it: {_reason(err, code)}")


class _Unchecked(Exception):
    """The checking program is missing or did not answer in time."""


def _run(args: list[str], data: bytes | None, cwd: str | None, timeout: float, *,
         what: str) -> tuple[int, bytes, bytes]:
    """(exit status, stdout, stderr) of a signing program given data on its stdin, run by the
    shared runner (its output capped); it keeps the terminal, where it may ask for a passphrase."""
    from diylisis.edges import confinement  # only when signing is on: the commit-msg hook does not load it otherwise

    try:
        outcome = confinement.run_program(args, cwd=cwd, env={**os.environ, "LC_ALL": "C"}, stdin=data or b"",
                                          timeout=timeout, own_session=False)
    except confinement.CannotRun as error:
        message = f"{args[0]} is not installed or cannot run ({error.reason}), so it cannot {what}"
        if what.startswith("sign"):
            raise BadInput(message + "; install it or set git config gpg.<format>.program") from None
        raise _Unchecked(message) from None
    if outcome.stop is not None or outcome.returncode is None:
        message = (f"{args[0]} did not finish within {timeout:.0f} s" if outcome.stop != "limit"
                   else f"{args[0]} printed more than {confinement.OUTPUT_LIMIT} bytes")
        if what.startswith("sign"):
            raise BadInput(f"cannot {what}: {message}")
        raise _Unchecked(message)
    return outcome.returncode, outcome.stdout, outcome.stderr


def _reason(err: bytes, code: int) -> str:
    lines = [line.strip() for line in err.decode("utf-8", errors="replace").splitlines()
             if line.strip() and not line.startswith(("[GNUPG:]", "Signing data on standard input"))]
    return lines[-1] if lines else f"exit status {code}"
