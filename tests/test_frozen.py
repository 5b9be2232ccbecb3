"""frozen_model builds the house value class the way `@dataclass(frozen=True, slots=True, kw_only=True)` does."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from diylisis.frozen import FrozenInstanceError, field, fields, frozen_model, is_model, replace


@frozen_model
class Point:
    """A point with a label that takes no part in equality."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
    label: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.x < 0:
            raise ValueError("x is not negative")

    @property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


@frozen_model
class Undocumented:
    name: str
    count: int = 1


@frozen_model
class Box:
    """A model holding another model, for encoding and asdict."""

    point: Point
    seen: dict[str, int] = field(default_factory=dict)


def test_init_is_keyword_only_with_defaults_and_factories() -> None:
    point = Point(x=1)
    assert (point.x, point.y, point.tags, point.label) == (1, 0, (), "")
    assert Box(point=point).seen == {} and Box(point=point).seen is not Box(point=point).seen
    with pytest.raises(TypeError, match=r"Point.__init__\(\) takes 1 positional argument"):
        Point(1)  # type: ignore[misc]
    with pytest.raises(TypeError, match=r"Point.__init__\(\) missing 1 required keyword-only argument: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'z'"):
        Point(x=1, z=2)  # type: ignore[call-arg]


def test_post_init_checks_every_construction() -> None:
    with pytest.raises(ValueError, match="x is not negative"):
        Point(x=-1)
    with pytest.raises(ValueError, match="x is not negative"):
        replace(Point(x=1), x=-1)


def test_fields_are_frozen_and_slotted() -> None:
    point = Point(x=1)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):  # FrozenInstanceError is an AttributeError, as the stdlib's is
        del point.y
    assert not hasattr(point, "__dict__")
    assert Point.__slots__ == ("x", "y", "tags", "label")


def test_equality_hash_and_repr_follow_the_field_options() -> None:
    one, other = Point(x=1, label="a"), Point(x=1, label="b")
    assert one == other and hash(one) == hash(other)  # label: compare=False
    assert one != Point(x=2) and one != (1, 0, (), "a")
    assert repr(one) == "Point(x=1, y=0, tags=())"  # label: repr=False
    assert {one: 1}[other] == 1


def test_replace_keeps_other_fields_and_refuses_unknown_ones() -> None:
    point = Point(x=1, y=2, tags=("t",), label="kept")
    moved = replace(point, y=5)
    assert (moved.x, moved.y, moved.tags, moved.label) == (1, 5, ("t",), "kept")
    assert point.y == 2
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        replace(point, z=1)


def test_fields_name_the_declared_fields_in_order() -> None:
    assert [f.name for f in fields(Point)] == ["x", "y", "tags", "label"]
    assert fields(Point(x=1)) == fields(Point)
    assert is_model(Point) and is_model(Point(x=1)) and not is_model(1)
    with pytest.raises(TypeError, match="not a frozen model"):
        fields(1)


def test_instances_pickle_and_copy() -> None:
    box = Box(point=Point(x=3, tags=("a",), label="l"), seen={"k": 1})
    assert pickle.loads(pickle.dumps(box)) == box
    assert copy.deepcopy(box) == box and copy.copy(box) == box
    assert pickle.loads(pickle.dumps(box)).point.label == "l"


def test_an_undocumented_class_is_documented_by_its_signature() -> None:
    assert Undocumented.__doc__ == "Undocumented(*, name, count=1)"
    assert Point.__doc__ == "A point with a label that takes no part in equality."


def test_match_reads_fields_by_keyword() -> None:
    match Point(x=4, y=2):
        case Point(x=4, y=y):
            assert y == 2
        case _:
            pytest.fail("the keyword pattern did not match")


def test_a_mutable_default_is_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):
        @frozen_model
        class Bad:
            items: list[int] = []


def test_generated_methods_cannot_be_overridden() -> None:
    with pytest.raises(TypeError, match="defines __eq__"):
        @frozen_model
        class Custom:
            x: int

            def __eq__(self, other: object) -> bool:
                return True


def test_the_stdlib_dataclass_functions_still_work_on_models() -> None:
    box = Box(point=Point(x=1, y=2), seen={"k": 1})
    assert dataclasses.is_dataclass(box)
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y", "tags", "label"]
    assert dataclasses.replace(Point(x=1), y=3) == Point(x=1, y=3)
    assert dataclasses.asdict(box) == {"point": {"x": 1, "y": 2, "tags": (), "label": ""}, "seen": {"k": 1}}


def _made_often(cls: type, **values: object) -> None:
    """Make enough instances of cls that its __init__ is the compiled one."""
    from diylisis.frozen import _COMPILE_AFTER

    for _ in range(_COMPILE_AFTER):
        cls(**values)


def test_a_class_making_many_instances_gets_a_compiled_init_that_behaves_the_same() -> None:
    @frozen_model
    class Often:
        x: int
        y: int = 0
        tags: list[str] = field(default_factory=list)
        note: str = field(default="made", init=False)
        stamp: list[int] = field(default_factory=lambda: [1], init=False)

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("x is not negative")

    table_made = Often(x=1, y=2)
    table_init = Often.__init__
    _made_often(Often, x=1)
    assert Often.__init__ is not table_init
    assert Often.__init__.__qualname__ == table_init.__qualname__
    compiled_made = Often(x=1, y=2)
    assert compiled_made == table_made and repr(compiled_made) == repr(table_made)
    assert (compiled_made.tags, compiled_made.note, compiled_made.stamp) == ([], "made", [1])
    assert Often(x=1).tags is not Often(x=1).tags and Often(x=1).stamp is not Often(x=1).stamp
    assert Often(x=1, tags=["a"]).tags == ["a"]
    with pytest.raises(ValueError, match="x is not negative"):
        Often(x=-1)
    for call, message in (
        (lambda: Often(1), r"Often.__init__\(\) takes 1 positional argument but 2 were given"),
        (lambda: Often(), r"Often.__init__\(\) missing 1 required keyword-only argument: 'x'"),
        (lambda: Often(x=1, z=2), r"Often.__init__\(\) got an unexpected keyword argument 'z'"),
        (lambda: Often(x=1, note="n"), r"Often.__init__\(\) got an unexpected keyword argument 'note'"),
    ):
        with pytest.raises(TypeError, match=message):
            call()
    assert replace(compiled_made, y=5) == Often(x=1, y=5)


def test_a_field_the_compiled_init_would_shadow_keeps_the_table_init() -> None:
    @frozen_model
    class Shadowing:
        _frozen_set: int = 0

    table_init = Shadowing.__init__
    _made_often(Shadowing)
    assert Shadowing.__init__ is table_init
    assert Shadowing(_frozen_set=3)._frozen_set == 3
