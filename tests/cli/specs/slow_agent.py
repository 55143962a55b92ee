"""Six cases, each taking a while, so a run can be interrupted part-way through."""

import os
import time
from pathlib import Path

import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    with (Path(os.environ["MARKER_DIR"]) / "calls.log").open("a", encoding="utf-8") as log:
        log.write(f"{ctx.case.id}\n")
    time.sleep(float(os.environ.get("SLOW_SECONDS", "0.6")))
    return "done"


suite = assay.Suite("Slow", agent=agent, checks=[checks.contains("done")], concurrency=1)
for index in range(6):
    suite.case(f"task {index}", id=f"t{index}")
