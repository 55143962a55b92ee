"""The progress bar shows suite names, judge labels and notes as text, on a real terminal.

The bar only appears when standard error is a terminal, so the command runs under a
pseudo-terminal; the note a judge's wait writes is checked on the bar itself, rendered by a
terminal console.
"""

from __future__ import annotations

import io
import os
import pty
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from assay_agents.results import SampleResult, SampleStatus
from assay_agents.runner import BarProgress
from commandline import ASSAY
from hostile import RICH

HOSTILE = " ".join([*RICH.values(), "\x1b]0;title\x07", "\x1b[2J", "invoice\u202efdp.exe"])

SPEC = """
import assay_agents as assay
from assay_agents import checks

suite = assay.Suite("suite " + {text!r}, agent=lambda question, ctx: "yes",
                    checks=[checks.exact_match()])
suite.case("question", id="c1", expected="yes")
"""


def _on_a_terminal(args: list[str], cwd: Path) -> str:
    """What the command writes to a terminal (standard output and error together)."""
    leader, follower = pty.openpty()
    env = {key: value for key, value in os.environ.items() if not key.startswith("ASSAY_")}
    env.update(COLUMNS="400", LINES="50", TERM="xterm-256color")
    with subprocess.Popen(
        [ASSAY, *args], cwd=cwd, env=env, stdin=follower, stdout=follower, stderr=follower
    ) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the command has exited
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _terminal_sequences(text: str) -> list[str]:
    """Hostile sequences left raw: a title, a screen clear, a link, a bell, an override."""
    found = [
        name
        for name, raw in (
            ("title", "\x1b]0;"),
            ("clear", "\x1b[2J"),
            ("link", "\x1b]8;"),
            ("bell", "\x07"),
            ("override", "\u202e"),
        )
        if raw in text
    ]
    return found


@pytest.mark.process  # a real terminal
def test_the_bar_shows_a_hostile_suite_name_as_text(tmp_path: Path) -> None:
    spec = tmp_path / "spec.py"
    spec.write_text(SPEC.format(text=HOSTILE), encoding="utf-8")
    shown = _on_a_terminal(["run", str(spec)], tmp_path)
    assert "\\x1b]0;title\\x07" in shown and "\\u202e" in shown  # the bar or the summary
    assert _terminal_sequences(shown) == []
    bar = shown.split("c1", 1)[0]  # before the case table: the bar alone
    assert "suite [link=https://evil.example/rich]click here[/link] [bold]loud[/bold]" in bar


def _console() -> tuple[Console, io.StringIO]:
    written = io.StringIO()
    return Console(file=written, force_terminal=True, width=400, color_system="truecolor"), written


def test_a_note_on_the_bar_is_shown_as_text() -> None:
    console, written = _console()
    bar = BarProgress(console=console)
    bar.start(1, "suite " + HOSTILE)
    bar.note("judge " + HOSTILE + ": HTTP 429; retrying in 1.0 s")
    bar.stop()
    shown = written.getvalue()
    assert _terminal_sequences(shown) == []
    last = shown.rsplit("\r", 1)[1]  # the final frame
    assert "suite " + RICH["link"] in last and "judge " + RICH["link"] in last
    assert last.count(RICH["close"]) == 2 and last.count("\\x1b]0;title\\x07") == 2


def test_counts_on_the_bar_are_still_counts() -> None:
    console, written = _console()
    bar = BarProgress(console=console)
    bar.start(1, "suite")
    bar.note("waiting")
    bar.advance(SampleResult(case_id="c1", model=None, sample=0, status=SampleStatus.PASSED))
    bar.stop()
    final = written.getvalue().rsplit("suite", 1)[1]
    assert "1 passed" in final and "0 failed" in final and "waiting" not in final
