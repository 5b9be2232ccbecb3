"""Pure logic: no pygit2, click, rich, subprocess or file I/O."""
