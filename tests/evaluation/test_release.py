"""Release pinning: the release a run scores, read from git by default, in reports and history."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents.evaluation import MemoryRunStore, history
from assay_agents.report import Report
from assay_agents.results.release import Release
from commandline import Cli

SUITE = """
import assay_agents as assay
from assay_agents import checks

suite = assay.Suite("Pinned", agent=lambda text, ctx: "ok", checks=[checks.contains("ok")])
suite.case("q", id="q")
"""

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def git(folder: Path, *arguments: str) -> str:
    identity = ["-c", "user.email=ci@example.com", "-c", "user.name=CI"]
    done = subprocess.run(
        ["git", *identity, "-C", str(folder), *arguments],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real git repository holding the suite file (in a subfolder), committed."""
    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    monkeypatch.chdir(root)
    git(root, "init", "-q")
    (root / "evals" / "pinned_suite.py").write_text(SUITE)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "the suite")
    return root


@needs_git
def test_the_revision_is_the_commit_clean_then_dirty(repository: Path, tmp_path: Path) -> None:
    head = git(repository, "rev-parse", "HEAD")
    spec = repository / "evals" / "pinned_suite.py"
    url = f"sqlite:///{tmp_path}/history.db"
    assay.Store.open(url, migrate=True).close()
    first = assay.run(spec, db=url, release={"label": "v1"}, progress=False)
    # The run's own history, untracked in the repository (.assay/), is not a change.
    second = assay.run(spec, progress=False)
    assert (repository / ".assay").is_dir()
    assert first.settings.release == Release(revision=head, label="v1", dirty=False)
    assert second.settings.release is not None
    assert (second.settings.release.revision, second.settings.release.dirty) == (head, False)
    (repository / "agent.py").write_text("changed = True\n")
    dirty = assay.run(spec, db=url, progress=False)
    assert dirty.settings.release is not None
    assert (dirty.settings.release.revision, dirty.settings.release.dirty) == (head, True)
    given = assay.run(spec, db=url, release={"revision": "v1.2.3"}, progress=False)
    assert given.settings.release == Release(revision="v1.2.3")
    assert (
        assay.run(spec, db=url, release={"revision": None}, progress=False).settings.release is None
    )


@needs_git
def test_a_suite_outside_a_repository_or_without_git_has_no_revision(
    tmp_path: Path, repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pinned_suite.py").write_text(SUITE)
    url = f"sqlite:///{outside}/history.db"
    assay.Store.open(url, migrate=True).close()
    assert assay.run(outside / "pinned_suite.py", db=url, progress=False).settings.release is None
    # Inside the repository, but with no git to ask: nothing, and the run goes on.
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    run = assay.run(
        repository / "evals" / "pinned_suite.py", db=url, release={"label": "rc"}, progress=False
    )
    assert run.status is assay.RunStatus.COMPLETED
    assert run.settings.release == Release(label="rc")


def test_a_release_is_validated_before_anything_is_stored(tmp_path: Path) -> None:
    suite = assay.Suite("Pinned", agent=lambda text, ctx: "ok")
    suite.case("q", id="q", checks=[assay.checks.contains("ok")])
    store = MemoryRunStore()
    for bad, field in (
        ({"tag": "v1"}, "release.tag"),
        ({"label": "v1\nSTATUS: passed"}, "release.label"),
        ({"label": ""}, "release.label"),
        ({"digest": 12}, "release.digest"),
    ):
        with pytest.raises(assay.SpecError, match=field):
            assay.run(suite, db=store, release=bad, progress=False)
    assert store.history() == []


def test_a_resume_keeps_the_release_it_started_with(tmp_path: Path) -> None:
    suite = assay.Suite("Pinned", agent=lambda text, ctx: "ok")
    suite.case("q", id="q", checks=[assay.checks.contains("ok")])
    store = MemoryRunStore()

    class Idle:
        name = "idle"

        async def execute(self, work):
            return []  # leaves every sample out: the run stays interrupted

    with pytest.raises(assay.IncompleteRunError) as stopped:
        assay.run(
            suite,
            db=store,
            release={"revision": "abc", "label": "v1"},
            executor=Idle(),
            progress=False,
        )
    run_id = stopped.value.run_id
    with pytest.raises(assay.ConfigurationError, match="label"):
        assay.run(suite, db=store, resume=run_id, release={"label": "v2"}, progress=False)
    resumed = assay.run(suite, db=store, resume=run_id, release={"label": "v1"}, progress=False)
    assert resumed.settings.release == Release(revision="abc", label="v1")


def _runs_of_releases(store: assay.evaluation.RunStore) -> None:
    suite = assay.Suite("Pinned", agent=lambda text, ctx: "ok")
    suite.case("q", id="q", checks=[assay.checks.contains("ok")])
    for release, metadata in (
        ({"revision": "ABCdef1234", "label": "v1"}, {}),
        ({"revision": "abc_999", "label": "v2"}, {}),
        ({"revision": None}, {"revision": "abcd-from-metadata"}),
        ({"revision": "fff%", "label": "v1"}, {}),
    ):
        assay.run(suite, db=store, release=release, metadata=metadata, progress=False)


def test_the_history_finds_the_runs_of_a_revision_and_a_label(store) -> None:
    _finds_the_runs_of_a_release(store)


def test_the_memory_store_finds_them_as_the_sql_store_does() -> None:
    _finds_the_runs_of_a_release(MemoryRunStore())


def _finds_the_runs_of_a_release(store) -> None:
    _runs_of_releases(store)

    def labels(**asked: str) -> list[str | None]:
        runs = history(store, **asked).runs
        return [
            r.settings.release.label if r.settings.release else r.metadata["revision"] for r in runs
        ]

    assert labels(revision="abc") == ["abcd-from-metadata", "v2", "v1"]
    assert labels(revision="ABCD") == ["abcd-from-metadata", "v1"]  # a prefix, in any case
    assert labels(revision="abc_") == ["v2"]  # a LIKE wildcard is a character
    assert labels(revision="fff%") == ["v1"]
    assert labels(label="v1") == ["v1", "v1"]
    assert labels(label="v1", revision="abc") == ["v1"]
    found = history(store, label="v3", suite="Pinned")
    assert found.runs == () and found.missing == "no runs of label 'v3' of suite 'Pinned'"


def test_the_command_line_pins_lists_and_reports_the_release(tmp_path: Path) -> None:
    cli = Cli(tmp_path)
    (tmp_path / "pinned_suite.py").write_text(SUITE)
    done = cli("run", "pinned_suite.py", "--revision", "0a1b2c3d", "--release-label", "canary")
    assert done.returncode == 0, done.output
    cli("run", "pinned_suite.py", "--release-label", "stable")
    listed = cli("history", "--label", "canary", "--format", "json")
    rows = json.loads(listed.stdout)
    assert [(row["revision"], row["release"]) for row in rows] == [
        ("0a1b2c3d", {"revision": "0a1b2c3d", "label": "canary"})
    ]
    table = cli("history", "--revision", "0A1B").stdout
    assert "0a1b2c3d" in table and "canary" in table and "stable" not in table
    assert "Release:" in cli("report", "Pinned#1").stdout
    bad = cli("run", "pinned_suite.py", "--release-label", "x" * 300)
    assert bad.returncode == 2 and "release.label" in bad.stderr
    assert len(json.loads(cli("history", "--format", "json").stdout)) == 2


def test_every_report_format_shows_the_release_in_its_header() -> None:
    suite = assay.Suite("Pinned", agent=lambda text, ctx: "ok")
    suite.case("q", id="q", checks=[assay.checks.contains("ok")])
    release = {"digest": "sha256:9f86d081", "revision": "0a1b2c3d4e5f", "label": "v2.3"}
    run = assay.run(suite, db=MemoryRunStore(), release=release, progress=False)
    report = Report(run)
    line = "label v2.3 · revision 0a1b2c3d4e5f · digest sha256:9f86d081"
    assert f"Release:      {line}" in report.render("text")
    assert line in report.render("markdown") and "Release" in report.render("markdown")
    assert line in report.render("html")
    assert json.loads(report.render("json"))["settings"]["release"] == release
    junit = report.render("junit")
    for name, value in release.items():
        assert f'<property name="assay.release.{name}" value="{value}" />' in junit


@needs_git
def test_a_rescore_keeps_the_release_of_the_run_it_rescores(repository: Path) -> None:
    store = MemoryRunStore()
    spec = repository / "evals" / "pinned_suite.py"
    original = assay.run(spec, db=store, release={"revision": "0ld", "label": "v1"}, progress=False)
    unpinned = assay.run(spec, db=store, release={"revision": None}, progress=False)
    # Rescored inside a repository: the release is the stored run's, never this checkout's.
    rescored = assay.rescore(original.id, db=store, checks_only=True, progress=False).run
    assert rescored.settings.release == Release(revision="0ld", label="v1")
    bare = assay.rescore(unpinned.id, db=store, checks_only=True, progress=False).run
    assert bare.settings.release is None
