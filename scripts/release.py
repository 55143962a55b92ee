"""Check, build and publish Assay: gates, build, manifest check, an installed smoke, the upload.

    python scripts/release.py --dry-run               # everything except the upload
    python scripts/release.py --dry-run --smoke-only  # the build, manifest and installed smoke
    python scripts/release.py                         # all of it, then ``twine upload``

The gates are ``ruff check``, ``ruff format --check``, ``mypy --strict`` and the whole test
suite with PostgreSQL (a missing server fails it, never skips). The sdist and the wheel are
built with the standard ``build`` front end; the manifest check refuses anything private or
accidental in them and anything of the package's tracked files missing from them. The wheel
is then installed into fresh virtual environments outside the checkout, one per Python
interpreter found (3.11 and 3.12 where the machine has them), and driven from there: the
command line, the starter suite, the offline example and its regression, the replay example
on a throwaway PostgreSQL cluster with its saved evidence, every report format and the
dashboard. Everything temporary is removed afterwards.

Without ``--dry-run`` it first refuses a tree with uncommitted changes, a version already
tagged ``v<version>`` (among the local tags only: it fetches nothing, so fetch the remote's
tags first), a changelog without that version's section (``## [X.Y.Z]`` or ``## X.Y.Z``) and
missing credentials (``TWINE_PASSWORD``, an API token, with ``TWINE_USERNAME`` defaulting to
``__token__``); after the gates it checks again that the tree is clean and at the same commit
before building. Only ``twine upload`` sees the credentials: every other command runs without
the publishing variables (``TWINE_*``, ``PYPI_*`` and the like). It never bumps the version,
commits, tags or pushes: those are yours to do. Exit codes: 0 done,
1 a gate or smoke step failed, 2 refused before anything ran.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "assay_agents"
SMOKE_EXTRAS = "postgres,dashboard"
#: What the examples need beyond the package (the replay example's HTTP clients).
SMOKE_EXTRA_PACKAGES = ("httpx", "requests")
#: The interpreters the smoke looks for beside the one running this script.
SMOKE_PYTHONS = ("3.11", "3.12")
REPORT_FORMATS = {"text": "txt", "markdown": "md", "json": "json", "html": "html", "junit": "xml"}

#: Path parts that are private or accidental wherever they appear in a distribution.
PRIVATE_PARTS = frozenset(
    {
        ".assay",
        ".git",
        ".hypothesis",
        ".mypy_cache",
        ".node-datasets",
        ".pytest_cache",
        ".ruff_cache",
        ".venv",
        ".venv-datasets",
        "__pycache__",
        "node_modules",
    }
)
#: Databases: private wherever a working tree collects them, but a tracked test fixture of the
#: sdist may be one.
DATABASE_SUFFIXES = (".db", ".db-journal", ".db-wal", ".db-shm", ".sqlite", ".sqlite3")
PRIVATE_SUFFIXES = (
    ".pyc",
    ".pyo",
    ".log",
    ".bak",
    ".partial",
    ".pem",
    ".key",
)
#: File names that hold credentials, wherever they appear.
PRIVATE_NAMES = frozenset({".env", ".envrc", ".pypirc", ".netrc", ".coverage"})
#: Private keys of SSH (``id_rsa``, ``id_ed25519``…, not their ``.pub`` halves).
PRIVATE_KEY = re.compile(r"id_(rsa|dsa|ecdsa|ed25519)(_sk)?")
#: Environment variables that carry publishing credentials: only ``twine upload`` gets them.
PUBLISHING_PREFIXES = ("TWINE_", "PYPI_", "POETRY_PYPI_TOKEN_", "POETRY_HTTP_BASIC_")
PUBLISHING_NAMES = frozenset(
    {"FLIT_PASSWORD", "HATCH_INDEX_AUTH", "UV_PUBLISH_TOKEN", "UV_PUBLISH_PASSWORD"}
)
#: Files the package cannot work without, checked by name as well as against the tracked tree,
#: so that an untracked or moved data folder fails loudly too.
NEEDED_IN_WHEEL = (
    "assay_agents/py.typed",
    "assay_agents/store/migrations/env.py",
    "assay_agents/store/migrations/script.py.mako",
    "assay_agents/store/migrations/versions/0001_initial.py",
    "assay_agents/report/templates/report.html.j2",
    "assay_agents/report/templates/report.css",
    "assay_agents/report/templates/report.js",
    "assay_agents/dashboard/static/dashboard.css",
    "assay_agents/dashboard/templates/base.html.j2",
    "assay_agents/load/schemas.py",
)
NEEDED_IN_SDIST = ("LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", "PKG-INFO")


class Refused(Exception):
    """Something makes the release impossible before anything runs (exit 2)."""


class StepFailed(Exception):
    """A gate or a smoke step failed (exit 1)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the release as the options say; the exit code says how it went."""
    options = _parser().parse_args(argv)
    try:
        if options.smoke_only and not options.dry_run:
            raise Refused("--smoke-only skips the gates, so it needs --dry-run: nothing uploads")
        version = project_version(ROOT)
        print(f"Assay {version} from {ROOT}", flush=True)
        commit = "" if options.dry_run else head_commit(ROOT)
        if not options.dry_run:
            check_publishable(ROOT, version, os.environ)
        pythons = smoke_pythons(options.python)
    except Refused as refusal:
        print(f"release: refused: {refusal}", file=sys.stderr)
        return 2
    try:
        _release(options, version, pythons, commit)
    except StepFailed as failure:
        print(f"release: FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="release.py", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="everything but the upload; no credentials needed"
    )
    parser.add_argument(
        "--smoke-only",
        action="store_true",
        help="SKIP THE GATES (lint, types, tests): build, check the manifest and smoke the "
        "installed wheel only; needs --dry-run (CI runs the tests itself)",
    )
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="PATH",
        help="an interpreter to smoke the wheel with (repeatable; default: this one, and "
        "Python 3.11 and 3.12 where found)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary folders, to look into a failure"
    )
    return parser


def _release(options: argparse.Namespace, version: str, pythons: list[Path], commit: str) -> None:
    started = time.monotonic()
    if options.smoke_only:
        print("GATES SKIPPED (--smoke-only): lint, types and tests are not run here", flush=True)
    else:
        run_gates(ROOT)
    if not options.dry_run:
        with step("check the tree is still clean and at the same commit"):
            check_unchanged(ROOT, commit)
    work = Path(tempfile.mkdtemp(prefix="assay-release-"))
    try:
        dist = work / "dist"
        wheel, sdist = build(ROOT, dist)
        with step("check the manifest of the sdist and the wheel"):
            problems = manifest_problems(wheel, sdist, tracked_files(ROOT), sdist_includes(ROOT))
            if problems:
                raise StepFailed("the manifest:\n  " + "\n  ".join(problems))
        run_step(
            "twine check",
            [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        )
        passed = [smoke(wheel, python, version, work) for python in pythons]
        print(f"smoke passed on Python {', '.join(passed)}", flush=True)
        if options.dry_run:
            print(f"dry run: {wheel.name} and {sdist.name} built and checked, nothing uploaded")
        else:
            upload([wheel, sdist])
    finally:
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"release {'dry run ' if options.dry_run else ''}done in {_seconds(started)}", flush=True)


# -- the version and what may be published --


def project_version(root: Path) -> str:
    """The version in ``src/assay_agents/__init__.py``, the one place it is written."""
    init = root / "src" / PACKAGE / "__init__.py"
    try:
        found = re.search(r'^__version__ = "([^"]+)"$', init.read_text(encoding="utf-8"), re.M)
    except OSError as error:
        raise Refused(f"cannot read the version: {error}") from None
    if found is None:
        raise Refused(f'{init}: no __version__ = "..." line')
    return found.group(1)


def check_publishable(root: Path, version: str, environ: Mapping[str, str]) -> None:
    """Refuse a publication that would be wrong: every reason, before anything runs."""
    reasons = []
    dirty = _git(root, "status", "--porcelain", "--untracked-files=normal").splitlines()
    if dirty:
        listed = "; ".join(line.strip() for line in dirty[:10])
        more = f" and {len(dirty) - 10} more" if len(dirty) > 10 else ""
        reasons.append(f"the tree has uncommitted changes ({listed}{more}): commit them first")
    tag = f"v{version}"
    if _git(root, "tag", "--list", tag).strip():
        reasons.append(f"version {version} is already tagged {tag}: bump __version__ first")
    changelog = root / "CHANGELOG.md"
    if not changelog.is_file() or not has_version_section(
        changelog.read_text(encoding="utf-8"), version
    ):
        reasons.append(
            f"CHANGELOG.md has no '## [{version}]' (or '## {version}') section: name the "
            "release there"
        )
    if not environ.get("TWINE_PASSWORD"):
        reasons.append(
            "no credentials: set TWINE_PASSWORD to an API token (TWINE_USERNAME defaults to "
            "__token__)"
        )
    if reasons:
        raise Refused("\n  " + "\n  ".join(reasons))


def has_version_section(changelog: str, version: str) -> bool:
    """Whether the changelog has a ``## [X.Y.Z]`` or ``## X.Y.Z`` heading for ``version``."""
    escaped = re.escape(version)
    heading = re.compile(rf"^## (\[{escaped}\]|{escaped})(?![\w.\-+\]])", re.M)
    return heading.search(changelog) is not None


def head_commit(root: Path) -> str:
    """The commit checked out: the one the release is built from."""
    return _git(root, "rev-parse", "HEAD").strip()


def check_unchanged(root: Path, commit: str) -> None:
    """Refuse to build from a tree that changed while the gates ran (exit 1: they had run)."""
    dirty = _git(root, "status", "--porcelain", "--untracked-files=normal").splitlines()
    if dirty:
        listed = "; ".join(line.strip() for line in dirty[:10])
        raise StepFailed(f"the tree changed while the gates ran ({listed}): nothing was built")
    now = head_commit(root)
    if now != commit:
        raise StepFailed(
            f"the checkout moved from {commit[:12]} to {now[:12]} while the gates ran: "
            "nothing was built"
        )


def _git(root: Path, *arguments: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *arguments],
            capture_output=True,
            text=True,
            check=False,
            env=child_environment(),
        )
    except OSError as error:
        raise Refused(f"git is needed: {error}") from None
    if done.returncode != 0:
        raise Refused(f"git {' '.join(arguments)}: {done.stderr.strip()}")
    return done.stdout


def tracked_files(root: Path) -> set[str]:
    """The files under version control: what a distribution may hold (plus what builds make)."""
    return set(_git(root, "ls-files", "-z").split("\0")) - {""}


def sdist_includes(root: Path) -> list[str]:
    """The folders and files ``pyproject.toml`` puts in the sdist (``only-include``)."""
    with (root / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)
    included = project["tool"]["hatch"]["build"]["targets"]["sdist"]["only-include"]
    return [str(name).strip("/") for name in included]


def child_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment less the publishing credentials: for every command but the upload."""
    source = os.environ if environ is None else environ
    return {
        key: value
        for key, value in source.items()
        if not key.startswith(PUBLISHING_PREFIXES) and key not in PUBLISHING_NAMES
    }


# -- the gates and the build --


def run_gates(root: Path) -> None:
    """Lint, formatting, types and the whole test suite, PostgreSQL included."""
    python = sys.executable
    folders = ["src", "tests", "bench", "scripts"]
    run_step("ruff check", [python, "-m", "ruff", "check", *folders], cwd=root)
    run_step("ruff format --check", [python, "-m", "ruff", "format", "--check", *folders], cwd=root)
    run_step("mypy --strict src", [python, "-m", "mypy", "--strict", "src"], cwd=root)
    # CI=true: a missing PostgreSQL, Chromium or dataset tool fails its tests instead of
    # skipping them; no PYTEST_ADDOPTS may leave a part of the suite out.
    environment = gate_environment()
    run_step(
        "the test suite (with PostgreSQL)",
        [python, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=root,
        env=environment,
        show_output=True,
    )


def gate_environment() -> dict[str, str]:
    """The test suite's environment: no credentials, no PYTEST_ADDOPTS, CI=true."""
    environment = child_environment()
    environment.pop("PYTEST_ADDOPTS", None)
    environment["CI"] = "true"
    return environment


def build(root: Path, dist: Path) -> tuple[Path, Path]:
    """The sdist, then the wheel built from it, by the standard ``build`` front end."""
    run_step(
        "build the sdist and the wheel",
        [sys.executable, "-m", "build", "--outdir", str(dist), str(root)],
    )
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        raise StepFailed(f"expected one wheel and one sdist in {dist}, found {os.listdir(dist)}")
    return wheels[0], sdists[0]


# -- the manifest --


def manifest_problems(
    wheel: Path, sdist: Path, tracked: set[str], included: Sequence[str]
) -> list[str]:
    """What is wrong with the two distributions: private files in them, needed files missing.

    ``included`` is what ``pyproject.toml`` puts in the sdist: every tracked file under it
    must be there.
    """
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = [name for name in archive.namelist() if not name.endswith("/")]
    with tarfile.open(sdist) as archive:
        in_sdist = [
            str(PurePosixPath(*PurePosixPath(member.name).parts[1:]))
            for member in archive.getmembers()
            if member.isfile()
        ]
    return [
        *_wheel_problems(wheel, in_wheel, tracked),
        *_sdist_problems(in_sdist, tracked, included),
    ]


def _wheel_problems(wheel: Path, in_wheel: list[str], tracked: set[str]) -> list[str]:
    # The wheel's file name starts with the distribution's name and version, as its
    # .dist-info folder is named: nothing else may sit beside the package.
    name, version = wheel.name.split("-")[:2]
    allowed = (f"{PACKAGE}/", f"{name}-{version}.dist-info/")
    problems = [f"wheel: {name} is private or accidental" for name in in_wheel if is_private(name)]
    problems += [
        f"wheel: {name} is outside {' and '.join(allowed)}"
        for name in in_wheel
        if not name.startswith(allowed) and not is_private(name)
    ]
    package_files = sorted(name for name in tracked if name.startswith(f"src/{PACKAGE}/"))
    wheel_package = {name for name in in_wheel if name.startswith(f"{PACKAGE}/")}
    problems += [
        f"wheel: {name} is not a tracked file of src/{PACKAGE}"
        for name in sorted(wheel_package)
        if f"src/{name}" not in tracked and not is_private(name)
    ]
    problems += [
        f"wheel: {name.removeprefix('src/')} is missing"
        for name in package_files
        if name.removeprefix("src/") not in wheel_package
    ]
    problems += [f"wheel: {name} is missing" for name in NEEDED_IN_WHEEL if name not in in_wheel]
    metadata = {PurePosixPath(name).name for name in in_wheel if ".dist-info/" in name}
    problems += [
        f"wheel: {name} is missing from .dist-info"
        for name in ("LICENSE", "CHANGELOG.md", "entry_points.txt")
        if name not in metadata
    ]
    return problems


def _sdist_problems(in_sdist: list[str], tracked: set[str], included: Sequence[str]) -> list[str]:
    # A tracked database is a test fixture the tests read; an untracked one is private.
    problems = [
        f"sdist: {name} is private or accidental"
        for name in in_sdist
        if is_private(name, databases=name not in tracked)
    ]
    problems += [
        f"sdist: {name} is not under version control"
        for name in in_sdist
        if name not in tracked and name != "PKG-INFO" and not is_private(name)
    ]
    shipped = set(in_sdist)
    expected = sorted(
        name
        for name in tracked
        if any(name == top or name.startswith(f"{top}/") for top in included)
        and not is_private(name, databases=False)
    )
    problems += [
        f"sdist: {name} is missing"
        for name in dict.fromkeys([*NEEDED_IN_SDIST, *expected])
        if name not in shipped
    ]
    return problems


def is_private(name: str, *, databases: bool = True) -> bool:
    """Whether a file in a distribution is private or accidental: never to be published.

    ``databases=False`` leaves databases out of it, for a tracked fixture.
    """
    path = PurePosixPath(name)
    if PRIVATE_PARTS.intersection(path.parts):
        return True
    if databases and path.name.endswith(DATABASE_SUFFIXES):
        return True
    return (
        path.name in PRIVATE_NAMES
        or path.name.startswith(".env.")
        or PRIVATE_KEY.fullmatch(path.name) is not None
        or path.name.endswith(PRIVATE_SUFFIXES)
        or any(part.endswith(".egg-info") for part in path.parts)
    )


# -- the installed smoke --


def smoke_pythons(given: Sequence[str]) -> list[Path]:
    """The interpreters to smoke with: those given, else this one and 3.11/3.12 where found."""
    if given:
        found = []
        for path in given:
            if _python_version(Path(path)) is None:
                raise Refused(f"--python {path}: not a working Python interpreter")
            found.append(Path(path))
        return found
    chosen = {_python_version(Path(sys.executable)): Path(sys.executable)}
    for version in SMOKE_PYTHONS:
        if version in chosen:
            continue
        candidate = _find_python(version)
        if candidate is None:
            print(f"Python {version}: not found on this machine, not smoked", flush=True)
        else:
            chosen[version] = candidate
    return list(chosen.values())


def _find_python(version: str) -> Path | None:
    """``python3.X`` on PATH or under pyenv's versions, if it really runs (a shim may not)."""
    candidates = [shutil.which(f"python{version}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += [str(path) for path in sorted(pyenv.glob(f"{version}.*/bin/python{version}"))]
    for candidate in candidates:
        if candidate and _python_version(Path(candidate)) == version:
            return Path(candidate)
    return None


def _python_version(python: Path) -> str | None:
    try:
        done = subprocess.run(
            [str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            env=child_environment(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@dataclass
class Installed:
    """An installed Assay in a virtual environment of its own, driven from a project folder."""

    venv: Path
    project: Path

    def command(
        self,
        title: str,
        arguments: Sequence[str],
        *,
        expect: int = 0,
        env: dict[str, str] | None = None,
    ) -> str:
        """Run ``assay-agents ARGUMENTS`` (or the venv's ``python``) in the project; its output."""
        program = self.venv / "bin" / arguments[0]
        environment = _clean_environment(self.venv)
        environment.update(env or {})
        return run_step(
            title,
            [str(program), *arguments[1:]],
            cwd=self.project,
            env=environment,
            expect=expect,
        )


def smoke(wheel: Path, python: Path, version: str, work: Path) -> str:
    """Install the wheel with ``python`` outside the checkout and drive it; the Python version."""
    python_version = _python_version(python) or "?"
    print(f"== smoke on Python {python_version} ({python})", flush=True)
    place = Path(tempfile.mkdtemp(prefix=f"smoke-{python_version}-", dir=work))
    venv = place / "venv"
    run_step(
        f"create a virtual environment ({python_version})", [str(python), "-m", "venv", str(venv)]
    )
    run_step(
        "install the wheel with the postgres and dashboard extras",
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            f"{wheel}[{SMOKE_EXTRAS}]",
            *SMOKE_EXTRA_PACKAGES,
        ],
        env=_clean_environment(venv),
    )
    project = place / "project"
    project.mkdir()
    shutil.copytree(ROOT / "examples", project / "examples")
    installed = Installed(venv, project)
    where = installed.command(
        "import assay_agents from the environment",
        [
            "python",
            "-c",
            "import assay_agents as assay, sys; print(assay.__file__); print(sys.prefix)",
        ],
    )
    if not where.startswith(str(venv)) or str(ROOT) in where:
        raise StepFailed(f"assay_agents was imported from {where.splitlines()[0]}, not from {venv}")
    printed = installed.command("assay-agents --version", ["assay-agents", "--version"])
    if version not in printed:
        raise StepFailed(
            f"assay-agents --version printed {printed.strip()!r}, not version {version}"
        )
    _smoke_files(installed)
    with postgres() as url:
        _smoke_postgres(installed, url)
    return python_version


def _smoke_files(installed: Installed) -> None:
    """The starter suite, the JSON Schemas and the offline example with its regression."""
    installed.command("assay-agents init", ["assay-agents", "init", "."])
    installed.command(
        "assay-agents validate the starter suite", ["assay-agents", "validate", "assay_suite.py"]
    )
    installed.command(
        "assay-agents run the starter suite (exit 0)", ["assay-agents", "run", "assay_suite.py"]
    )
    for kind in ("item", "suite", "catalog"):
        schema = installed.command(f"assay-agents schema {kind}", ["assay-agents", "schema", kind])
        if "properties" not in json.loads(schema):
            raise StepFailed(f"assay-agents schema {kind} printed no JSON Schema")
    example = "examples/support_eval.py"
    installed.command("the offline example (exit 0)", ["assay-agents", "run", example])
    installed.command(
        "its regressed revision (exit 1)",
        ["assay-agents", "run", example, "--fail-on-regression"],
        expect=1,
        env={"AGENT_REVISION": "regressed"},
    )


def _smoke_postgres(installed: Installed, url: str) -> None:
    """The replay example on PostgreSQL, its evidence, every report format, the dashboard."""
    database = ["--db", url]
    installed.command(
        "assay-agents db migrate (PostgreSQL)", ["assay-agents", "db", "migrate", *database]
    )
    example = "examples/api_replay_eval.py"
    installed.command(
        "the replay example on PostgreSQL (exit 0)", ["assay-agents", "run", example, *database]
    )
    installed.command(
        "its regressed revision: argument mismatches (exit 1)",
        ["assay-agents", "run", example, "--fail-on-regression", *database],
        expect=1,
        env={"AGENT_REVISION": "regressed"},
    )
    history = json.loads(
        installed.command(
            "assay-agents history", ["assay-agents", "history", "--format", "json", *database]
        )
    )
    handles = [run["handle"] for run in history if run["suite"] == "Shipping API"]
    if sorted(handles) != ["Shipping API#1", "Shipping API#2"]:
        raise StepFailed(f"expected two stored Shipping API runs, found {handles}")
    reports = installed.project / "reports"
    reports.mkdir()
    # Every format of the latest run (the regressed one, with failures to show); the JSON of
    # the reference too, for its evidence.
    wanted = [(name, "Shipping API#2") for name in REPORT_FORMATS] + [("json", "Shipping API#1")]
    for name, handle in wanted:
        output = reports / f"{handle.replace(' ', '_').replace('#', '-')}.{REPORT_FORMATS[name]}"
        installed.command(
            f"assay-agents report {handle} --format {name}",
            [
                "assay-agents",
                "report",
                handle,
                "--format",
                name,
                "--output",
                str(output),
                *database,
            ],
        )
        check_report(name, output)
    with step("check the saved replay evidence"):
        fixture = installed.project / "examples" / "fixtures" / "quote_77.json"
        check_replay_evidence(
            json.loads((reports / "Shipping_API-1.json").read_text(encoding="utf-8")),
            json.loads((reports / "Shipping_API-2.json").read_text(encoding="utf-8")),
            _sha256(fixture),
        )
    dashboard_answers(installed, database)


def check_report(name: str, path: Path) -> None:
    """A report file of the format it was asked in, naming its suite."""
    text = path.read_text(encoding="utf-8")
    if "Shipping API" not in text:
        raise StepFailed(f"{path.name}: the {name} report does not name its suite")
    if name == "json":
        json.loads(text)
    elif name == "junit":
        root = ElementTree.fromstring(text)
        if root.tag not in {"testsuites", "testsuite"}:
            raise StepFailed(f"{path.name}: not JUnit XML (root <{root.tag}>)")
    elif name == "html" and "<html" not in text.lower():
        raise StepFailed(f"{path.name}: not an HTML page")


def check_replay_evidence(
    reference: dict[str, Any], regressed: dict[str, Any], quote_sha256: str
) -> None:
    """The evidence each run stored: all matched by the reference, mismatches named after it."""
    for sample in _samples(reference):
        evidence = sample["metadata"]["api_replay"]
        statuses = [request["status"] for request in evidence["requests"]]
        if not evidence["passed"] or statuses != ["matched"] or evidence["missing"]:
            raise StepFailed(f"reference {sample['case_id']}: replay evidence {evidence}")
    hashes = {
        declared["response"]["body_sha256"]
        for sample in _samples(reference)
        for declared in sample["metadata"]["api_replay"]["expected"]
    }
    if quote_sha256 not in hashes:
        raise StepFailed("the evidence holds no SHA-256 of the served fixture file's bytes")
    for sample in _samples(regressed):
        evidence = sample["metadata"]["api_replay"]
        mismatches = [
            r for r in evidence["requests"] if r["status"] == "mismatch" and r["differences"]
        ]
        if evidence["passed"] or not mismatches or sample["status"] != "error":
            raise StepFailed(f"regressed {sample['case_id']}: no mismatch recorded in {evidence}")
    differences = " ".join(
        difference
        for sample in _samples(regressed)
        for request in sample["metadata"]["api_replay"]["requests"]
        for difference in request["differences"]
    )
    for expected in ("missing id=42", '$.order_id: expected "77" (string), got 77 (number)'):
        if expected not in differences:
            raise StepFailed(
                f"the regressed run's evidence does not say {expected!r}: {differences}"
            )


def _samples(report: dict[str, Any]) -> list[dict[str, Any]]:
    samples = report.get("samples")
    if not isinstance(samples, list) or not samples:
        raise StepFailed("a JSON report holds no samples")
    return samples


def dashboard_answers(installed: Installed, database: list[str]) -> None:
    """``assay-agents dashboard`` serves the runs list: one request, then it is stopped."""
    port = _free_port()
    with step("the dashboard answers one request"):
        environment = _clean_environment(installed.venv)
        server = subprocess.Popen(
            [
                str(installed.venv / "bin" / "assay-agents"),
                "dashboard",
                "--port",
                str(port),
                *database,
            ],
            cwd=installed.project,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            page = _get_when_up(f"http://127.0.0.1:{port}/", server)
        finally:
            server.send_signal(signal.SIGINT)
            try:
                output, _ = server.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                output, _ = server.communicate()
        if page is None:
            raise StepFailed(f"the dashboard never answered:\n{_tail(output)}")
        if "Shipping API" not in page:
            raise StepFailed("the dashboard's runs page does not list the stored runs")


def _get_when_up(url: str, server: subprocess.Popen[str], wait: float = 60.0) -> str | None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return str(response.read().decode("utf-8"))
        except OSError:
            time.sleep(0.2)
    return None


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster (initdb, pg_ctl) for the smoke; its URL. Missing fails."""
    initdb, pg_ctl = _pg_binary("initdb"), _pg_binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise StepFailed(
            "PostgreSQL's initdb and pg_ctl were not found (under /usr/lib/postgresql/*/bin or "
            "on PATH): the smoke needs them, e.g. Debian's postgresql package"
        )
    # A folder of its own under the system's temporary folder: the postgres user cannot
    # enter the smoke's folders, which are private to this user.
    base = Path(tempfile.mkdtemp(prefix="assay-release-pg-"))
    data = base / "data"
    try:
        if os.geteuid() == 0:
            shutil.chown(base, user="postgres", group="postgres")
        initialise = [initdb, "-D", str(data), "-A", "trust", "-U", "postgres"]
        run_step("initdb a throwaway PostgreSQL cluster", _as_postgres(initialise))
        port = _free_port()
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(base / "server.log")
        start = [pg_ctl, "-D", str(data), "-l", log, "-o", options, "-w", "start"]
        run_step(f"start it on port {port}", _as_postgres(start))
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                _as_postgres([pg_ctl, "-D", str(data), "stop", "-m", "immediate"]),
                capture_output=True,
                check=False,
                env=child_environment(),
            )
        shutil.rmtree(base, ignore_errors=True)


def _pg_binary(name: str) -> str | None:
    def major(path: str) -> int:
        version = Path(path).parents[1].name
        return int(version) if version.isdigit() else 0

    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda p: major(str(p)))
    return str(found[-1]) if found else shutil.which(name)


def _as_postgres(command: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root; as root the cluster is the postgres user's.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _clean_environment(venv: Path) -> dict[str, str]:
    """The environment, less credentials and anything pointing at the checkout or a database."""
    environment = {
        key: value
        for key, value in child_environment().items()
        if key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTEST_ADDOPTS"}
        and not key.startswith("ASSAY_")
    }
    environment["PATH"] = f"{venv / 'bin'}{os.pathsep}{environment.get('PATH', '')}"
    environment["VIRTUAL_ENV"] = str(venv)
    return environment


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the upload --


def upload(files: list[Path]) -> None:
    """``twine upload`` of the checked files, with the credentials of the environment."""
    environment = dict(os.environ)
    environment.setdefault("TWINE_USERNAME", "__token__")
    run_step(
        "twine upload",
        [sys.executable, "-m", "twine", "upload", "--non-interactive", *map(str, files)],
        env=environment,
        show_output=True,
    )


# -- steps --


@contextlib.contextmanager
def step(title: str) -> Iterator[None]:
    """Print a step as it starts and ends, with its time; a failure says which step it was."""
    print(f"-> {title}", flush=True)
    started = time.monotonic()
    try:
        yield
    except StepFailed:
        print(f"   FAILED: {title} ({_seconds(started)})", flush=True)
        raise
    print(f"   ok: {title} ({_seconds(started)})", flush=True)


def run_step(
    title: str,
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    expect: int = 0,
    show_output: bool = False,
) -> str:
    """Run a command as one step; its standard output. Another exit code than ``expect`` fails.

    Without ``env`` the command gets the environment less the publishing credentials.
    """
    with step(title):
        try:
            done = subprocess.run(
                list(command),
                cwd=cwd,
                env=child_environment() if env is None else env,
                stdout=None if show_output else subprocess.PIPE,
                stderr=None if show_output else subprocess.PIPE,
                text=True,
                check=False,
            )
        except OSError as error:
            raise StepFailed(f"{title}: {error}") from None
        if done.returncode != expect:
            shown = "" if show_output else f"\n{_tail(done.stdout)}\n{_tail(done.stderr)}"
            raise StepFailed(
                f"{title}: exit {done.returncode}, expected {expect}: {' '.join(command)}{shown}"
            )
        return done.stdout or ""


def _tail(text: str | None, lines: int = 40) -> str:
    return "\n".join((text or "").splitlines()[-lines:])


def _seconds(started: float) -> str:
    return f"{time.monotonic() - started:.1f} s"


if __name__ == "__main__":
    sys.exit(main())
