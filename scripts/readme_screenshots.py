"""Regenerate the README's screenshots of the HTML report from a real run of the example suite.

Runs ``examples/support_eval.py`` offline as the README's quick start does (the reference
revision, then the regressed one against it) into a scratch SQLite file, writes the regressed
run's HTML report, and photographs it in headless Chromium (Debian's ``/usr/bin/chromium``
through Playwright; nothing is downloaded and every request but the page's own is refused):

* ``docs/images/html-report-light.png`` and ``html-report-dark.png``: 1,280 px wide;
* ``docs/images/html-report-375.png``: 375 px wide, the system theme.

Run: ``python scripts/readme_screenshots.py`` (needs the ``dev`` extra).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Route

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: (file name, theme, viewport width, viewport height, colour scheme the viewer prefers)
SHOTS = (
    ("html-report-light.png", "light", 1280, 1000, "light"),
    ("html-report-dark.png", "dark", 1280, 1000, "light"),
    ("html-report-375.png", "system", 375, 1100, "light"),
)


def assay(*args: str, revision: str | None = None) -> subprocess.CompletedProcess[str]:
    """``assay-agents ARGS`` with this interpreter, in the repository, as the README runs it."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ASSAY_")}
    env.pop("AGENT_REVISION", None)
    if revision is not None:
        env["AGENT_REVISION"] = revision
    command = [sys.executable, "-c", "from assay_agents.cli.app import main; main()", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def write_reports(folder: Path) -> dict[str, Path]:
    """The reference run, then the regressed one against it, each theme's page of the latter."""
    db = ["--db", f"sqlite:///{folder / 'assay.db'}"]
    created = assay("db", "migrate", *db)  # a database named by URL is created explicitly
    if created.returncode != 0:
        sys.exit(f"the scratch database could not be created:\n{created.stderr}")
    reference = assay("run", "examples/support_eval.py", "-q", *db)
    if reference.returncode != 0:
        sys.exit(f"the reference run failed:\n{reference.stdout}{reference.stderr}")
    regressed = assay(
        "run", "examples/support_eval.py", "-q", "--fail-on-regression", *db, revision="regressed"
    )
    if regressed.returncode != 1:  # the regression is the point
        sys.exit(f"the regressed run did not exit 1:\n{regressed.stdout}{regressed.stderr}")
    pages = {}
    for theme in {shot[1] for shot in SHOTS}:
        page = folder / f"report-{theme}.html"
        done = assay("report", "--theme", theme, "--output", str(page), *db)
        if done.returncode != 0:
            sys.exit(f"the report could not be written:\n{done.stdout}{done.stderr}")
        pages[theme] = page
    return pages


def photograph(pages: dict[str, Path]) -> list[Path]:
    """Each shot of :data:`SHOTS`, taken offline."""
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    IMAGES.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        for name, theme, width, height, scheme in SHOTS:
            url = pages[theme].resolve().as_uri()
            context = browser.new_context(
                viewport={"width": width, "height": height}, color_scheme=scheme
            )
            context.route("**/*", _only(url))
            page = context.new_page()
            page.goto(url)
            target = IMAGES / name
            page.screenshot(path=str(target))
            context.close()
            written.append(target)
        browser.close()
    return written


def _only(url: str) -> Callable[[Route], None]:
    """A route handler that lets the page itself through and refuses everything else."""

    def handle(route: Route) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            route.abort()

    return handle


def main() -> None:
    """Write the three screenshots, saying where."""
    with tempfile.TemporaryDirectory() as scratch:
        for path in photograph(write_reports(Path(scratch))):
            print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
