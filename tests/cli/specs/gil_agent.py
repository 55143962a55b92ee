"""An agent that holds the interpreter lock: one long regular-expression match in C.

MARKER_DIR/calls.log records each call; case t0 matches ``(a+)+$`` against GIL_LENGTH
``a``s and a ``b``, which backtracks for minutes at 31 and never lets another thread run.
"""

import os
import re
from pathlib import Path

import assay_agents as assay
from assay_agents import checks


def agent(text, ctx):
    with (Path(os.environ["MARKER_DIR"]) / "calls.log").open("a", encoding="utf-8") as log:
        log.write(f"{ctx.case.id}\n")
    if ctx.case.id == "t0":
        re.match(r"(a+)+$", "a" * int(os.environ.get("GIL_LENGTH", "0")) + "b")
    return "done"


suite = assay.Suite("Busy", agent=agent, checks=[checks.contains("done")], concurrency=1)
for index in range(3):
    suite.case(f"task {index}", id=f"t{index}")
