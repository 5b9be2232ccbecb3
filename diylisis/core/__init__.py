"""The pure core (DESIGN.md, Layout): no pygit2, click or rich."""
