"""A suite whose agent leaves a trace on disk, so a test can tell whether it ever ran."""

import os
from pathlib import Path

import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    marker = Path(os.environ["MARKER_DIR"]) / f"{ctx.case.id}-{ctx.sample}"
    marker.write_text("called", encoding="utf-8")
    return text.upper()


suite = assay.Suite("Marker", agent=agent, checks=[checks.min_length(1)])
suite.case("one", id="one")
suite.case("two", id="two")
