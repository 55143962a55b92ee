"""The release of the agent a run scored, and how the history finds runs by it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from assay_agents.errors import SpecError
from assay_agents.spec.json_data import JSON, storable_text

#: Run metadata keys that name the code a run measured, in order of preference: what runs
#: stored before releases (``--metadata '{"revision": ...}'``) name it by.
REVISION_KEYS = ("revision", "git_sha", "commit", "sha", "version")
OMIT_NONE = {"omit_none": True}


#: The longest text a release field holds: a label, a revision or a digest, not a document.
RELEASE_TEXT = 200


@dataclass(frozen=True, slots=True)
class Release:
    """The release of the agent a run scored: its digest, revision and label, as given.

    ``revision`` is read from git by default (the commit of the repository the suite file is
    in, ``dirty`` when its tree had changes); ``digest`` (of a built artefact, an image) and
    ``label`` (``v2.3``, ``canary``) are the caller's. Stored with the run's settings, shown
    in every report's header and filterable in the history.
    """

    digest: str | None = field(default=None, metadata=OMIT_NONE)
    revision: str | None = field(default=None, metadata=OMIT_NONE)
    label: str | None = field(default=None, metadata=OMIT_NONE)
    #: The working tree had changes the revision does not hold.
    dirty: bool = field(default=False, metadata={"omit_empty": True})

    def __post_init__(self) -> None:
        for name in ("digest", "revision", "label"):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, str) or not value.strip():
                raise SpecError(f"{value!r} is not a non-empty string", field=f"release.{name}")
            if len(value) > RELEASE_TEXT or any(ord(c) < 32 or ord(c) == 127 for c in value):
                raise SpecError(
                    f"must be one line of at most {RELEASE_TEXT} characters",
                    field=f"release.{name}",
                )
            storable_text(value, f"release.{name}")
        if not isinstance(self.dirty, bool):
            raise SpecError(f"{self.dirty!r} is not true or false", field="release.dirty")

    def line(self) -> str:
        """``label v2.3 · revision 1a2b3c4d5e6f (dirty) · digest sha256:…``: one line."""
        parts = [] if self.label is None else [f"label {self.label}"]
        if self.revision is not None:
            dirty = " (uncommitted changes)" if self.dirty else ""
            parts.append(f"revision {self.revision}{dirty}")
        if self.digest is not None:
            parts.append(f"digest {self.digest}")
        return " · ".join(parts)


def run_revision(release: Release | None, metadata: Mapping[str, JSON]) -> str | None:
    """The revision a run measured: its release's, else the one its metadata names."""
    if release is not None and release.revision is not None:
        return release.revision
    for key in REVISION_KEYS:
        value = metadata.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            return str(value)
    return None


def release_matches(
    release: Release | None,
    metadata: Mapping[str, JSON],
    *,
    revision: str | None = None,
    label: str | None = None,
) -> bool:
    """Whether a run is of ``revision`` (a prefix, in any case) and ``label`` (exactly).

    The revision is the release's or any the metadata names (:data:`REVISION_KEYS`), as the
    SQL store narrows it.
    """
    if label is not None and (release is None or release.label != label):
        return False
    if revision is None:
        return True
    found = [] if release is None or release.revision is None else [release.revision]
    found += [str(metadata[key]) for key in REVISION_KEYS if isinstance(metadata.get(key), str)]
    return any(each.lower().startswith(revision.lower()) for each in found)
