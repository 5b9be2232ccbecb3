"""The secret scanner: each kind found with its line, masked, and ordinary prose left alone.

Every token-shaped value is built here from pieces and says EXAMPLE or fake: none is real.
"""

from __future__ import annotations

import time

import pytest

from diylisis.core import secrets

FAKE = {
    "an AWS access key id": "AKIA" + "EXAMPLE" + "7Q2Z4XKD9",
    "a Google API key": "AIza" + "Sy" + "EXAMPLE" + "fake" + "0" * 22,
    "a GitHub token": "ghp_" + "EXAMPLE" + "0" * 8 + "fakeTokenForTests" + "0" * 4,
    "a GitHub fine-grained token": "github_pat_" + "11EXAMPLE" + "0" * 13 + "_fake" + "x" * 20,
    "a Slack token": "xoxb-" + "0000000000-EXAMPLEfake",
    "a Slack webhook URL": "https://hooks.slack.com/services/" + "T0000/B0000/EXAMPLEfake",
    "a private key block": "-----BEGIN " + "RSA PRIVATE KEY-----",
}


@pytest.mark.parametrize("kind", sorted(FAKE))
def test_each_kind_is_found_on_its_line_and_masked(kind: str) -> None:
    value = FAKE[kind]
    found = secrets.scan(f"Rotate the credentials\n\nold value: {value} (revoked)\n")
    assert [(f.kind, f.line) for f in found] == [(kind, 3)]
    assert value not in found[0].describe()
    assert found[0].masked.startswith(value[:4]) and f"{len(value)} characters" in found[0].masked


def test_a_session_token_id_is_an_aws_key_too() -> None:
    assert [f.kind for f in secrets.scan("ASIA" + "EXAMPLE" + "ABCDEFGHI")] == ["an AWS access key id"]


def test_a_service_account_key_is_found_by_its_private_key() -> None:
    text = ('{"type": "service_account", "private_key_id": "' + "0123456789abcdef" * 2 + "01234567"
            + '", "private_key": "' + "-----BEGIN " + 'PRIVATE KEY-----\\nMIIEv...fake\\n"}')
    kinds = [f.kind for f in secrets.scan(text)]
    assert "a private key block" in kinds and "a Google service-account key id" in kinds


@pytest.mark.parametrize("text", [
    'password = "' + "Zq8xP2mN7" + 'vL4kR9tY1w"',
    "DB_PASSWORD=" + "Zq8xP2mN7" + "vL4kR9tY1w",
    "client_secret: " + "Qw3rtyUiop" + "9876Zx",
    "api_key => '" + "d41d8cd98f00b204" + "e9800998ecf8427e'",
    "authToken := " + "Mz9Kp2Lq8Vn4" + "Xw7Rb1Ty",
])
def test_a_high_entropy_value_assigned_to_a_secret_name_is_found(text: str) -> None:
    found = secrets.scan(text)
    assert [f.kind for f in found] == ["a high-entropy value assigned to a secret-named key"]


@pytest.mark.parametrize("text", [
    "Retry failed uploads with exponential backoff\n\nThe token refresh path is unchanged.\n",
    "password: hunter2\n",
    "token = the refresh token of the session\n",
    "secret_key = settings.SECRET_KEY_FROM_ENVIRONMENT\n",
    "key: docs/architecture/storage-layout.md\n",
    "The keyboard shortcut = ctrl+shift+p\n",
    "Bump AKIAXXXX in the docs example to a placeholder\n",
    "See commit 3f2a9c1d7e5b4a6f8091a2b3c4d5e6f708192a3b for the ghp_ prefix change\n",
])
def test_ordinary_text_has_no_finding(text: str) -> None:
    assert secrets.scan(text) == ()


def test_refuse_names_each_finding_and_never_the_value() -> None:
    value = FAKE["an AWS access key id"]
    with pytest.raises(secrets.SecretFound) as raised:
        secrets.refuse(f"one\ntwo {value}\n".encode(), "the commit message")
    assert raised.value.exit_code == 1
    assert "line 2: an AWS access key id" in raised.value.message and value not in raised.value.message
    secrets.refuse(b"nothing secret here\n", "the commit message")  # returns quietly


def test_entropy_separates_words_from_keys() -> None:
    assert secrets.entropy("aaaaaaaaaaaa") == 0
    assert secrets.entropy("correcthorse") < secrets.MIN_ENTROPY < secrets.entropy("Zq8xP2mN7vL4kR9tY1w")


def test_the_scan_is_cheap_enough_for_the_commit_msg_hook() -> None:
    message = ("Retry failed uploads with exponential backoff\n\nUploads that fail with a 5xx "
               "response are retried up to five times; the token and key caches are unchanged.\n") * 12
    secrets.scan(message)
    started = time.perf_counter()
    for _ in range(50):
        secrets.scan(message)
    per_scan = (time.perf_counter() - started) / 50
    assert per_scan < 0.005, f"{per_scan * 1000:.2f} ms for a {len(message)}-character message"
