"""Replay costs nothing until a case declares fixtures, and then only the agent call pays."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.process  # what a fresh interpreter imports

HEAVY = ("httpx", "httpx2", "requests", "assay_agents.replay")


def loaded_after(code):
    probe = f"{code}\nimport sys\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_declaring_fixtures_loads_no_http_client():
    assert (
        loaded_after(
            "import assay_agents as assay\n"
            "suite = assay.Suite('S', agent=lambda q, ctx: 'ok')\n"
            "suite.case('q', api=assay.api().expect_request('GET', 'https://x.example/')"
            ".respond_with(json=1))\n"
            "suite.fingerprint()"
        )
        == ""
    )


def test_running_a_suite_without_fixtures_never_loads_the_replay():
    assert (
        loaded_after(
            "import asyncio, assay_agents as assay\n"
            "from assay_agents.runner import Runner\n"
            "suite = assay.Suite('S', agent=lambda q, ctx: 'ok')\n"
            "suite.case('q', checks=[assay.checks.contains('ok')])\n"
            "asyncio.run(Runner(suite.agent).execute(suite.plan()))"
        )
        == ""
    )
