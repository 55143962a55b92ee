"""Configuration and history planted in a shared folder are not obeyed.

Searching upwards for ``assay.toml``, ``[tool.assay]`` and ``.assay/`` stops at a folder
another user owns (root's aside) or any user may write into, and says so on standard error.
The tests run as root, so they can hand a folder to another user.
"""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app

FAILING = (
    "import assay_agents as assay\nfrom assay_agents import checks\n"
    "suite = assay.Suite('S', agent=lambda t, c: 'no', checks=[checks.contains('ok')])\n"
    "suite.case('q')\n"
)
PLANTED_GATE = "gate = { min_pass_rate = 0.0 }\n"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _other_uid() -> int:
    return pwd.getpwnam("nobody").pw_uid


def _shared(tmp_path: Path, how: str) -> Path:
    """A folder that another user could have written into, and a project folder inside it."""
    shared = tmp_path / "shared"
    shared.mkdir()
    if how == "owned by another user":
        os.chown(shared, _other_uid(), -1)
    elif how == "world-writable":
        shared.chmod(0o777)
    else:  # like /tmp: world-writable with the sticky bit, still not trusted
        shared.chmod(0o777 | stat.S_ISVTX)
    project = shared / "project"
    project.mkdir()
    (project / "s.py").write_text(FAILING, encoding="utf-8")
    return project


HOW = ["owned by another user", "world-writable", "sticky and world-writable"]


@pytest.fixture(autouse=True)
def _as_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("handing a folder to another user needs root")


@pytest.mark.parametrize("how", HOW)
def test_a_planted_gate_does_not_pass_a_failing_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    project = _shared(tmp_path, how)
    planted = project.parent / "assay.toml"
    planted.write_text(PLANTED_GATE, encoding="utf-8")
    monkeypatch.chdir(project)
    done = invoke("run", "s.py", "--quiet")
    assert done.exit_code == 1, done.output
    assert "gate:" not in done.stdout
    assert f"warning: ignoring {planted}" in done.stderr and how.split()[-1] in done.stderr
    assert (project / ".assay" / "assay.db").is_file()  # the history starts here instead


def test_a_planted_pyproject_database_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _shared(tmp_path, "owned by another user")
    planted = project.parent / "pyproject.toml"
    elsewhere = tmp_path / "theirs.db"
    planted.write_text(f'[tool.assay]\ndatabase = "sqlite:///{elsewhere}"\n', encoding="utf-8")
    monkeypatch.chdir(project)
    done = invoke("run", "s.py", "--quiet")
    assert done.exit_code == 1, done.output
    assert not elsewhere.exists() and f"warning: ignoring {planted}" in done.stderr


@pytest.mark.parametrize("how", HOW)
def test_a_planted_history_is_neither_read_nor_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    project = _shared(tmp_path, how)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    monkeypatch.chdir(theirs)
    assert invoke("run", str(project / "s.py"), "--quiet").exit_code == 1
    (theirs / ".assay").rename(project.parent / ".assay")
    monkeypatch.chdir(project)
    listed = invoke("history")
    assert listed.exit_code == 0 and "No runs yet" in listed.stdout
    assert f"warning: ignoring {project.parent / '.assay'}" in listed.stderr
    ran = invoke("run", "s.py", "--quiet")
    assert ran.exit_code == 1 and "baseline" not in ran.stdout.replace("no baseline", "")
    assert f"database: sqlite:///{project}/.assay/assay.db" in ran.stdout


def test_running_in_a_folder_others_may_write_into_keeps_no_history_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _shared(tmp_path, "world-writable")
    monkeypatch.chdir(project.parent)
    done = invoke("run", str(project / "s.py"), "--quiet")
    assert done.exit_code == 2 and "--db" in done.stderr, done.output
    assert str(project.parent) in done.stderr and not (project.parent / ".assay").exists()


def test_a_trusted_parent_still_configures_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "assay.toml").write_text(PLANTED_GATE, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "s.py").write_text(FAILING, encoding="utf-8")
    monkeypatch.chdir(project)
    done = invoke("run", "s.py", "--quiet")
    assert done.exit_code == 0 and "gate: passed" in done.stdout and "warning" not in done.stderr


def _loosen(history: Path, how: str) -> None:
    if how == "owned by another user":
        os.chown(history, _other_uid(), -1)
    else:
        history.chmod(0o777 if history.is_dir() else 0o666)


@pytest.mark.parametrize("target", [".assay", ".assay/assay.db"])
@pytest.mark.parametrize("how", ["owned by another user", "world-writable"])
def test_a_history_folder_or_file_others_may_replace_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, how: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "s.py").write_text(FAILING, encoding="utf-8")
    monkeypatch.chdir(project)
    assert invoke("run", "s.py", "--quiet").exit_code == 1
    database = project / ".assay" / "assay.db"
    before = database.read_bytes()
    _loosen(project / target, how)
    for args in (("run", "s.py", "--quiet"), ("history",)):
        done = invoke(*args)
        assert done.exit_code == 2, done.output
        assert str(project / target) in done.stderr and how.split()[-1] in done.stderr
        assert "another user could" in done.stderr
    assert database.read_bytes() == before
