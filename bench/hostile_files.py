"""Hostile suite files at 1 MB: each shape is read (and refused or accepted) in under 2 s.

Times ``assay-agents validate``'s reading of a 1 MB pasted text of each adversarial shape (a bold
heading of spaces, bars and backtick spans, a long heading over many prompts without a
key, plain lines, ...) and of a TOML item whose dotted key quotes
an ``=``, and prints each time against the 2 s target. The tests prove the work linear
without a clock (``tests/load/test_linear_parsing.py``); this shows what it costs.

Run: ``python bench/hostile_files.py``.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from assay_agents.errors import SpecError
from assay_agents.load import ScenarioParser, load_items

SIZE = 1_000_000
TARGET = 2.0

PASTES = {
    "bold heading of spaces": "**a" + " " * SIZE + "x",
    "bold heading of spaces and colons": "**a" + " :" * (SIZE // 2) + "**x",
    "bars and backtick spans": "prompt | tags: " + "`a|b`, " * (SIZE // 7),
    "bars only": "prompt " + "| tags: a " * (SIZE // 10),
    "backticks only": "`" * SIZE + "x",
    "unclosed spans and bars": "prompt " + "`|" * (SIZE // 2),
    "label heading": "a" * SIZE + "::",
    "list marker digits": "1" * SIZE + "x",
    "long heading over keyless lines": "# " + "a" * (SIZE // 2) + "\n" + "x\n" * (SIZE // 4),
    "plain lines": "a\n" * (SIZE // 2),
    "lines with an option": "a | tags: x\n" * (SIZE // 12),
    "headings only": "# a\n" * (SIZE // 4),
    "headings between prompts": "# a\nb\n" * (SIZE // 6),
}


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    with contextlib.suppress(SpecError):
        work()
    return time.perf_counter() - started


def main() -> int:
    slowest = 0.0
    for name, text in PASTES.items():
        seconds = timed(lambda text=text: ScenarioParser.scenarios(text))
        slowest = max(slowest, seconds)
        print(f"{name:36} {seconds:6.3f} s")
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "item.toml").write_text('"=".' + "k." * (SIZE // 2) + "k = 1\n")
        seconds = timed(lambda: load_items(folder))
        slowest = max(slowest, seconds)
        print(f"{'TOML key quoting =':36} {seconds:6.3f} s")
    print(f"slowest {slowest:.3f} s (target under {TARGET} s)")
    return 0 if slowest < TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
