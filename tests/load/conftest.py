import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TRIP = REPO / "examples" / "trip" / "items"

SUITE_TOML = """\
name = "trip"
harness = "harness.py:Harness"
channels = ["commands", "events"]
"""

HARNESS = """\
class Harness:
    def start(self, case, sample):
        def agent(value, ctx):
            self.value = value
            return "done"
        return agent

    def observe(self, agent):
        return {"commands": ["trip.set_name"], "events": ["trip.name_set"]}
"""

ITEM = """\
id = "trip.set_name"

[input]
text = "Set the name"

[expect]
commands = ["trip.set_name"]

[expect.forbid]
commands = ["trip.rebook"]
"""


@pytest.fixture
def folder(tmp_path):
    """Write a directory suite: ``folder({"a.toml": text, ...})``; suite.toml by default."""

    def write(files, *, settings=SUITE_TOML, harness=HARNESS, name="trip"):
        root = tmp_path / name
        root.mkdir(exist_ok=True)
        if settings is not None:
            (root / "suite.toml").write_text(textwrap.dedent(settings))
        if harness is not None:
            (root / "harness.py").write_text(harness)
        for file, text in files.items():
            (root / file).write_text(textwrap.dedent(text))
        return root

    return write


@pytest.fixture
def trip_items():
    return TRIP
