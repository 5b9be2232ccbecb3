"""The edges (DESIGN.md, Layout): the I/O of the package."""
