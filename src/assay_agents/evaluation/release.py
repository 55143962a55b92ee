"""The release a run scores: what the caller gave, and the revision git names by default.

``release={"digest": ..., "revision": ..., "label": ...}`` (``--revision``,
``--release-label``) names it; a revision not given is read from git, as a subprocess
(``git rev-parse HEAD``, then ``git status --porcelain`` for uncommitted changes), in the
repository holding the suite file (the working directory for a suite built in Python). No
git, or no repository there: no revision, and the run goes on. Assay's own history folder
(``.assay/``) is not a change to the code, so it never makes a tree dirty.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from assay_agents.errors import ConfigurationError, SpecError
from assay_agents.results.release import Release

#: The keys ``release=`` takes.
RELEASE_KEYS = ("digest", "revision", "label", "dirty")
#: Seconds a git command may take before the revision is left unread.
GIT_TIMEOUT = 10.0
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class ReleaseAsked:
    """The release fields the caller gave, and whether git is to name the revision."""

    given: Release | None = None
    read_git: bool = True

    @classmethod
    def of(cls, value: Mapping[str, Any] | Release | None) -> ReleaseAsked:
        """Validate ``release=``: a mapping of :data:`RELEASE_KEYS`, or a whole ``Release``.

        A revision given as ``None`` reads none from git; so does a ``Release`` (a stored
        one, carried to a rescore of its run).
        """
        if value is None:
            return cls()
        if isinstance(value, Release):
            return cls(value, read_git=False)
        if not isinstance(value, Mapping):
            raise ConfigurationError(
                f"release {value!r} is not a mapping of {', '.join(RELEASE_KEYS)}"
            )
        unknown = [key for key in value if key not in RELEASE_KEYS]
        if unknown:
            raise SpecError(
                f"unknown key {unknown[0]!r}; expected {', '.join(RELEASE_KEYS)}",
                field=f"release.{unknown[0]}",
            )
        given = Release(**{key: item for key, item in value.items() if item is not None})
        return cls(given, read_git="revision" not in value)

    def conflict(self, stored: Release | None) -> str | None:
        """The first field given that a resumed run stored otherwise, if any."""
        if self.given is None:
            return None
        for field in fields(Release):
            asked = getattr(self.given, field.name)
            if asked not in (None, False) and asked != getattr(stored, field.name, None):
                return field.name
        return None


def resolve_release(asked: ReleaseAsked, folder: Path) -> Release | None:
    """The release to store: the fields given, the revision from git in ``folder`` if asked.

    Runs git (a subprocess): call it off the event loop.
    """
    given = asked.given or Release()
    if asked.read_git:
        found = git_revision(folder)
        if found is not None:
            given = Release(given.digest, found[0], given.label, found[1])
    return None if given == Release() else given


def git_revision(folder: Path) -> tuple[str, bool] | None:
    """``(commit, dirty)`` of the repository holding ``folder``; ``None`` without git or one."""
    git = shutil.which("git")
    if git is None or not folder.is_dir():
        return None
    head = _git(git, folder, "rev-parse", "--verify", "--quiet", "HEAD")
    if head is None or not _COMMIT.fullmatch(head):
        return None
    status = _git(
        git, folder, "status", "--porcelain", "--", ":(top)", ":(top,exclude,glob)**/.assay/**"
    )
    return head, bool(status)


def _git(git: str, folder: Path, *arguments: str) -> str | None:
    # No optional locks: reading the revision must never block a commit made meanwhile. No
    # fsmonitor: a repository's own configuration must not start a program here.
    command = [git, "-c", "core.fsmonitor=false", "-C", str(folder), *arguments]
    environment = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            env=environment,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def suite_folder(origin: Path | None) -> Path:
    """Where the suite lives: the folder of its file (or the folder it is), else here."""
    if origin is None:
        return Path.cwd()
    return origin if origin.is_dir() else origin.parent
