"""Another installed project claiming ``assay``: ``--version`` and ``run`` say so; ``assay-agents``.

Each fake project is a real metadata folder (``.dist-info``) in a site folder put on
``PYTHONPATH`` of a real ``assay`` process, as an installer would have written it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from commandline import Ran, run_process

pytestmark = pytest.mark.process  # what the interpreter finds on its path at start-up

ADVICE = "environment of its own"


def _distribution(site: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """Write ``name``'s metadata folder in ``site``, holding ``files`` beside METADATA."""
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True)
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    (folder / "METADATA").write_text(metadata, encoding="utf-8")
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    return folder


def _record(*paths: str) -> str:
    return "".join(f"{path},,\n" for path in paths)


def _with(site: Path | None) -> dict[str, str]:
    paths = [str(site)] if site is not None else []
    paths += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {"PYTHONPATH": os.pathsep.join(paths)}


def _version(tmp_path: Path, site: Path | None) -> Ran:
    done = run_process(["--version"], tmp_path, _with(site))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("assay "), done.stdout
    return done


def test_a_project_recording_assay_files_is_named_with_what_to_do(tmp_path: Path) -> None:
    site = tmp_path / "site"
    record = _record("assay/__init__.py", "assay/cli.py", "../../../bin/assay")
    _distribution(site, "assay-ai", "1.4.0", {"RECORD": record})
    done = _version(tmp_path, site)
    said = " ".join(done.stderr.split())
    assert "assay-ai 1.4.0 also installs an `assay` package or command" in said, said
    assert ADVICE in said and "`assay-agents` is Assay's command" in said
    assert "assay-ai" not in done.stdout  # the version line stays the version alone


def test_every_claimant_is_named_whether_by_top_level_or_by_its_command(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _distribution(site, "assay-it", "2.0", {"top_level.txt": "assay\n"})
    _distribution(site, "assay-server", "0.3", {"RECORD": _record("../../../bin/assay")})
    # A project not named like the others is found by --version too.
    _distribution(site, "evalkit", "5", {"RECORD": _record("assay/__init__.py")})
    _distribution(site, "assay-evals", "1.0", {"RECORD": _record("assay_evals/__init__.py")})
    said = " ".join(_version(tmp_path, site).stderr.split())
    assert "assay-it 2.0, assay-server 0.3 and evalkit 5 also install" in said, said
    assert "assay-evals" not in said


def test_a_setuptools_egg_info_is_read_too(tmp_path: Path) -> None:
    folder = tmp_path / "site" / "assay_server-0.3-py3.11.egg-info"
    folder.mkdir(parents=True)
    metadata = "Metadata-Version: 1.1\nName: assay-server\nVersion: 0.3\n"
    (folder / "PKG-INFO").write_text(metadata, encoding="utf-8")
    (folder / "top_level.txt").write_text("assay\n", encoding="utf-8")
    assert "assay-server 0.3 also installs" in _version(tmp_path, folder.parent).stderr


def test_no_warning_without_another_project(tmp_path: Path) -> None:
    # This environment holds Assay itself (an editable install, perhaps under its old name).
    assert _version(tmp_path, None).stderr == ""


def test_assays_own_distribution_is_never_a_rival(tmp_path: Path) -> None:
    site = tmp_path / "site"
    record = _record("assay/__init__.py", "../../../bin/assay", "../../../bin/assay-agents")
    _distribution(site, "assay-agents", "9.0", {"RECORD": record, "top_level.txt": "assay\n"})
    assert _version(tmp_path, site).stderr == ""


@pytest.mark.parametrize(("project", "rival"), [("assay-agents", False), ("assay-ai", True)])
def test_an_editable_install_is_known_by_its_source_folder(
    tmp_path: Path, project: str, rival: bool
) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "pyproject.toml").write_text(f'[project]\nname = "{project}"\n', encoding="utf-8")
    direct = f'{{"dir_info": {{"editable": true}}, "url": "{source.as_uri()}"}}'
    files = {"RECORD": _record("../../../bin/assay"), "direct_url.json": direct}
    site = tmp_path / "site"
    _distribution(site, "assay", "0.1.0", files)  # the name Assay had before it was published
    said = _version(tmp_path, site).stderr
    assert ("assay 0.1.0 also installs" in said) is rival, said


SUITE = """
import assay
from assay import checks

suite = assay.Suite("Clash", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
suite.case("one")
"""


def test_a_run_warns_once_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    site = tmp_path / "site"
    _distribution(site, "assay-sdk", "3.1", {"RECORD": _record("assay/__init__.py")})
    done = run_process(["run", "suite.py"], tmp_path, _with(site))
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "assay-sdk" in line]
    assert len(warnings) == 1, done.stderr
    assert warnings[0].startswith("warning: assay-sdk 3.1 also installs") and ADVICE in warnings[0]
    assert "assay-sdk" not in done.stdout


def test_a_run_without_another_project_says_nothing_of_it(tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    done = run_process(["run", "suite.py"], tmp_path, _with(None))
    assert done.returncode == 0, done.stderr
    assert "also installs" not in done.stderr


ALIAS = """
import signal, sys
sys.argv[0] = "/somewhere/bin/assay-agents"
import assay.startup
print("guarded", signal.getsignal(signal.SIGINT) is assay.startup.exit_interrupted)
from assay.cli.app import main
main()
"""


def test_the_assay_agents_command_is_the_same_command_under_its_name(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", ALIAS, "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "guarded True" in done.stdout  # Ctrl-C at start-up is one line, as for `assay`
    assert "Usage: assay-agents [OPTIONS] COMMAND [ARGS]..." in done.stdout
    assert "│ run " in done.stdout
