"""An agent slow enough to be killed, stopped or starved part-way through a run.

MARKER_DIR/calls.log records each call; SLOW_SECONDS is how long each takes, CASES how many
cases there are, ANSWER_BYTES pads every answer (to fill a small disk).
"""

import os
import time
from pathlib import Path

import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    with (Path(os.environ["MARKER_DIR"]) / "calls.log").open("a", encoding="utf-8") as log:
        log.write(f"{ctx.case.id}\n")
    time.sleep(float(os.environ.get("SLOW_SECONDS", "0.2")))
    return "done " + "x" * int(os.environ.get("ANSWER_BYTES", "0"))


suite = assay.Suite("Faults", agent=agent, checks=[checks.contains("done")], concurrency=2)
for index in range(int(os.environ.get("CASES", "8"))):
    suite.case(f"task {index}", id=f"t{index}")
