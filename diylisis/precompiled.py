"""Regular expressions shipped compiled, so a process that judges one record does not compile them.

Python compiles a pattern in pure Python (re._parser, re._compiler); the commit-msg hook
compiles about ninety, the lexicon alternations among them, which cost it about 25 ms of a
run. The compiler's output (the regex engine's code words, group count and group names)
depends only on the pattern, its flags and the interpreter. `python -m diylisis.precompiled
--write` stores it for the running interpreter in data/patterns.<cache tag>.bin. install()
makes the `re` module's own cache, where re.compile, re.search and the rest look first,
answer a miss on a stored pattern by handing the engine the stored code, so a run builds
only the patterns it uses. An interpreter without a matching file, or with another engine
version, compiles everything as before; DIYLISIS_PRECOMPILED=0 turns the file off.
"""

from __future__ import annotations

import os
import sys

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
FORMAT = 1
installed = 0  # how many patterns install() put in re's cache


def data_path() -> str:
    """The file for the running interpreter (cpython-311 and the like)."""
    return os.path.join(DATA_DIR, f"patterns.{sys.implementation.cache_tag}.bin")


def install() -> int:
    """Let re's cache answer from the stored patterns; how many (0: no file for this interpreter, or unusable)."""
    global installed
    if os.environ.get("DIYLISIS_PRECOMPILED") == "0":
        return 0
    try:
        with open(data_path(), "rb") as handle:
            data = handle.read()
    except OSError:
        return 0
    import marshal
    import re

    try:
        header, entries = marshal.loads(data)
        if header != _header() or type(re._cache) is not dict:  # type: ignore[attr-defined]
            return 0
        stored = {(type(entry[0]), entry[0], entry[1]): entry for entry in entries}  # re's own cache key
    except (ValueError, TypeError, EOFError, IndexError):
        return 0
    if sys.version_info < (3, 12):
        # re._compile looks its cache up by subscript, so a miss can be answered from the file:
        # only the patterns a run uses are handed to the engine
        re._cache = _StoredCache(re._cache, stored)  # type: ignore[attr-defined]
    else:  # a later re looks up with dict.pop, which never asks __missing__: fill the cache now
        for key, entry in stored.items():
            if (compiled := _compiled(entry)) is not None:
                re._cache[key] = compiled  # type: ignore[attr-defined]
    installed = len(stored)
    return installed


class _StoredCache(dict):
    """re's pattern cache that answers a miss from the stored compiled forms."""

    def __init__(self, current: dict, stored: dict) -> None:
        super().__init__(current)
        self.stored = stored

    def __missing__(self, key: object) -> object:
        entry = self.stored.get(key)
        compiled = _compiled(entry) if entry is not None else None
        if compiled is None:
            raise KeyError(key)  # re compiles the pattern itself
        self[key] = compiled
        return compiled


def _compiled(entry: tuple) -> object | None:
    """The engine's Pattern for a stored entry (None when the entry does not load)."""
    import _sre

    pattern, _, final_flags, code, groups, groupindex, indexgroup = entry
    try:
        # the code words as ints: a memoryview cast reads them as array would, without importing it
        words = memoryview(code).cast(_WORD).tolist()
        return _sre.compile(pattern, final_flags, words, groups, groupindex, indexgroup)
    except (ValueError, TypeError, RuntimeError, OverflowError):
        return None


_WORD = "I"  # the engine's code words are _sre.CODESIZE bytes: 4 on every build this was written for


def _header() -> tuple[object, ...]:
    import _sre

    return (FORMAT, sys.implementation.cache_tag, sys.version_info[:2], _sre.MAGIC, _sre.CODESIZE)


def collect() -> list[tuple[str | bytes, int]]:
    """(pattern, flags) of everything diylisis code on the commit-msg path compiles, found by doing its work once.

    Imports the modules on that path, compiles every lexicon key's alternation and the word
    lists' patterns for the shipped languages, and judges a clean message, recording each
    pattern that code inside this package compiles, and those of the json package, which the
    store and the codec import on that path (fixed strings in the interpreter's own library).
    What the environment compiles (site hooks of an editable install) is left out, so the
    file is the same wherever it is made; run in a fresh interpreter with DIYLISIS_PRECOMPILED=0.
    """
    import re

    import diylisis  # the whole package, wherever in it this module sits

    package = os.path.dirname(os.path.abspath(str(diylisis.__file__))) + os.sep
    stdlib_json = os.path.join(os.path.dirname(os.path.abspath(os.__file__)), "json") + os.sep
    found: set[tuple[str | bytes, int]] = set()
    original = re._compile  # type: ignore[attr-defined]

    def recording(pattern: object, flags: int) -> object:
        frame = sys._getframe(1)
        while frame is not None and (frame.f_globals.get("__name__") == "re"
                                     or str(frame.f_globals.get("__name__", "")).startswith("re.")):
            frame = frame.f_back
        if (isinstance(pattern, (str, bytes)) and frame is not None
                and frame.f_code.co_filename.startswith((package, stdlib_json))):
            found.add((pattern, int(flags)))
        return original(pattern, flags)

    global installed
    re._compile = recording  # type: ignore[attr-defined]
    try:
        import diylisis.certification
        import diylisis.gitio.context
        import diylisis.hooks
        import diylisis.refuter.lint  # noqa: F401
        from diylisis.detectors import DetectSettings, claims, detect_text, session, terms
        from diylisis.detectors.lexicon import _compiled, keys_of, lexicon_for

        lexicon = lexicon_for(None)
        for language in lexicon.languages:
            for key in sorted(keys_of(language)):
                _compiled(lexicon.languages, key)
        claims._opening(lexicon.words("claim_opening"))
        session._agent_pattern(lexicon.words("agent_role"))
        terms._common(lexicon.words("common_compound"))
        installed = 1  # judge the message as the hook does with the file in place: whole alternations
        detect_text(_CLEAN, None, DetectSettings())
    finally:
        re._compile = original  # type: ignore[attr-defined]
    return sorted(found, key=lambda entry: (isinstance(entry[0], bytes), entry))  # str and bytes apart


_CLEAN = """\
Reject negative offsets in the archive reader

The archive reader now stops with exit code 2 when an entry header gives a
negative offset, and names the entry. It used to seek backwards and read
the previous entry's bytes as this one's content.
"""


def build(patterns: list[tuple[str | bytes, int]]) -> bytes:
    """The file content storing the compiled form of each (pattern, flags) for this interpreter."""
    import marshal
    from array import array
    from re import _compiler, _parser

    entries = []
    for pattern, flags in patterns:
        parsed = _parser.parse(pattern, flags)
        code = _compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entries.append((pattern, flags, flags | parsed.state.flags, array(_WORD, code).tobytes(),
                        parsed.state.groups - 1, groupindex, tuple(indexgroup)))
    return marshal.dumps((_header(), entries))


def write() -> str:
    """Collect and store the patterns of the commit-msg path in a fresh interpreter; the path written."""
    import subprocess

    env = dict(os.environ, DIYLISIS_PRECOMPILED="0")
    script = "import sys; from diylisis import precompiled; sys.stdout.write(repr(precompiled.collect()))"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    import ast

    path = data_path()
    with open(path, "wb") as handle:
        handle.write(build(ast.literal_eval(done.stdout)))
    return path


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m diylisis.precompiled --write")
    # Run as __main__ this file is a second copy of the module; write through the package's one.
    from diylisis.precompiled import write as write_file

    print(write_file())
