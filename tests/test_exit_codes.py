"""One source of exit codes, :class:`assay.ExitCode`, and one mapping from what stops a command."""

from __future__ import annotations

import ast
import signal
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents.errors import (
    BaselineError,
    ConfigurationError,
    IncompleteRunError,
    SpecError,
    StoreError,
    StoreUnavailableError,
    Terminated,
)
from assay_agents.evaluation import ExitCode, exit_code_for

CLI = Path(__file__).resolve().parents[1] / "src" / "assay_agents" / "cli"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (KeyboardInterrupt(), ExitCode.INTERRUPTED),
        (Terminated(signal.SIGTERM, "SIGTERM"), ExitCode.TERMINATED),
        (Terminated(signal.SIGHUP, "SIGHUP"), ExitCode.HANGUP),
        (StoreUnavailableError("down"), ExitCode.INCOMPLETE),
        (IncompleteRunError("r1", "the store stayed down"), ExitCode.INCOMPLETE),
        (SpecError("no such file", location="x.yaml"), ExitCode.INVALID),
        (ConfigurationError("bad"), ExitCode.INVALID),
        (BaselineError("missing"), ExitCode.INVALID),
        (StoreError("unmigrated"), ExitCode.INVALID),
        (FileNotFoundError("out.md"), ExitCode.INVALID),
        (BrokenPipeError(), ExitCode.CLOSED_PIPE),
    ],
)
def test_what_stopped_a_command_maps_to_one_exit_code(error: BaseException, code: int) -> None:
    assert exit_code_for(error) is code


def test_the_public_exit_code_is_the_one_the_cli_uses() -> None:
    from assay_agents.exit_codes import ExitCode as used

    assert assay.ExitCode is ExitCode is used
    assert [int(code) for code in ExitCode] == [0, 1, 2, 3, 129, 130, 141, 143]


def _literal_exits(path: Path) -> list[str]:
    """Every exit in ``path`` given a bare integer: ``Exit(1)``, ``sys.exit(2)``, ``code=3``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func
        name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
        given = [*node.args[:1], *(k.value for k in node.keywords if k.arg in ("code", "status"))]
        exits = name in ("Exit", "exit", "_exit", "SystemExit", "fail")
        if exits and any(isinstance(v, ast.Constant) and isinstance(v.value, int) for v in given):
            found.append(f"{path.name}:{node.lineno}")
        if name == "fail" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_command_exits_with_a_bare_integer() -> None:
    offenders = [hit for path in sorted(CLI.glob("*.py")) for hit in _literal_exits(path)]
    assert offenders == []


def test_the_check_finds_a_bare_integer(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import sys, typer\nraise typer.Exit(code=1)\nsys.exit(2)\nraise typer.Exit(1)\n"
    )
    assert _literal_exits(planted) == ["planted.py:2", "planted.py:3", "planted.py:4"]
