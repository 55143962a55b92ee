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


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, keeping an existing file's permissions."""
    target = path.resolve()
    folder = target.parent
    kept = target.stat().st_mode & 0o7777 if target.exists() else None
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
