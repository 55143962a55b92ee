"""Replacing a file whole: a crash at any moment leaves the old file or the new one, never half.

The new text is written to a file beside the old one, flushed to disk and renamed over it
(a rename within a folder is atomic); the folder is flushed too, so the rename survives a
power cut. Whatever fails on the way removes the new file and leaves the old one as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from assay_agents.errors import SpecError


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, keeping an existing file's permissions.

    A file that is read-only (no write permission for anyone, or none for this user) is
    refused, a :class:`SpecError` naming it, and left as it was.
    """
    target = path.resolve()
    folder = target.parent
    kept = target.stat().st_mode & 0o7777 if target.exists() else None
    if kept is not None and (not os.access(target, os.W_OK) or not kept & 0o222):
        # The rename would replace it regardless; a file made read-only says keep it as is
        # (even to root, for whom access() grants everything).
        raise SpecError(
            "is read-only; nothing written (make it writable first)", location=str(path)
        )
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, kept if kept is not None else 0o644)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    # Not every system can open a folder to flush it; the rename is done either way.
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
