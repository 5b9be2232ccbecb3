"""Every value class of the package is a standard-library dataclass, frozen, slotted and keyword-only.

STYLE.md asks for `@dataclass(frozen=True, slots=True, kw_only=True)` on every model: a type
checker reads them, an assignment fails, and a positional call cannot swap two fields. This
test imports every module of the package and checks each dataclass defined there.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import msgspec
import pytest

import diylisis
from diylisis.core.model import RecordKind, Target


def package_dataclasses() -> list[type]:
    """The dataclasses defined (not merely imported) in the modules of diylisis."""
    found: list[type] = []
    for info in pkgutil.walk_packages(diylisis.__path__, "diylisis."):
        if info.name == "diylisis.__main__":
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == info.name:
                found.append(value)
    return found


def test_the_package_has_its_models() -> None:
    names = {cls.__qualname__ for cls in package_dataclasses()}
    assert {"Target", "Snapshot", "Certificate", "RunState", "Config"} <= names


@pytest.mark.parametrize("cls", package_dataclasses(), ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_model_is_frozen_slotted_and_keyword_only(cls: type) -> None:
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen, f"{cls.__qualname__} is not frozen"
    assert "__slots__" in vars(cls), f"{cls.__qualname__} is not slotted"
    assert all(f.kw_only for f in msgspec.structs.fields(cls) if f.init), f"{cls.__qualname__} takes positional fields"


def test_a_model_refuses_assignment_new_attributes_and_positional_fields() -> None:
    target = Target(kind=RecordKind.COMMIT, locator="HEAD")
    with pytest.raises(dataclasses.FrozenInstanceError):
        target.locator = "main"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        object.__setattr__(target, "extra", 1)
    with pytest.raises(TypeError):
        Target(RecordKind.COMMIT, "HEAD")  # type: ignore[misc]
    assert msgspec.structs.replace(target, revision="abc") == Target(kind=RecordKind.COMMIT, locator="HEAD",
                                                                 revision="abc")
    assert hash(target) == hash(Target(kind=RecordKind.COMMIT, locator="HEAD"))
