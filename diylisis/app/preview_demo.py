"""`git distill preview --demo`: a preview of three cache directions in a throw-away repository.

No agent and no network: a scripted probe command builds each placeholder skeleton, the spec
gate is approved and the Redis probe selected by an answers file, and the repository is removed
afterwards. Where user namespaces are missing the probes run unconfined (the demo repository is
a throw-away one) and the output says so.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from diylisis.app import preview as app
from diylisis.core.preview.model import Tier
from diylisis.edges import confinement, preview_note, probes

PROBE_SCRIPT = r"""#!/bin/sh
set -e
mkdir -p src data
printf 'Placeholder notice shared by every direction.\n' > NOTICE
printf '{"user": "%s-user"}\n' "$DISTILL_PROBE_MARKER" > data/seed.json
case "$DISTILL_PROBE" in
  0) printf 'import sqlite3\nDB = sqlite3.connect("cache.db")  # %s\n' "$DISTILL_PROBE_MARKER" > src/cache.py
     failure="rebuilt from the file on restart"; ops="nothing to run"
     unknown="does the host keep cache.db across deploys?"; route="Inquire" ;;
  1) printf 'import redis\nR = redis.Redis()  # %s\n' "$DISTILL_PROBE_MARKER" > src/cache.py
     printf 'services:\n  redis:\n    image: redis\n' > compose.yml
     failure="lost until the cache warms"; ops="a redis server (compose.yml)"
     unknown="who restarts redis at night?"; route="Gap" ;;
  *) printf 'import json\nFOLDER = "cache/"  # %s\n' "$DISTILL_PROBE_MARKER" > src/cache.py
     failure="rebuilt from the files on restart"; ops="nothing to run"
     unknown="how many files can one folder take?"; route="Gap" ;;
esac
paths='"src/cache.py"'
[ -f compose.yml ] && paths='"src/cache.py", "compose.yml"'
cat > PREVIEW.toml <<TOML
walkthrough = "src/cache.py holds the cache for: $DISTILL_CANDIDATE"
[axes.failure]
value = "$failure"
paths = ["src/cache.py"]
[axes.operations]
value = "$ops"
paths = [$paths]
[commitments]
language = "python"
[[unknowns]]
text = "$unknown"
route = "$route"
TOML
"""

CANDIDATES = ("a SQLite file cache", "a Redis server cache", "plain JSON files on disk")
AXES = ("failure: what happens to the cache when the app restarts?",
        "operations: what must run beside the app?")
ANSWERS = 'spec = "approve"\ndirection = { select = 1, deciding = ["failure", "operations"] }\n'


def demo(emit: Callable[[str], None]) -> int:
    """Run the demo preview; its exit code."""
    folder = Path(tempfile.mkdtemp(prefix="distill-preview-demo-"))
    try:
        repo = folder / "app"
        repo.mkdir()
        for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Demo"],
                     ["config", "user.email", "demo@example.com"]):
            probes.git(args, repo)
        (repo / "app.py").write_text("def page(name):\n    return render(name)  # to be cached\n", encoding="utf-8")
        probes.git(["add", "app.py"], repo)
        probes.git(["commit", "-q", "-m", "Add the page renderer"], repo)
        (folder / "probe.sh").write_text(PROBE_SCRIPT, encoding="utf-8")
        (folder / "answers.toml").write_text(ANSWERS, encoding="utf-8")
        confined = confinement.sandbox_available()
        emit(f"A throw-away repository at {repo}, a page renderer to cache; three directions:")
        for number, text in enumerate(CANDIDATES, 1):
            emit(f"  {number}. {text}")
        if not confined:
            emit("(no user namespaces here: the demo's probes run unconfined, its repository is fingerprinted)")
        request = app.Request(candidates=CANDIDATES, axes=AXES, tier=Tier.MOCKUP,
                              probe_cmd=f"sh {folder / 'probe.sh'}", answers=folder / "answers.toml",
                              timeout=30, unconfined=not confined)
        from diylisis.edges.run_files import new_run_id

        result = app.run_preview(repo, repo / ".git", request, new_run_id(), emit)
        base = probes.git(["rev-parse", "HEAD"], repo).decode().strip()
        lines = preview_note.read_lines(repo, preview_note.REF, base)
        stored = [json.loads(line) for line in lines]
        emit("verify: " + ("ok, the record is on the base commit" if any(r.get("run") == result.run for r in stored)
                           else "the record is missing"))
        return result.exit_code
    finally:
        confinement.remove_tree(folder)
        shutil.rmtree(folder, ignore_errors=True)
