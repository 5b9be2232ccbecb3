"""The use cases: each runs one command's work over the core and the edges."""
