"""The tree is formatted and linted as committed: ``ruff format`` and ``ruff check`` agree."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> str:
    found = Path(sys.executable).parent / "ruff"
    if found.exists():
        return str(found)
    which = shutil.which("ruff")
    if which is None:
        pytest.fail("ruff is not installed (it is in the dev extra)", pytrace=False)
    return which


@pytest.mark.parametrize("command", [["format", "--check"], ["check"]])
def test_ruff_finds_nothing_to_change(command: list[str]) -> None:
    done = subprocess.run(
        [_ruff(), *command, "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
