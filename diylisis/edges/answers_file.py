"""One reader of `--answers FILE.toml` for every kind of run; each kind says which keys it takes.

API:
- `load(path, template_for, in_order=False) -> tuple[Answer, ...]` reads the file; `parse(text,
  name, template_for, in_order=False)` reads its text. The items are at the top level, or all in one `[answers]`
  table. `template_for(key)` is the kind's: the `Question` (from `diylisis.core.gate`) a key
  answers, whose options, flags and verdict shape the entry is checked against, or None when
  the kind has no such item (an error naming the file and the key).
- Entry shapes, by the template:
  - choice: `key = "option"` or `key = { option = VALUE }` (VALUE a string, or an integer for
    a NUMBER option; `true` or a string for an option that takes nothing), with the template's
    details beside the option, each a string or an array of strings:
    certify's `task-4 = "drop"`, `as-above = { resolve = "text" }`; preview's
    `spec = "approve"`, `direction = { select = 2, deciding = ["failure"] }`, `micro = "confirm"`;
  - verdict: `key = { verdict = "TEXT", FLAG = VALUE }` with at most one flag (vet's
    `revisit = "changed:PATH"`, `withdraw = true`);
  - by index: `[key]` holding `1 = {...}`, `2 = {...}` answers the items `key.1`, `key.2`
    (vet: one answer per antithesis of a claim); with in_order, an array `key = [..., ...]` does
    the same in its order (preview: the answers of a gate that comes back).
- Every problem is a `BadInput` of one line that starts `answers file FILE`; nothing is read
  past the first problem.
"""

from __future__ import annotations

from msgspec.structs import replace

from diylisis.core import gate
from diylisis.core.errors import BadInput

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    TemplateFor = Callable[[str], gate.Question | None]


def load(path: Path, template_for: TemplateFor, *, in_order: bool = False) -> tuple[gate.Answer, ...]:
    """The answers in the file at path; a file that cannot be read is one line naming it."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise BadInput(f"answers file {path} does not exist") from None
    except UnicodeDecodeError as error:
        raise BadInput(f"answers file {path} is not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise BadInput(f"answers file {path} cannot be read: {error.strerror or error}") from None
    return parse(text, str(path), template_for, in_order=in_order)


def parse(text: str, name: str, template_for: TemplateFor, *, in_order: bool = False) -> tuple[gate.Answer, ...]:
    """The answers in an answers file's text, each checked against the kind's template."""
    import tomllib  # only an answers file needs it, not the hook's path

    try:
        table: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BadInput(f"answers file {name} does not parse: {_one_line(str(error))}") from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise BadInput(f"answers file {name} nests arrays or tables too deeply to read") from None
    if "answers" in table:
        table = table["answers"]
        if not isinstance(table, dict):
            raise BadInput(f"answers file {name}: answers must be a table of item = answer, "
                           f"not {toml_kind(table)}")
    answers: list[gate.Answer] = []
    for key, entry in table.items():
        if isinstance(entry, dict) and entry and all(k.isdecimal() for k in entry):
            for index, sub in entry.items():
                answers.append(_entry(name, f"{key}.{index}", sub, template_for))
        elif in_order and isinstance(entry, list):
            for number, sub in enumerate(entry, 1):
                answers.append(_entry(name, f"{key}.{number}", sub, template_for))
        else:
            answers.append(_entry(name, key, entry, template_for))
    return tuple(answers)


def _entry(name: str, key: str, entry: object, template_for: TemplateFor) -> gate.Answer:
    template = template_for(key)
    if template is None:
        raise BadInput(f"answers file {name}: {key!r} is not an item this run asks about")
    template = replace(template, id=key)
    answer = (_verdict_entry(name, key, entry, template) if template.verdict
              else _choice_entry(name, key, entry, template))
    wrong = gate.problem(template, answer)
    if wrong is not None:
        raise BadInput(f"answers file {name}: {wrong}")
    return answer


def _choice_entry(name: str, key: str, entry: object, template: gate.Question) -> gate.Answer:
    details: dict[str, object] = {}
    if isinstance(entry, dict):
        details = {k: v for k, v in entry.items() if k in template.details}
        entry = {k: v for k, v in entry.items() if k not in template.details}
    if isinstance(entry, str):
        option_name, value = entry, None
    elif isinstance(entry, dict) and len(entry) == 1:
        (option_name, value), = entry.items()
    else:
        raise BadInput(f"answers file {name}: {key!r} must be an option or {{option = value}}, "
                       f"not {toml_kind(entry)}")
    option = gate.option_named(template.options, option_name.lower())
    if option is None:
        raise BadInput(f"answers file {name}: {option_name!r} for {key!r} is not one of "
                       f"{', '.join(template.option_names)}")
    answer = gate.choice(key, option_name, _value(name, key, option, value))
    words = tuple((detail, _words(name, key, detail, value)) for detail, value in details.items())
    return replace(answer, details=words)


def _words(name: str, key: str, detail: str, value: object) -> tuple[str, ...]:
    """A detail's words: a string, or an array of strings."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(word, str) for word in value):
        return tuple(value)
    raise BadInput(f"answers file {name}: {detail!r} of {key!r} must be a string or an array of strings, "
                   f"not {toml_kind(value)}")


def _value(name: str, key: str, option: gate.Option, value: object) -> str | None:
    """An option's value as text: a string, an integer for a number, `true` for no value."""
    if value is None or (value is True and option.takes is gate.Takes.NOTHING):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and option.takes is gate.Takes.NUMBER:
        return str(value)
    wanted = "a number" if option.takes is gate.Takes.NUMBER else "a string"
    raise BadInput(f"answers file {name}: the {option.name!r} answer of {key!r} must be {wanted}, "
                   f"not {toml_kind(value)}")


def _verdict_entry(name: str, key: str, entry: object, template: gate.Question) -> gate.Answer:
    if not isinstance(entry, dict) or not isinstance(entry.get(gate.VERDICT), str):
        raise BadInput(f"answers file {name}: {key!r} must be {{verdict = \"your judgment\"}} with at most one "
                       f"of {', '.join(flag.name for flag in template.flags) or 'no flag'}")
    flags = [k for k in entry if k != gate.VERDICT]
    if len(flags) > 1:
        raise BadInput(f"answers file {name}: {key!r} takes at most one of "
                       f"{', '.join(flag.name for flag in template.flags)}, not {', '.join(flags)}")
    flag_name = flags[0] if flags else None
    flag_value = None
    if flag_name is not None:
        flag = gate.option_named(template.flags, flag_name)
        if flag is None:
            raise BadInput(f"answers file {name}: {flag_name!r} for {key!r} is not one of "
                           f"{', '.join(f.name for f in template.flags) or 'no flag'}")
        flag_value = _value(name, key, flag, entry[flag_name])
    return gate.verdict(key, entry[gate.VERDICT], flag_name, flag_value)


def toml_kind(value: object) -> str:
    """What a TOML value is, in TOML's words."""
    kinds = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array",
             dict: "a table"}
    return kinds.get(type(value), "a date or time")


def _one_line(text: str) -> str:
    return " ".join(text.split())
