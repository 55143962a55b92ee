"""Three cases whose parts change between runs through the environment.

EDITED      comma-separated case ids whose input is reworded
SETUP       the version of the seeded state (``returns`` declares it derived, ``warranty`` not)
REFERENCE   the recorded reference of ``shipping`` (lifted from what the system said)
AGENT       ``broken`` makes the agent answer nothing useful
"""

import os

import assay_agents as assay
from assay_agents import checks

EDITED = set(filter(None, os.environ.get("EDITED", "").split(",")))
SETUP = {"state": int(os.environ.get("SETUP", "1"))}


def agent(text, ctx):
    return "no idea" if os.environ.get("AGENT") == "broken" else "It takes 30 days."


def worded(text, case_id):
    return text + (" Please be brief." if case_id in EDITED else "")


suite = assay.Suite("Corpus", agent=agent, agent_name="Agent", checks=[checks.contains("30")])
suite.case(
    worded("How long is the return window?", "returns"),
    id="returns",
    setup=SETUP,
    provenance={"setup": "derived"},
)
suite.case(worded("How long is the warranty?", "warranty"), id="warranty", setup=SETUP)
suite.case(
    worded("How long does shipping take?", "shipping"),
    id="shipping",
    expected=os.environ.get("REFERENCE", "It takes 30 days."),
    provenance={"expected": "recorded"},
)
