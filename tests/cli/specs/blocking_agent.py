"""An async agent that blocks the event loop: a synchronous call inside ``async def``.

MARKER_DIR/calls.log records each call; case t0 blocks the loop for BLOCK_SECONDS.
"""

import asyncio
import os
import time
from pathlib import Path

import assay
from assay import checks


async def agent(text, ctx):
    with (Path(os.environ["MARKER_DIR"]) / "calls.log").open("a", encoding="utf-8") as log:
        log.write(f"{ctx.case.id}\n")
    if ctx.case.id == "t0":
        time.sleep(float(os.environ.get("BLOCK_SECONDS", "1")))  # the whole loop waits
    await asyncio.sleep(0.05)
    return "done"


suite = assay.Suite("Blocking", agent=agent, checks=[checks.contains("done")], concurrency=1)
for index in range(3):
    suite.case(f"task {index}", id=f"t{index}")
