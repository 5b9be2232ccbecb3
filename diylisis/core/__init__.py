"""The pure core: protocol logic over frozen values, no I/O."""
