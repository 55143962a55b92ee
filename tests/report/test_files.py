"""Report files: a path refused before anything is written, a file replaced whole or not at all."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay_agents.errors import ConfigurationError
from assay_agents.report import Report
from assay_agents.report.files import append_text, check_target, write_atomically
from assay_agents.results import Run


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder no file can be created in, for root too (who ignores permission bits)."""
    if os.geteuid() == 0:
        return Path("/proc/self")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    return folder


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    target = tmp_path / "nowhere" / "report.xml"
    with pytest.raises(ConfigurationError, match=r"folder .*nowhere.* does not exist"):
        check_target(target)
    assert not target.parent.exists()


def test_a_folder_that_is_a_file_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="is not a folder"):
        check_target(blocker / "report.md")


def test_a_folder_given_as_the_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="is a directory"):
        check_target(tmp_path)


def test_an_unwritable_folder_is_named(tmp_path: Path) -> None:
    folder = unwritable_folder(tmp_path)
    target = folder / "report.md"
    with pytest.raises(ConfigurationError, match="cannot be written") as caught:
        check_target(target, named=f"--report {target}")
    assert str(caught.value).startswith(f"--report {target}")
    assert not target.exists()


def test_an_existing_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.write_text("old report\n", encoding="utf-8")
    before = target.stat().st_ino
    write_atomically(target, ["new ", "report\n"])
    assert target.read_text(encoding="utf-8") == "new report\n"
    assert target.stat().st_ino != before  # renamed into place, not rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_a_writer_failing_half_way_leaves_the_old_file_and_no_stray_file(tmp_path: Path) -> None:
    target = tmp_path / "report.xml"
    target.write_text("<old/>\n", encoding="utf-8")

    def chunks() -> Iterator[str]:
        yield "<testsuites>" + "x" * 100_000
        raise RuntimeError("the renderer broke half way")

    with pytest.raises(RuntimeError, match="half way"):
        write_atomically(target, chunks())
    assert target.read_text(encoding="utf-8") == "<old/>\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.xml"]


def test_a_new_file_gets_ordinary_permissions(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    write_atomically(target, ["text\n"])
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_existing_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    write_atomically(target, ["new\n"])
    assert target.stat().st_mode & 0o777 == 0o640


def test_appending_keeps_what_was_there(tmp_path: Path) -> None:
    target = tmp_path / "summary"
    target.write_text("# An earlier step\n", encoding="utf-8")
    append_text(target, "## Assay\n")
    assert target.read_text(encoding="utf-8") == "# An earlier step\n## Assay\n"


def test_export_refuses_a_missing_folder_writing_nothing(tmp_path: Path, current_run: Run) -> None:
    target = tmp_path / "a" / "report.md"
    with pytest.raises(ConfigurationError, match=r"report .*report\.md.*folder .* does not exist"):
        Report(current_run).export(target)
    assert not (tmp_path / "a").exists()


def test_export_refuses_an_unwritable_folder(tmp_path: Path, current_run: Run) -> None:
    target = unwritable_folder(tmp_path) / "report.json"
    with pytest.raises(ConfigurationError, match="cannot be written"):
        Report(current_run).export(target)
    assert not target.exists()


def test_export_replaces_an_existing_report(tmp_path: Path, current_run: Run) -> None:
    target = tmp_path / "report.xml"
    target.write_text("stale", encoding="utf-8")
    Report(current_run).export(target)
    assert target.read_text(encoding="utf-8").startswith("<?xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.xml"]


def test_a_symbolic_link_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "reports" / "latest.md"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "report.md"
    link.symlink_to(real)
    check_target(link)
    write_atomically(link, ["new\n"])
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"


def test_a_device_is_written_to_not_replaced(current_run: Run) -> None:
    null = Path(os.devnull)
    Report(current_run).export(null, format="junit")
    assert null.is_char_device()


def test_a_write_that_fails_names_the_path() -> None:
    full = Path("/dev/full")
    with pytest.raises(OSError, match="No space left on device: '/dev/full'") as caught:
        write_atomically(full, ["x" * 100_000])
    assert caught.value.filename == str(full)


def test_a_rename_that_fails_names_the_target_and_leaves_no_stray_file(tmp_path: Path) -> None:
    occupied = tmp_path / "report.md"
    occupied.mkdir()
    (occupied / "keep").write_text("kept", encoding="utf-8")
    with pytest.raises(OSError) as caught:
        write_atomically(occupied, ["text\n"])
    assert caught.value.filename == str(occupied)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_export_names_the_path_a_write_failed_on(current_run: Run) -> None:
    with pytest.raises(OSError, match="No space left on device: '/dev/full'"):
        Report(current_run).export("/dev/full", format="junit")


def test_the_file_being_written_names_its_writer(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    seen: list[str] = []

    def chunks() -> Iterator[str]:
        yield "<html>"
        seen.extend(p.name for p in tmp_path.iterdir())
        yield "</html>\n"

    write_atomically(target, chunks())
    (temporary,) = seen
    assert re.fullmatch(rf"\.report\.html\.{os.getpid()}\.[0-9a-f]{{8}}\.tmp", temporary)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


# A writer that writes its first chunk, says so, and waits to be killed.
_STALLED_WRITER = """
import sys, time
from pathlib import Path
from assay_agents.report.files import write_atomically

def chunks():
    yield "<testsuites>" + "x" * 100_000
    print("writing", flush=True)
    time.sleep(3600)
    yield "</testsuites>"

write_atomically(Path(sys.argv[1]), chunks())
"""


def _stalled_writer(target: Path) -> subprocess.Popen[str]:
    writer = subprocess.Popen(
        [sys.executable, "-c", _STALLED_WRITER, str(target)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert writer.stdout is not None
    assert writer.stdout.readline() == "writing\n"  # the first chunk is in its file
    return writer


def _kill(writer: subprocess.Popen[str]) -> None:
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert writer.stdout is not None
    writer.stdout.close()


def _temporaries(folder: Path, pid: int) -> list[str]:
    return [p.name for p in folder.iterdir() if f".{pid}." in p.name and p.name.endswith(".tmp")]


@pytest.mark.process  # a writer killed with SIGKILL, and one still alive
def test_a_killed_writers_file_is_removed_by_the_next_write_a_live_ones_kept(
    tmp_path: Path,
) -> None:
    target = tmp_path / "report.xml"
    target.write_text("<old/>\n", encoding="utf-8")
    killed = _stalled_writer(target)
    _kill(killed)
    assert len(_temporaries(tmp_path, killed.pid)) == 1  # what the kill left
    live = _stalled_writer(target)
    try:
        write_atomically(target, ["<new/>\n"])
        assert target.read_text(encoding="utf-8") == "<new/>\n"
        assert _temporaries(tmp_path, killed.pid) == []
        assert len(_temporaries(tmp_path, live.pid)) == 1  # still being written: left alone
    finally:
        _kill(live)
    other = tmp_path / "other.xml"
    write_atomically(other, ["<other/>\n"])
    assert len(_temporaries(tmp_path, live.pid)) == 1  # another target's leftovers are its own
