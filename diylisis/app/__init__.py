"""The use cases: what a command or a hook asks for, over the edges; no click."""
