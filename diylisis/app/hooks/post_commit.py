"""The post-commit hook: store the certificate the commit-msg hook made, keyed by the stored message."""

from __future__ import annotations

from diylisis.app.hooks.shared import Output, said_skipped
from diylisis.core.errors import EXIT_OK
from diylisis.edges.gitio import try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path


def post_commit(*, out: Output, cwd: str | Path = ".") -> int:
    """The post-commit hook: store the certificate the commit-msg hook made, keyed by the stored message."""
    from diylisis.edges import hook_certificates

    if said_skipped(out, "post-commit"):
        return EXIT_OK
    code, listing, _ = try_git(["rev-parse", "--show-toplevel", "--absolute-git-dir"], cwd)
    lines = listing.decode("utf-8", errors="surrogateescape").splitlines()
    if code != 0 or len(lines) < 2:
        return EXIT_OK  # not in a work tree: nothing the commit-msg hook could have left
    return hook_certificates.post_commit(lines[0], lines[1], out)
