"""Regenerate the README's screenshots of the dashboard from real runs of the example suite.

Runs ``examples/support_eval.py`` offline as the README's quick start does (the reference
revision twice, then the regressed one) into a scratch SQLite file, serves the dashboard over
it with uvicorn on a free local port, and photographs its pages in headless Chromium
(Debian's ``/usr/bin/chromium`` through Playwright; every request to another host is refused):

* ``docs/images/dashboard-runs.png``, ``dashboard-run.png``, ``dashboard-case.png`` and
  ``dashboard-trend.png``: 1,280 px wide;
* ``docs/images/dashboard-runs-375.png`` and ``dashboard-case-375.png``: 375 px wide.

Run: ``python scripts/dashboard_screenshots.py`` (needs the ``dev`` extra).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-sync", "--no-first-run"]
SUITE = "Customer support"


def assay(*args: str, revision: str | None = None) -> None:
    """``assay-agents ARGS`` with this interpreter, in the repository, as the README runs it."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ASSAY_")}
    env.pop("AGENT_REVISION", None)
    if revision is not None:
        env["AGENT_REVISION"] = revision
    command = [sys.executable, "-c", "from assay_agents.cli.app import main; main()", *args]
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def history(folder: Path) -> str:
    """Three runs of the example: the reference twice, then the regressed revision."""
    url = f"sqlite:///{folder / 'assay.db'}"
    assay("db", "migrate", "--db", url)
    example = "examples/support_eval.py"
    for revision in ("reference", "reference", "regressed"):
        metadata = f'{{"revision": "{revision}"}}'
        agent_revision = "regressed" if revision == "regressed" else None
        assay("run", example, "--db", url, "--metadata", metadata, revision=agent_revision)
    return url


def serve(url: str) -> tuple[str, object]:
    """The dashboard over ``url``, served by uvicorn in a thread on a free local port."""
    import uvicorn

    from assay_agents.dashboard import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = uvicorn.Server(
        uvicorn.Config(create_app(url), host="127.0.0.1", port=port, log_level="warning")
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server


def main() -> None:
    """Make the history, serve it, and photograph each page at each width."""
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is not installed (Debian's chromium package)")
    from playwright.sync_api import sync_playwright

    from assay_agents.store import Store

    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        url = history(Path(scratch))
        with Store.open(url) as store:
            latest = store.get_run(f"{SUITE}#3").id
        base, server = serve(url)
        shots = (
            ("dashboard-runs.png", "/", 1280, 720),
            ("dashboard-run.png", f"/runs/{latest}", 1280, 1000),
            ("dashboard-case.png", f"/runs/{latest}/case?id=returns", 1280, 1100),
            ("dashboard-trend.png", f"/trends?suite={SUITE}", 1280, 800),
            ("dashboard-runs-375.png", "/", 375, 900),
            ("dashboard-case-375.png", f"/runs/{latest}/case?id=returns", 375, 1100),
        )
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            for name, path, width, height in shots:
                context = browser.new_context(viewport={"width": width, "height": height})
                context.route(
                    "**/*",
                    lambda route: (
                        route.continue_()
                        if urlsplit(route.request.url).netloc == urlsplit(base).netloc
                        else route.abort()
                    ),
                )
                page = context.new_page()
                page.goto(base + path)
                page.wait_for_load_state("load")
                page.screenshot(path=str(IMAGES / name))
                context.close()
                print(f"wrote docs/images/{name}")
            browser.close()
        server.should_exit = True  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
