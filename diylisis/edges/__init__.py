"""The edges: where the package meets git, files and programs."""
