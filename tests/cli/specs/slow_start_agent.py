"""An agent whose preparation (before any run is stored) is slow: a window for Ctrl-C.

MARKER_DIR/preparing is written when preparation starts; it then takes PREPARE_SECONDS.
"""

import os
import time
from pathlib import Path

import assay_agents as assay
from assay_agents import checks


class SlowStart:
    def prepare(self):
        (Path(os.environ["MARKER_DIR"]) / "preparing").write_text("yes")
        time.sleep(float(os.environ.get("PREPARE_SECONDS", "3")))

    def __call__(self, text, ctx):
        return "done"


suite = assay.Suite("SlowStart", agent=SlowStart(), checks=[checks.contains("done")])
suite.case("task", id="t0")
