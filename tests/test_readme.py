"""Every Python snippet in the README runs as written.

The snippets are read in order, as a reader does: a later one may use what an earlier one
defined (``suite``, ``support_agent``). They run offline in a scratch folder, with the
embedded SQLite default, in a process of their own.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"^(?P<indent>[ \t]*)```python\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)

RUNNER = """
import json, pathlib, sys, traceback

namespace = {"__name__": "__main__"}
for number, code in enumerate(json.load(open(sys.argv[1])), start=1):
    # A file of its own, so that paths a snippet declares resolve next to it.
    path = pathlib.Path(f"readme_snippet_{number}.py").resolve()
    path.write_text(code)
    try:
        exec(compile(code, str(path), "exec"), namespace)
    except BaseException:
        traceback.print_exc()
        sys.exit(f"README snippet {number} failed")
"""


def snippets() -> list[str]:
    """The README's ```python blocks, dedented (a block inside a list item is indented)."""
    text = README.read_text(encoding="utf-8")
    return [
        textwrap.dedent(
            "\n".join(
                line[len(match["indent"]) :] if line.strip() else ""
                for line in match["body"].splitlines()
            )
        )
        for match in _BLOCK.finditer(text)
    ]


def test_the_readme_has_python_snippets():
    assert len(snippets()) >= 4


@pytest.mark.process  # a reader's own interpreter
def test_every_readme_snippet_runs_as_written(tmp_path):
    (tmp_path / "snippets.json").write_text(json.dumps(snippets()))
    (tmp_path / "runner.py").write_text(RUNNER)
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "runner.py", "snippets.json"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # The first snippet's run passes: its agent answers what the case expects.
    assert done.stdout.splitlines()[0] == "1.0", done.stdout
