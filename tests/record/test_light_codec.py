"""Reading a history through the record codec loads no judge, check or run engine."""

from __future__ import annotations

import subprocess
import sys


def test_the_store_and_the_codec_load_no_judging_checks_or_runner() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import assay_agents.store, assay_agents.record, sys; print(*sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(done.stdout.split())
    assert (
        not {"assay_agents.judging", "assay_agents.checks", "assay_agents.runner", "pydantic"}
        & loaded
    )
