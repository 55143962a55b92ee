"""scripts/release.py: what it refuses before anything runs, and its manifest check.

The refusals run the real script in real git repositories; the manifest check reads a wheel
and an sdist that the standard ``build`` front end built from a copy of this checkout. The
whole dry run (gates aside), with its installed smoke on PostgreSQL, runs in CI from .ci/run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "release.py"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("assay_release_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


release = _load_script()


def _git(repo: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *arguments], capture_output=True, text=True, check=True
    )
    return done.stdout


def _commit_all(repo: Path) -> None:
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A committed project holding the script, a version and a changelog naming it."""
    repo = tmp_path / "project"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / "scripts" / "release.py")
    (repo / "src" / "assay_agents").mkdir(parents=True)
    (repo / "src" / "assay_agents" / "__init__.py").write_text('__version__ = "1.2.3"\n')
    (repo / "CHANGELOG.md").write_text("# Changelog\n\n## [1.2.3] - 2026-12-02\n\n- Things.\n")
    _git(repo, "init", "-q")
    _commit_all(repo)
    return repo


def _publish(repo: Path, *arguments: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TWINE_")}
    env.update(environment)
    return subprocess.run(
        [sys.executable, str(repo / "scripts" / "release.py"), *arguments],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_dirty_tree_is_refused_naming_the_changes(project: Path) -> None:
    (project / "CHANGELOG.md").write_text("# Changelog\n\n## [1.2.3]\n\n- Edited.\n")
    (project / "notes.txt").write_text("untracked\n")
    done = _publish(project, TWINE_PASSWORD="pypi-secret-token-value")
    assert done.returncode == 2
    assert "uncommitted changes" in done.stderr
    assert "CHANGELOG.md" in done.stderr and "notes.txt" in done.stderr
    assert "pypi-secret-token-value" not in done.stdout + done.stderr


def test_a_version_already_tagged_is_refused(project: Path) -> None:
    _git(project, "tag", "v1.2.3")
    done = _publish(project, TWINE_PASSWORD="pypi-secret-token-value")
    assert done.returncode == 2
    assert "already tagged v1.2.3" in done.stderr
    assert "pypi-secret-token-value" not in done.stdout + done.stderr


def test_missing_credentials_are_refused_naming_the_variable(project: Path) -> None:
    done = _publish(project, TWINE_USERNAME="someone")
    assert done.returncode == 2
    assert "TWINE_PASSWORD" in done.stderr


def test_a_changelog_without_the_version_is_refused(project: Path) -> None:
    (project / "CHANGELOG.md").write_text("# Changelog\n\n## [Unreleased]\n\n- Things.\n")
    _commit_all(project)
    done = _publish(project, TWINE_PASSWORD="pypi-secret-token-value")
    assert done.returncode == 2
    assert "'## [1.2.3]'" in done.stderr


def test_every_reason_is_given_at_once(project: Path) -> None:
    _git(project, "tag", "v1.2.3")
    (project / "stray.txt").write_text("x\n")
    done = _publish(project)
    assert done.returncode == 2
    for reason in ("uncommitted changes", "already tagged", "TWINE_PASSWORD"):
        assert reason in done.stderr


def test_skipping_the_gates_is_only_for_a_dry_run(project: Path) -> None:
    done = _publish(project, "--smoke-only", TWINE_PASSWORD="pypi-secret-token-value")
    assert done.returncode == 2
    assert "--smoke-only" in done.stderr and "--dry-run" in done.stderr


def test_the_script_neither_tags_nor_commits_when_it_refuses(project: Path) -> None:
    head = _git(project, "rev-parse", "HEAD")
    _publish(project, TWINE_PASSWORD="pypi-secret-token-value")
    _publish(project, "--dry-run", "--smoke-only", "--python", "/nonexistent/python")
    assert _git(project, "rev-parse", "HEAD") == head
    assert _git(project, "tag", "--list") == ""
    assert _git(project, "status", "--porcelain") == ""


# -- the manifest --


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, set[str]]:
    """A wheel and an sdist built from a committed copy of this checkout's tracked files.

    Untracked files lie in the copy where a working tree collects them (a history, an
    environment file, caches, a test's scratch database); none may reach a distribution.
    """
    copy = tmp_path_factory.mktemp("checkout") / "assay"
    for name in release.tracked_files(ROOT):
        source = ROOT / name
        if name.startswith("docs/") or not source.is_file():
            continue
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, copy / name)
    _git(copy, "init", "-q")
    _commit_all(copy)
    strays = [
        ".assay/assay.db",
        ".env",
        "src/assay_agents/.env",
        "src/assay_agents/__pycache__/x.cpython-311.pyc",
        "src/assay_agents/store/history.db",
        "tests/.pytest_cache/v/cache/lastfailed",
        "tests/scratch.sqlite3",
        ".envrc",
        "tests/.pypirc",
        "tests/fixtures/records/v4-baselines/history.db.0007.bak",
    ]
    for stray in strays:
        (copy / stray).parent.mkdir(parents=True, exist_ok=True)
        (copy / stray).write_text("private\n")
    dist = copy.parent / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(copy)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    return wheel, sdist, release.tracked_files(copy)


INCLUDED = release.sdist_includes(ROOT)
#: The tests reading ``built`` run on one worker, which builds once.
one_build = pytest.mark.xdist_group("release-build")


@one_build
def test_the_built_distributions_pass_the_manifest_check(
    built: tuple[Path, Path, set[str]],
) -> None:
    wheel, sdist, tracked = built
    assert release.manifest_problems(wheel, sdist, tracked, INCLUDED) == []
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "assay_agents/py.typed" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert any(name.endswith(".dist-info/extra_metadata/CHANGELOG.md") for name in names)
    assert not [name for name in names if ".env" in name or name.endswith((".db", ".pyc"))]
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == {"assay_agents"}
    with zipfile.ZipFile(wheel) as archive:
        points = archive.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    # The one command, under a name that no other project's `assay` command can overwrite.
    assert "\nassay = " not in points
    assert "assay-agents = assay_agents.cli.app:main" in points
    assert "assay-agents = assay_agents.pytest_plugin" in points


@one_build
def test_the_wheel_holds_every_tracked_file_of_the_package(
    built: tuple[Path, Path, set[str]],
) -> None:
    wheel, _, tracked = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    package = {
        name.removeprefix("src/") for name in tracked if name.startswith("src/assay_agents/")
    }
    assert package <= names
    data = {name for name in package if not name.endswith(".py")}
    assert {"assay_agents/py.typed", "assay_agents/report/templates/report.html.j2"} <= data
    assert any(name.startswith("assay_agents/dashboard/static/") for name in data)
    assert any(name.startswith("assay_agents/store/migrations/versions/") for name in package)


def _tampered_wheel(wheel: Path, target: Path, add: list[str], drop: set[str]) -> Path:
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(target, "w") as copy:
        for item in source.infolist():
            if item.filename not in drop:
                copy.writestr(item, source.read(item))
        for name in add:
            copy.writestr(name, "private\n")
    return target


@one_build
def test_private_files_in_the_wheel_are_named(
    built: tuple[Path, Path, set[str]], tmp_path: Path
) -> None:
    wheel, sdist, tracked = built
    added = [
        "assay_agents/.env",
        "assay_agents/__pycache__/cli.cpython-311.pyc",
        ".assay/assay.db",
        "assay_agents/store/history.sqlite3",
        "assay_agents/scratch.txt",
    ]
    tampered = _tampered_wheel(wheel, tmp_path / wheel.name, added, set())
    problems = "\n".join(release.manifest_problems(tampered, sdist, tracked, INCLUDED))
    for name in added[:4]:
        assert f"wheel: {name} is private or accidental" in problems
    assert "wheel: assay_agents/scratch.txt is not a tracked file of src/assay_agents" in problems


@one_build
def test_needed_files_missing_from_the_wheel_are_named(
    built: tuple[Path, Path, set[str]], tmp_path: Path
) -> None:
    wheel, sdist, tracked = built
    with zipfile.ZipFile(wheel) as archive:
        license_file = next(n for n in archive.namelist() if n.endswith("/licenses/LICENSE"))
    dropped = {
        "assay_agents/py.typed",
        "assay_agents/store/migrations/versions/0001_initial.py",
        "assay_agents/dashboard/static/dashboard.css",
        "assay_agents/report/templates/report.html.j2",
        license_file,
    }
    tampered = _tampered_wheel(wheel, tmp_path / wheel.name, [], dropped)
    problems = release.manifest_problems(tampered, sdist, tracked, INCLUDED)
    for name in sorted(dropped - {license_file}):
        assert f"wheel: {name} is missing" in problems
    assert "wheel: LICENSE is missing from .dist-info" in problems


@one_build
def test_an_sdist_with_untracked_or_private_files_is_named(
    built: tuple[Path, Path, set[str]], tmp_path: Path
) -> None:
    wheel, sdist, tracked = built
    tampered = tmp_path / sdist.name
    with tarfile.open(sdist) as source, tarfile.open(tampered, "w:gz") as copy:
        top = source.getmembers()[0].name.split("/")[0]
        for member in source.getmembers():
            if member.name != f"{top}/LICENSE":
                copy.addfile(member, source.extractfile(member) if member.isfile() else None)
        for name in ("tests/report.json", ".env.local"):
            stray = tmp_path / "stray"
            stray.write_text("x\n")
            copy.add(stray, arcname=f"{top}/{name}")
    problems = release.manifest_problems(wheel, tampered, tracked, INCLUDED)
    assert "sdist: tests/report.json is not under version control" in problems
    assert "sdist: .env.local is private or accidental" in problems
    assert "sdist: LICENSE is missing" in problems


@pytest.mark.parametrize(
    ("name", "private"),
    [
        ("assay_agents/cli/app.py", False),
        ("assay_agents/report/templates/report.css", False),
        ("assay_agents/.envoy.py", False),
        (".env", True),
        ("examples/.env.production", True),
        ("project/.assay/assay.db", True),
        ("assay_agents/history.db-wal", True),
        ("tests/__pycache__/conftest.cpython-312.pyc", True),
        ("assay_agents.egg-info/PKG-INFO", True),
        (".mypy_cache/3.11/x.json", True),
        ("history.db.0007.bak", True),
        ("assay_agents/store/history.db.partial", True),
        (".envrc", True),
        ("assay_agents/.pypirc", True),
        ("home/.ssh/id_rsa", True),
        ("id_ed25519", True),
        ("id_ed25519.pub", False),
        ("assay_agents/cli/id_rsa_check.py", False),
    ],
)
def test_what_counts_as_private(name: str, private: bool) -> None:
    assert release.is_private(name) is private


def _sdist_names(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as archive:
        return {member.name.split("/", 1)[1] for member in archive.getmembers() if member.isfile()}


@one_build
def test_the_sdist_ships_every_tracked_file_of_its_folders_with_the_fixtures(
    built: tuple[Path, Path, set[str]],
) -> None:
    _, sdist, tracked = built
    names = _sdist_names(sdist)
    fixtures = {name for name in tracked if name.startswith("tests/fixtures/records/")}
    assert {name for name in fixtures if name.endswith("/history.db")}
    assert fixtures <= names
    assert {name for name in tracked if name.startswith(("tests/", "examples/"))} <= names
    assert not [name for name in names if name.endswith(".bak") or "pypirc" in name]


@one_build
def test_a_tracked_file_missing_from_the_sdist_is_named(
    built: tuple[Path, Path, set[str]], tmp_path: Path
) -> None:
    wheel, sdist, tracked = built
    dropped = "tests/fixtures/records/v4-baselines/history.db"
    tampered = tmp_path / sdist.name
    with tarfile.open(sdist) as source, tarfile.open(tampered, "w:gz") as copy:
        for member in source.getmembers():
            if not member.name.endswith(dropped):
                copy.addfile(member, source.extractfile(member) if member.isfile() else None)
    problems = release.manifest_problems(wheel, tampered, tracked, INCLUDED)
    assert problems == [f"sdist: {dropped} is missing"]


@one_build
def test_an_untracked_database_in_the_sdist_is_private_even_beside_the_fixtures(
    built: tuple[Path, Path, set[str]], tmp_path: Path
) -> None:
    wheel, sdist, tracked = built
    tampered = tmp_path / sdist.name
    added = ["tests/fixtures/records/v4-baselines/scratch.db", "tests/history.db.0007.bak"]
    with tarfile.open(sdist) as source, tarfile.open(tampered, "w:gz") as copy:
        top = source.getmembers()[0].name.split("/")[0]
        for member in source.getmembers():
            copy.addfile(member, source.extractfile(member) if member.isfile() else None)
        stray = tmp_path / "stray"
        stray.write_text("x\n")
        for name in added:
            copy.add(stray, arcname=f"{top}/{name}")
    problems = release.manifest_problems(wheel, tampered, tracked, INCLUDED)
    assert problems == [f"sdist: {name} is private or accidental" for name in added]


@one_build
def test_the_wheel_holds_only_the_package_and_its_dist_info(
    built: tuple[Path, Path, set[str]], tmp_path: Path
) -> None:
    wheel, sdist, tracked = built
    private = [
        "history.db.0007.bak",
        ".envrc",
        ".pypirc",
        "id_rsa",
        "assay_agents-0.1.0.data/data/secrets.env",
    ]
    outside = ["assay_agents-0.1.0.data/data/notes.txt", "tests/conftest.py"]
    tampered = _tampered_wheel(wheel, tmp_path / wheel.name, [*private, *outside], set())
    problems = release.manifest_problems(tampered, sdist, tracked, INCLUDED)
    version = wheel.name.split("-")[1]
    for name in private + outside:
        assert any(problem.startswith(f"wheel: {name} is ") for problem in problems), name
    for name in outside:
        assert (
            f"wheel: {name} is outside assay_agents/ and assay_agents-{version}.dist-info/"
            in problems
        )
    assert len(problems) == len(private) + len(outside)


# -- the credentials reach only the upload --


def test_no_command_but_the_upload_sees_the_publishing_credentials(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secrets = {
        "TWINE_PASSWORD": "pypi-secret-token-value",
        "TWINE_USERNAME": "__token__",
        "PYPI_API_TOKEN": "pypi-other-token",
        "UV_PUBLISH_TOKEN": "pypi-uv-token",
    }
    for key, value in secrets.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("KEPT_FOR_THE_STEP", "yes")
    printed = release.run_step(
        "a step that prints its environment",
        [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"],
    )
    seen = json.loads(printed)
    assert seen["KEPT_FOR_THE_STEP"] == "yes"
    for environment in (seen, release.gate_environment(), release._clean_environment(tmp_path)):
        assert not set(secrets) & set(environment)
        assert "pypi-" not in json.dumps(environment)


# -- the changelog and the tree before the build --


@pytest.mark.parametrize(
    ("changelog", "found"),
    [
        ("## [1.2.3] - 2026-12-02\n", True),
        ("## 1.2.3 - 2026-12-02\n", True),
        ("## 1.2.3\n", True),
        ("## [1.2.30] - 2026-12-02\n", False),
        ("## 1.2.3rc1\n", False),
        ("## Unreleased\n\nUp to 1.2.3\n", False),
        ("### [1.2.3]\n", False),
    ],
)
def test_the_version_section_of_the_changelog(changelog: str, found: bool) -> None:
    assert release.has_version_section(f"# Changelog\n\n{changelog}", "1.2.3") is found


def test_a_changelog_with_a_plain_version_heading_is_accepted(project: Path) -> None:
    (project / "CHANGELOG.md").write_text("# Changelog\n\n## 1.2.3 - 2026-12-02\n\n- Things.\n")
    _commit_all(project)
    done = _publish(project, TWINE_USERNAME="someone")
    assert done.returncode == 2
    assert "CHANGELOG.md" not in done.stderr and "TWINE_PASSWORD" in done.stderr


def test_the_tree_is_checked_again_before_the_build(project: Path) -> None:
    commit = release.head_commit(project)
    release.check_unchanged(project, commit)
    (project / "notes.txt").write_text("written while the gates ran\n")
    with pytest.raises(release.StepFailed, match=r"notes\.txt"):
        release.check_unchanged(project, commit)
    _commit_all(project)
    with pytest.raises(release.StepFailed, match="moved from"):
        release.check_unchanged(project, commit)


def test_the_changelog_keeps_to_its_format_and_names_a_release_once_renamed() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("#")]
    groups = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    assert {line.removeprefix("### ") for line in headings if line.startswith("### ")} <= groups
    assert not [line for line in headings if line.startswith("####")]
    # A bracketed heading needs its link defined at the bottom, or it renders as brackets.
    for name in re.findall(r"^## \[([^\]]+)\]", text, re.M):
        assert re.search(rf"^\[{re.escape(name)}\]: \S+", text, re.M), name
    assert "## Unreleased" in text
    released = text.replace("## Unreleased", "## 9.9.9 - 2026-12-02", 1)
    assert release.has_version_section(released, "9.9.9")
