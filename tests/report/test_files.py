"""Report files: a path refused before anything is written, a file replaced whole or not at all."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.errors import ConfigurationError
from assay.report import Report
from assay.report.files import append_text, check_target, write_atomically
from assay.results import Run


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
