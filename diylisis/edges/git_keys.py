"""The git config keys the certificate store and signing read, in a module that imports nothing.

The workspace reads them with the rest of a certification's config in one `git config` call; the
post-commit hook reads them alone, and must not load the workspace (its config stack) to do so.
"""

# The git config the certificate store reads (diylisis.edges.store): its notes ref, the object
# format, and user.name and user.email, which say whether git has an identity of its own.
STORE_KEYS = ("distill.notesref", "extensions.objectformat", "user.name", "user.email")
# The git config a signature is made and checked with (diylisis.edges.signing).
SIGNING_KEYS = ("distill.sign", "commit.gpgsign", "gpg.format", "user.signingkey", "gpg.program", "gpg.openpgp.program",
                "gpg.ssh.program", "gpg.x509.program", "gpg.ssh.allowedsignersfile", "gpg.mintrustlevel")
