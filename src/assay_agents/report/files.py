"""Report files: a path refused before anything runs, a file replaced whole or not at all.

:func:`check_target` is asked before a report is rendered (and, for ``assay-agents run --report``
and ``--summary``, before the run starts): a path that names a folder, lies in a folder that
does not exist, or in one that refuses a new file is a
:class:`~assay_agents.errors.ConfigurationError` naming it. The folder is tried by creating a file
in it, since permission bits say nothing for root or for a read-only mount.

:func:`write_atomically` writes the new file beside the old one, flushes it to disk and
renames it over the old: a reader sees the old report or the new one, never half of one, and
a renderer or a disk that fails half way leaves the old report as it was. A symbolic link
stays a link (the file it names is replaced); a device or a pipe (``/dev/stdout``) is written
to, since nothing can replace it. A write that fails raises :class:`OSError` naming ``path``.

The file being written is named after its target and its writer's process
(``.report.html.<pid>.<random>.tmp``), and holds a lock while it is written: a writer killed
half way (``kill -9``, a power cut) leaves it behind, and the next write of the same target
removes it once its process is gone and its lock free, never a live writer's.
:func:`append_text` adds to a file that other steps also write (a CI job summary).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from assay_agents.errors import ConfigurationError

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
        probe = _create(_beside(folder, path.name, "probe"), 0o600)
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
    stray file behind; a failure of the disk is an :class:`OSError` whose ``filename`` is
    ``path``.
    """
    with _named(path):
        if _stream(path):  # a device or a pipe (/dev/stdout): written to, as nothing can replace it
            with path.open("w", encoding="utf-8") as out:
                out.writelines(chunks)
            return path
        _replace(_real(path), chunks)
    return path


def _replace(target: Path, chunks: Iterable[str]) -> None:
    folder = _folder(target)
    _remove_abandoned(folder, target.name)
    kept = _mode(target)
    # A new report gets what any new file gets: 0o666 less the umask, applied by the system.
    descriptor, temporary = _create(
        _beside(folder, target.name, "tmp"), 0o666 if kept is None else kept
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            _lock(out.fileno())
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
    _sync_folder(folder)


@contextlib.contextmanager
def _named(path: Path) -> Iterator[None]:
    """An :class:`OSError` on the way names ``path``, the file the caller asked for."""
    try:
        yield
    except OSError as error:
        if error.errno is None:
            raise
        raise OSError(error.errno, error.strerror or str(error), str(path)) from error


def _beside(folder: Path, name: str, kind: str) -> Path:
    """A new file's name beside ``name``: hidden, and naming the process that writes it."""
    return folder / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.{kind}"


def _remove_abandoned(folder: Path, name: str) -> None:
    """Remove what writers of ``name`` killed half way left: files whose process is gone."""
    pattern = re.compile(rf"\.{re.escape(name)}\.(\d+)\.[0-9a-f]{{8}}\.(?:tmp|probe)")
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found is None or not entry.is_file(follow_symlinks=False):
            continue
        if not _alive(int(found[1])):
            _remove_unlocked(Path(entry.path))


def _alive(pid: int) -> bool:
    """Whether process ``pid`` may still be running (one of another user's counts)."""
    if pid == os.getpid() or os.name == "nt":  # there, signal 0 would interrupt the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def _remove_unlocked(path: Path) -> None:
    """Remove ``path`` unless a writer holds its lock (one on another host sharing the folder)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        if _locked_elsewhere(descriptor):
            return
        with contextlib.suppress(OSError):
            os.unlink(path)
    finally:
        os.close(descriptor)


def _lock(descriptor: int) -> None:
    """Hold a lock on the file being written, released by the system however the writer ends."""
    try:
        import fcntl
    except ImportError:  # no such locks here: the process id alone tells a leftover
        return
    with contextlib.suppress(OSError):
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _locked_elsewhere(descriptor: int) -> bool:
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    return False


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
