"""Ctrl-C at any moment of start-up ends ``assay-agents`` with exit 130 and one line, no traceback.

Real processes and real signals: the signal arrives while the command line itself is being
imported, and while the suite file is being loaded. Before the interpreter runs the first line
of Assay (its own start-up, ``site``, the launcher's ``import re``) a Ctrl-C is Python's to
handle; from that line on it is Assay's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.process  # real signals

SCRIPT = Path(sys.executable).with_name("assay-agents")
# What the installed `assay-agents` script runs, with a Ctrl-C arriving while a module is imported:
# `typer` as the command line is imported, `pydantic` as it reads the options.
INTERRUPTED_IMPORT = """
import os, signal, sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv[0] = {script!r}
from assay_agents.cli.app import main
sys.exit(main())
"""
SLOW_SUITE = """
import pathlib, time
pathlib.Path("loading").touch()
time.sleep(60)
"""


def _one_line_and_130(process: subprocess.Popen[str]) -> None:
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert len(stderr.strip().splitlines()) == 1 and "interrupted" in stderr, stderr


@pytest.mark.parametrize("module", ["typer", "pydantic"])
def test_ctrl_c_while_the_command_line_is_imported(tmp_path: Path, module: str) -> None:
    code = INTERRUPTED_IMPORT.format(module=module, script=str(SCRIPT))
    (tmp_path / "s.py").write_text(
        "import assay_agents as assay\nsuite = assay.Suite('S')\n", encoding="utf-8"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, "run", "s.py"],
        cwd=tmp_path,
        env=os.environ.copy(),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _one_line_and_130(process)


def test_ctrl_c_while_the_suite_file_is_loaded(tmp_path: Path) -> None:
    (tmp_path / "s.py").write_text(SLOW_SUITE, encoding="utf-8")
    process = subprocess.Popen(
        [str(SCRIPT), "run", "s.py"],
        cwd=tmp_path,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "loading").exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _one_line_and_130(process)


# Modules the `assay-agents` script imports in this order once Assay's first line has run: the
# package's own first imports, then the command line (`-X importtime` names each as it lands).
EARLY_POINTS = ("assay_agents.errors", "assay_agents.cli", "typer", "assay_agents.cli.app")


def _started_until(point: str, delay: float, tmp_path: Path) -> subprocess.Popen[str]:
    """The real `assay-agents` script, run until ``point`` is imported, then ``delay`` more."""
    process = subprocess.Popen(
        [sys.executable, "-X", "importtime", str(SCRIPT), "run", "s.py"],
        cwd=tmp_path,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if line.rsplit("|", 1)[-1].strip() == point:
            break
    time.sleep(delay)
    return process


@pytest.mark.parametrize("point", EARLY_POINTS)
def test_ctrl_c_from_the_first_line_of_assay_on_is_one_line(tmp_path: Path, point: str) -> None:
    (tmp_path / "s.py").write_text(SLOW_SUITE, encoding="utf-8")
    for delay in (0.0, 0.003, 0.01):
        process = _started_until(point, delay, tmp_path)
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=60)
        said = [line for line in rest.splitlines() if not line.startswith("import time:")]
        assert process.returncode == 130, (point, delay, rest[-2000:])
        assert "Traceback" not in rest and "KeyboardInterrupt" not in rest, rest[-2000:]
        assert said == ["interrupted"], (point, delay, said)
