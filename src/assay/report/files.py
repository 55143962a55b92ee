"""Report files: a path refused before anything runs, a file replaced whole or not at all.

:func:`check_target` is asked before a report is rendered (and, for ``assay run --report``
and ``--summary``, before the run starts): a path that names a folder, lies in a folder that
does not exist, or in one that refuses a new file is a
:class:`~assay.errors.ConfigurationError` naming it. The folder is tried by creating a file
in it, since permission bits say nothing for root or for a read-only mount.

:func:`write_atomically` writes the new file beside the old one, flushes it to disk and
renames it over the old: a reader sees the old report or the new one, never half of one, and
a renderer or a disk that fails half way leaves the old report as it was. A symbolic link
stays a link (the file it names is replaced); a device or a pipe (``/dev/stdout``) is written
to, since nothing can replace it.
:func:`append_text` adds to a file that other steps also write (a CI job summary).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from assay.errors import ConfigurationError

__all__ = ["append_text", "check_target", "write_atomically"]


def check_target(path: Path, *, named: str | None = None) -> None:
    """Refuse a path a report cannot be written to, naming it (``named``, or the path)."""
    label = named or f"report {str(path)!r}"
    if path.is_dir():
        raise ConfigurationError(f"{label} is a directory, not a file")
    if _stream(path):
        if not os.access(path, os.W_OK):
            raise ConfigurationError(f"{label} cannot be written: permission denied")
        return
    folder = _folder(_real(path))
    if not folder.exists():
        raise ConfigurationError(f"{label}: folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise ConfigurationError(f"{label}: {str(folder)!r} is not a folder")
    try:
        probe = _create(folder / f".{path.name}.{secrets.token_hex(4)}.probe", 0o600)
    except OSError as error:
        raise ConfigurationError(
            f"{label} cannot be written: {error.strerror or error} in folder {str(folder)!r}"
        ) from None
    os.close(probe[0])
    os.unlink(probe[1])


def write_atomically(path: Path, chunks: Iterable[str]) -> Path:
    """Write ``chunks`` (UTF-8) to a new file beside ``path`` and rename it over ``path``.

    The new file is flushed to disk before the rename; an existing file's permissions are
    kept. Whatever fails on the way (the text, the disk) leaves ``path`` as it was and no
    stray file behind.
    """
    if _stream(path):  # a device or a pipe (/dev/stdout): written to, as nothing can replace it
        with path.open("w", encoding="utf-8") as out:
            out.writelines(chunks)
        return path
    target = _real(path)
    kept = _mode(target)
    # A new report gets what any new file gets: 0o666 less the umask, applied by the system.
    descriptor, temporary = _create(
        _folder(target) / f".{target.name}.{secrets.token_hex(4)}.tmp",
        0o666 if kept is None else kept,
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            for chunk in chunks:
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if kept is not None:
            os.chmod(temporary, kept)  # the old file's, whatever the umask made of them
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(_folder(target))
    return path


def append_text(path: Path, text: str) -> None:
    """Add ``text`` (UTF-8) at the end of ``path``, creating it when missing, flushed to disk."""
    with path.open("a", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())


def _real(path: Path) -> Path:
    """The file a symbolic link points at: the link stays, the file it names is replaced."""
    return path.resolve() if path.is_symlink() else path


def _stream(path: Path) -> bool:
    """Whether ``path`` is something other than a file or folder: a device, a pipe."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _create(path: Path, mode: int) -> tuple[int, Path]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, mode), path


def _mode(path: Path) -> int | None:
    """An existing file's permissions; ``None`` when there is none."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None


def _sync_folder(folder: Path) -> None:
    """Flush the rename itself to disk, where the platform lets a folder be opened."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
