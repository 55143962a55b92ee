"""An async agent that blocks the event loop: a synchronous call inside ``async def``.

MARKER_DIR/calls.log records each call; case t0 blocks the loop for BLOCK_SECONDS, or until
the file RELEASE_FILE names exists when it is set (BLOCK_SECONDS is then the longest wait).
"""

import asyncio
import os
import time
from pathlib import Path

import assay_agents as assay
from assay_agents import checks


async def agent(text, ctx):
    with (Path(os.environ["MARKER_DIR"]) / "calls.log").open("a", encoding="utf-8") as log:
        log.write(f"{ctx.case.id}\n")
    if ctx.case.id == "t0":
        _block(float(os.environ.get("BLOCK_SECONDS", "1")), os.environ.get("RELEASE_FILE"))
    await asyncio.sleep(0.05)
    return "done"


def _block(seconds, release):
    # Synchronous sleeps inside ``async def``: the whole loop waits, however it ends.
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if release and Path(release).exists():
            return
        time.sleep(0.05)


suite = assay.Suite("Blocking", agent=agent, checks=[checks.contains("done")], concurrency=1)
for index in range(3):
    suite.case(f"task {index}", id=f"t{index}")
