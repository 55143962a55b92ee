"""Debian's Chromium through Playwright, launched as every browser test here launches it.

Out of CI a machine without it skips, saying so; in CI (``CI=true``) a missing Chromium fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launched_chromium() -> Iterator[object]:
    """Yield a launched headless Chromium, closed afterwards (a fixture's body)."""
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is not installed (Debian's chromium package; .ci/run installs it)"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()
