"""The command line (``assay-agents``); see :mod:`assay_agents.cli.app`."""

from __future__ import annotations

import sys


def interrupted() -> None:
    """Say in one line that Ctrl-C stopped the command (no traceback is ever shown for it)."""
    print("interrupted", file=sys.stderr)
