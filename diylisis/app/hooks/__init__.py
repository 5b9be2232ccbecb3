"""The git hooks (DESIGN.md, hooks): one module per hook, what they share, and their scripts.

- `commit_msg`: judge the message being committed, write mechanical repairs, refuse the rest.
- `post_commit`: store the certificate commit-msg made, keyed by the message git stored.
- `pre_push`: verify the pushed commits' certificates, then push the certificate refs.
- `files`: the pre-commit framework's hook over the staged content of record files.
- `shared`: hook output, the skip rules, the gate a hook offers and the refusal report.
- `scripts`: the hook scripts install-hooks writes, and what is installed where.

Each entry point runs the real certification engine and returns an exit code; the click layer
in `diylisis.commands.hook` only parses arguments. This package module imports nothing, so a
hook loads only its own module: the commit-msg hook runs on every commit and imports neither
pygit2 nor rich nor click (the engine is reached through `certification`, and repository
questions go to the `git` binary).
"""
