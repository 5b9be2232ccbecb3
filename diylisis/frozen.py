"""`frozen_model`: the house value class (frozen, slotted, keyword-only) without the dataclasses module.

The commit-msg hook imports every model class on each commit. `dataclasses` costs about 10 ms
to import there (it imports `inspect`, which pulls in ast, dis and tokenize), and the stdlib
decorator compiles six functions per class. This module builds the same kind of class with no
compiling: one shared keyword-only `__init__` per class reads a table of the fields, and
`__repr__`, `__eq__`, `__hash__`, the frozen `__setattr__`/`__delattr__` and the pickle state
are shared functions over the field names. Only a class that goes on to make hundreds of
instances has its `__init__` compiled, then.

The code reads models through `fields` and `replace` here. The stdlib's `dataclasses.fields`,
`replace`, `asdict` and `is_dataclass` still work on a model (they import dataclasses then).
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False  # typing is not imported at run time: the hook never needs it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # "no default": a field without it must be given


class FrozenInstanceError(AttributeError):
    """An assignment to (or deletion of) a field of a frozen model."""


class Field:
    """One field of a model: its name, annotation (a string) and options, as `field` set them."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "compare", "hash")

    def __init__(self, *, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING,
                 init: bool = True, repr: bool = True, compare: bool = True, hash: bool | None = None) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare
        self.hash = hash

    def __repr__(self) -> str:
        return (f"Field(name={self.name!r}, type={self.type!r}, default={self.default!r}, "
                f"default_factory={self.default_factory!r}, init={self.init}, repr={self.repr}, "
                f"compare={self.compare}, hash={self.hash})")


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING, init: bool = True,
          repr: bool = True, compare: bool = True, hash: bool | None = None) -> Any:
    """A field's default or default factory and options, as the value its class attribute is given."""
    return Field(default=default, default_factory=default_factory, init=init, repr=repr, compare=compare,
                 hash=hash)


def frozen_model(cls: type[T]) -> type[T]:
    """The class as `@dataclass(frozen=True, slots=True, kw_only=True)` would make it.

    Keyword-only __init__ with defaults, default factories (`field`) and __post_init__;
    FrozenInstanceError on assignment; __repr__ over the repr fields; equality and hashing
    over the compared fields; __slots__; pickling and copying; `fields` and `replace`.
    """
    # The hook builds some sixty models on every commit: one pass over the fields makes every
    # table below, and no per-field generator or helper call is spent on it.
    namespace = dict(cls.__dict__)
    for name in _GENERATED:
        if name in namespace:
            raise TypeError(f"{cls.__qualname__} defines {name}; a frozen model generates it")
    inherited = {f.name: f for base in reversed(cls.__mro__[1:]) for f in base.__dict__.get("__model_fields__", ())}
    own = []
    for name, annotation in namespace.get("__annotations__", {}).items():
        if isinstance(annotation, str) and annotation.startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = namespace.pop(name, MISSING)
        spec = value if isinstance(value, Field) else Field(default=value)
        spec.name, spec.type = name, annotation
        if spec.default.__class__.__hash__ is None:  # list, dict, set: shared between instances
            raise ValueError(f"mutable default {type(spec.default)} for field {name} is not allowed: "
                             "use default_factory")
        if inherited:
            inherited.pop(name, None)
        own.append(spec)
    every = (*inherited.values(), *own) if inherited else tuple(own)
    table, fixed, shown, compared, hashed = [], [], [], [], []
    for f in every:
        entry = (f.name, f.default, f.default_factory)
        if f.init:
            table.append(entry)
        elif f.default is not MISSING or f.default_factory is not MISSING:
            fixed.append(entry)  # a field left out of __init__ still gets its default, as dataclasses sets it
        if f.repr:
            shown.append(f.name)
        if f.compare:
            compared.append(f.name)
        if f.compare if f.hash is None else f.hash:
            hashed.append(f.name)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    if not namespace.get("__doc__"):
        namespace["__doc__"] = cls.__name__ + _signature(every)
    qualname = cls.__qualname__
    compare_values = _values(tuple(compared))
    init = _init_for(qualname, getattr(cls, "__post_init__", None), tuple(table), tuple(fixed))
    show = _repr_for(tuple(shown))
    equal = _eq_for(compare_values)
    digest = _hash_for(compare_values if hashed == compared else _values(tuple(hashed)))
    init.__qualname__ = qualname + ".__init__"
    show.__qualname__ = qualname + ".__repr__"
    equal.__qualname__ = qualname + ".__eq__"
    digest.__qualname__ = qualname + ".__hash__"
    # everything goes into the namespace of one type() call: setting a dunder method on a
    # class afterwards makes Python update its slots each time
    namespace["__qualname__"] = qualname
    namespace["__slots__"] = tuple([f.name for f in own])
    namespace["__model_fields__"] = every
    names = tuple([f.name for f in every])
    namespace["__model_names__"] = names
    # the pickle state: worker processes send many models
    namespace["__model_values__"] = compare_values if len(compared) == len(names) else _values(names)
    namespace["__match_args__"] = ()  # keyword-only: patterns name their fields
    namespace["__init__"] = init
    namespace["__repr__"] = show
    namespace["__eq__"] = equal
    namespace["__hash__"] = digest
    namespace.update(_SHARED)
    return type(cls)(cls.__name__, cls.__bases__, namespace)  # type: ignore[return-value]


_GENERATED = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")


def is_model(value: Any) -> bool:
    """value is a frozen model class or an instance of one."""
    return hasattr(value if isinstance(value, type) else type(value), "__model_fields__")


def fields(model: Any) -> tuple[Field, ...]:
    """The fields of a model class or instance, in declaration order."""
    try:
        return (model if isinstance(model, type) else type(model)).__model_fields__  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError(f"{model!r} is not a frozen model") from None


def replace(model: T, /, **changes: Any) -> T:
    """A copy of the model instance with changes to some of its fields (validated again by __init__)."""
    values = {}
    for spec in fields(model):
        if not spec.init:
            if spec.name in changes:
                raise ValueError(f"field {spec.name} is not an __init__ argument and cannot be replaced")
            continue
        values[spec.name] = changes.pop(spec.name) if spec.name in changes else getattr(model, spec.name)
    return type(model)(**values, **changes)  # an unknown name in changes fails there, as in __init__


def _signature(every: tuple[Field, ...]) -> str:
    """`(*, a, b=0, c=<factory>)`: the generated __init__'s signature, for an undocumented class."""
    parts = []
    for f in every:
        if not f.init:
            continue
        if f.default is not MISSING:
            parts.append(f"{f.name}={f.default!r}")
        elif f.default_factory is not MISSING:
            parts.append(f"{f.name}=<factory>")
        else:
            parts.append(f.name)
    return f"(*, {', '.join(parts)})" if parts else "()"


def _init_for(owner: str, post_init: Callable[[Any], None] | None, table: tuple[tuple[str, Any, Any], ...],
              fixed: tuple[tuple[str, Any, Any], ...]) -> Callable[..., None]:
    """One keyword-only __init__ over a table of the fields (name, default, factory): nothing compiled per class.

    A class that makes many instances (a history scan makes one result per commit) gets a compiled
    __init__ after _COMPILE_AFTER of them (_compiled_init): it does the same in about 60% of the time.
    """
    names = frozenset([name for name, _, _ in table])
    qualname = f"{owner}.__init__()"
    set_value = object.__setattr__
    made = 0

    def __init__(self: Any, **values: Any) -> None:
        nonlocal made
        made += 1
        if made == _COMPILE_AFTER:
            _install_compiled_init(type(self), __init__, post_init, table, fixed)
        if not names.issuperset(values):
            unknown = next(name for name in values if name not in names)
            raise TypeError(f"{qualname} got an unexpected keyword argument {unknown!r}")
        missing = None
        for name, default, factory in table:
            value = values.get(name, default)
            if value is MISSING:
                if factory is MISSING:
                    missing = (missing or []) + [name]
                    continue
                value = factory()
            set_value(self, name, value)
        if missing:
            raise TypeError(f"{qualname} missing {len(missing)} required keyword-only "
                            f"argument{'s' if len(missing) > 1 else ''}: {_quoted(missing)}")
        for name, default, factory in fixed:
            set_value(self, name, factory() if default is MISSING else default)
        if post_init is not None:
            post_init(self)

    return __init__


_COMPILE_AFTER = 256  # instances a class makes through the table before its __init__ is compiled


def _install_compiled_init(cls: type, table_init: Callable[..., None], post_init: Callable[[Any], None] | None,
                           table: tuple[tuple[str, Any, Any], ...], fixed: tuple[tuple[str, Any, Any], ...]) -> None:
    """Give cls a compiled __init__ that does what table_init does, when table_init is still its own."""
    if cls.__dict__.get("__init__") is table_init:
        compiled = _compiled_init(table_init.__qualname__, post_init, table, fixed)
        if compiled is not None:
            type.__setattr__(cls, "__init__", compiled)


def _compiled_init(qualname: str, post_init: Callable[[Any], None] | None, table: tuple[tuple[str, Any, Any], ...],
                   fixed: tuple[tuple[str, Any, Any], ...]) -> Callable[..., None] | None:
    """The table-driven __init__ as Python source, compiled once: Python itself checks the keywords
    and words its errors as the table-driven one does (None: a field name the source would shadow)."""
    every = [name for name, _, _ in table] + [name for name, _, _ in fixed]
    if any(name == "self" or name.startswith("_frozen_") for name in every):
        return None
    scope: dict[str, Any] = {"_frozen_set": object.__setattr__, "_frozen_missing": MISSING,
                             "_frozen_post_init": post_init}
    parameters, body = [], []
    for index, (name, default, factory) in enumerate(table):
        if default is not MISSING:
            scope[f"_frozen_default_{index}"] = default
            parameters.append(f"{name}=_frozen_default_{index}")
            body.append(f"_frozen_set(self, {name!r}, {name})")
        elif factory is not MISSING:
            scope[f"_frozen_factory_{index}"] = factory
            parameters.append(f"{name}=_frozen_missing")
            made = f"_frozen_factory_{index}() if {name} is _frozen_missing else {name}"
            body.append(f"_frozen_set(self, {name!r}, {made})")
        else:
            parameters.append(name)
            body.append(f"_frozen_set(self, {name!r}, {name})")
    for index, (name, default, factory) in enumerate(fixed):
        if default is MISSING:
            scope[f"_frozen_fixed_{index}"] = factory
            body.append(f"_frozen_set(self, {name!r}, _frozen_fixed_{index}())")
        else:
            scope[f"_frozen_fixed_{index}"] = default
            body.append(f"_frozen_set(self, {name!r}, _frozen_fixed_{index})")
    if post_init is not None:
        body.append("_frozen_post_init(self)")
    signature = f"self, *, {', '.join(parameters)}" if parameters else "self"
    exec(f"def __init__({signature}):\n    " + "\n    ".join(body or ["pass"]), scope)  # noqa: S102
    compiled = scope["__init__"]
    compiled.__qualname__ = qualname
    return compiled  # type: ignore[no-any-return]


def _quoted(names: list[str]) -> str:
    """'a', 'a' and 'b', or 'a', 'b', and 'c', as Python's own missing-argument message lists them."""
    quoted = [repr(name) for name in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function from an instance to the tuple of its values under names."""
    if not names:
        return lambda self: ()
    if len(names) == 1:
        single = attrgetter(names[0])
        return lambda self: (single(self),)
    return attrgetter(*names)


def _repr_for(names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _eq_for(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash_for(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> tuple[Any, ...]:
    return type(self).__model_values__(self)  # type: ignore[no-any-return]


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    set_value = object.__setattr__
    for name, value in zip(type(self).__model_names__, state, strict=True):
        set_value(self, name, value)


class _DataclassFields:
    """`__dataclass_fields__`, made on first use: the stdlib's fields, replace, asdict and
    is_dataclass read it, and only then is the dataclasses module imported."""

    def __get__(self, instance: Any, owner: type) -> dict[str, Any]:
        import dataclasses

        shadow = dataclasses.make_dataclass(owner.__name__, [
            (f.name, f.type, dataclasses.field(
                default=dataclasses.MISSING if f.default is MISSING else f.default,
                default_factory=dataclasses.MISSING if f.default_factory is MISSING else f.default_factory,
                init=f.init, repr=f.repr, compare=f.compare, hash=f.hash))
            for f in fields(owner)], kw_only=True)
        found: dict[str, Any] = shadow.__dataclass_fields__  # type: ignore[attr-defined]
        type.__setattr__(owner, "__dataclass_fields__", found)
        return found


_DATACLASS_FIELDS = _DataclassFields()

# the methods every model shares
_SHARED = {
    "__setattr__": _frozen_setattr,
    "__delattr__": _frozen_delattr,
    "__getstate__": _getstate,
    "__setstate__": _setstate,
    "__dataclass_fields__": _DATACLASS_FIELDS,
}
