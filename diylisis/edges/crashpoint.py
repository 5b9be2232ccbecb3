"""Named crash points on the repair path, where a crash-injection test can kill the process.

Off unless the environment variable DIYLISIS_CRASH_AT names a point when this module is
imported; reaching that point then sends this process SIGKILL, as the OOM killer or a
`kill -9` would stop it, so a test can check that every step of a repair leaves the
repository recoverable. Only the work-tree repair (`repair_commit`) imports it: the
commit-msg hook never does.
"""

from __future__ import annotations

import os

_AT = os.environ.get("DIYLISIS_CRASH_AT")


def reached(name: str) -> None:
    """Die here when DIYLISIS_CRASH_AT names this point; otherwise nothing."""
    if _AT == name:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
