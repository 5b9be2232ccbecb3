"""Errors that carry their exit code (DESIGN.md, Commands and exit codes)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # not portable, or verification failed
EXIT_BAD_INPUT = 2
EXIT_PAUSED = 3
EXIT_INTERNAL = 70


class DistillError(Exception):
    """Base error: a one-line message and an exit code; nothing was written."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadInput(DistillError):
    """The user's input cannot be read as a record (binary, non-UTF-8, too large, outside the repo)."""


class GitError(DistillError):
    """Git could not answer: missing revision, empty repository, not a repository."""


class ConfigError(DistillError):
    """The configuration does not parse or names an unknown setting."""


class RuleCrashed(DistillError):
    """A detector rule raised: fail closed, no certificate (flake8 PluginExecutionFailed)."""

    exit_code = EXIT_INTERNAL

    def __init__(self, rule_id: str, record: str, cause: BaseException) -> None:
        super().__init__(f"rule {rule_id} crashed on {record}: {type(cause).__name__}: {cause}")
        self.rule_id = rule_id

    def __reduce__(self) -> tuple[object, ...]:  # a worker process sends it to the caller whole
        return (_rule_crashed, (self.rule_id, self.message))


def _rule_crashed(rule_id: str, message: str) -> RuleCrashed:
    error = RuleCrashed.__new__(RuleCrashed)
    DistillError.__init__(error, message)
    error.rule_id = rule_id
    return error


class StoreConflict(DistillError):
    """The notes ref kept moving under us; the certificate was not written."""

    exit_code = EXIT_INTERNAL
