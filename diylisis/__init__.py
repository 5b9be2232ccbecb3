"""diylisis: `git distill` certifies that a record is portable for a declared recipient role."""

__version__ = "0.1.0"
