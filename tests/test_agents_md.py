"""Every command AGENTS.md gives runs as written, with the exit code it says.

The commands are read in order from its ``sh`` blocks and run in a scratch folder holding a
copy of ``examples/``, as a coding assistant following the file would run them. A command
ending in ``# exits N`` must exit N; every other one must exit 0.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from commandline import Cli

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "AGENTS.md"
_BLOCK = re.compile(r"^```sh\n(?P<body>.*?)^```", re.M | re.S)
_EXITS = re.compile(r"#\s*exits\s+(?P<code>\d+)\s*$")


def commands() -> list[tuple[dict[str, str], list[str], int]]:
    """(environment, words after ``assay-agents``, expected exit code) for each command line."""
    found = []
    for block in _BLOCK.finditer(AGENTS.read_text(encoding="utf-8")):
        for line in block["body"].splitlines():
            expected = _EXITS.search(line)
            words = shlex.split(line, comments=True)
            env = {}
            while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
                key, _, value = words.pop(0).partition("=")
                env[key] = value
            if not words:
                continue
            assert words[0] == "assay-agents", f"AGENTS.md runs another program: {line}"
            found.append((env, words[1:], int(expected["code"]) if expected else 0))
    return found


def test_agents_md_names_the_places_and_rules_it_promises():
    text = AGENTS.read_text(encoding="utf-8")
    for heading in ("## Where suites live", "## How to run and read them", "## What not to do"):
        assert heading in text
    assert len(commands()) >= 8


def test_every_command_in_agents_md_runs_as_written(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    cli = Cli(tmp_path)
    for env, words, expected in commands():
        done = cli(*words, env=env)
        assert done.returncode == expected, (words, done.stdout[-2000:], done.stderr[-2000:])
    assert (tmp_path / "report.json").is_file()
