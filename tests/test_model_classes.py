"""Every value class of the package is a msgspec Struct, frozen and keyword-only.

A Struct is typed for a checker, refuses assignment, takes keyword arguments only when kw_only,
and costs a fraction of a dataclass to define, which the commit-msg hook pays on every commit.
This test imports every module of the package, checks each Struct defined there, and that no
standard-library dataclass is left.
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import pkgutil

import msgspec
import pytest

import diylisis
from diylisis.core.model import RecordKind, Target


def package_classes() -> list[type]:
    """The classes defined (not merely imported) in the modules of diylisis."""
    found: list[type] = []
    for info in pkgutil.walk_packages(diylisis.__path__, "diylisis."):
        if info.name == "diylisis.__main__":
            continue
        module = importlib.import_module(info.name)
        found += [value for value in vars(module).values()
                  if isinstance(value, type) and value.__module__ == info.name]
    return found


def package_models() -> list[type]:
    return [cls for cls in package_classes() if issubclass(cls, msgspec.Struct)]


def test_the_package_has_its_models_and_no_dataclass() -> None:
    names = {cls.__qualname__ for cls in package_models()}
    assert {"Target", "Snapshot", "Certificate", "RunState", "Config", "Workspace", "Doc"} <= names
    assert [cls.__qualname__ for cls in package_classes() if dataclasses.is_dataclass(cls)] == []


@pytest.mark.parametrize("cls", package_models(), ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_model_is_a_frozen_keyword_only_struct(cls: type[msgspec.Struct]) -> None:
    config = cls.__struct_config__
    assert config.frozen, f"{cls.__qualname__} is not frozen"
    assert cls.__match_args__ == (), f"{cls.__qualname__} takes positional fields"  # msgspec's positional fields
    assert not config.dict, f"{cls.__qualname__} instances have a __dict__"


def test_a_model_refuses_assignment_new_attributes_and_positional_fields() -> None:
    target = Target(kind=RecordKind.COMMIT, locator="HEAD")
    with pytest.raises(AttributeError):
        target.locator = "main"  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        object.__setattr__(target, "extra", 1)
    with pytest.raises(TypeError):
        Target(RecordKind.COMMIT, "HEAD")  # type: ignore[misc]
    assert msgspec.structs.replace(target, revision="abc") == Target(kind=RecordKind.COMMIT, locator="HEAD",
                                                                     revision="abc")
    assert hash(target) == hash(Target(kind=RecordKind.COMMIT, locator="HEAD"))


def test_a_model_survives_pickling_as_worker_processes_send_it() -> None:
    target = Target(kind=RecordKind.FILE, locator="README.md", revision="abc")
    assert pickle.loads(pickle.dumps(target)) == target
