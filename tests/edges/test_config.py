"""Where the configuration comes from: .distill.toml, else pyproject.toml's [tool.diylisis]."""

from __future__ import annotations

from pathlib import Path

import pytest

from diylisis.core.errors import ConfigError
from diylisis.edges import config


def test_pyproject_tool_table_configures_when_there_is_no_distill_toml(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.diylisis.hooks]\nrole = "implementer"\n')
    loaded = config.load(tmp_path)
    assert (loaded.source, loaded.hooks.role) == ("pyproject.toml [tool.diylisis]", "implementer")
    (tmp_path / ".distill.toml").write_text('[hooks]\nrole = "reviewer"\n')
    assert config.load(tmp_path).source == ".distill.toml"


def test_a_pyproject_that_never_names_diylisis_is_not_parsed(tmp_path: Path) -> None:
    # not parsed at all, so even a broken one leaves the defaults (and the hook fast)
    (tmp_path / "pyproject.toml").write_text("[project\nname = \n")
    loaded = config.load(tmp_path)
    assert (loaded.source, loaded.hooks.role) == (None, "reviewer")


def test_a_broken_pyproject_that_names_diylisis_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.diylisis.hooks\nrole = 1\n")
    with pytest.raises(ConfigError, match=r"^pyproject.toml:1: does not parse: Expected"):
        config.load(tmp_path)
