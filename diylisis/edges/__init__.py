"""The edges: code that touches processes, files and git on behalf of the pure core."""
