"""The command line as a user runs it, in a scratch working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from commandline import ASSAY, REPO, Cli

SPECS = Path(__file__).parent / "specs"


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """``assay-agents`` commands run in this process, in ``tmp_path``."""
    return Cli(tmp_path)


@pytest.fixture
def cli_process(tmp_path: Path) -> Cli:
    """``assay-agents`` commands run by the installed script, for what only a process shows."""
    return Cli(tmp_path, process=True)


@pytest.fixture
def specs() -> Path:
    return SPECS


@pytest.fixture
def assay_executable() -> str:
    return ASSAY


@pytest.fixture
def support_spec() -> Path:
    return REPO / "examples" / "support_eval.py"
