"""A scripted agent that varies per call, so a control run measures a noise floor.

Calls cycle pass, pass, pass, fail, pass, pass, fail, fail; with four samples a run starting at
call 0 passes 3 of 4 and the next run (call 4) 2 of 4. CALL_OFFSET starts the count elsewhere.
"""

import itertools
import os
import threading

import assay_agents as assay
from assay_agents import checks

PATTERN = (True, True, True, False, True, True, False, False)
_calls = itertools.count(int(os.environ.get("CALL_OFFSET", "0")))
_lock = threading.Lock()


def agent(text, ctx):
    with _lock:
        call = next(_calls)
    return "30 days" if PATTERN[call % len(PATTERN)] else "a week"


suite = assay.Suite(
    "Flaky", agent=agent, agent_name="Flaky", samples=4, checks=[checks.contains("30")]
)
suite.case("How long is the return window?", id="returns")
