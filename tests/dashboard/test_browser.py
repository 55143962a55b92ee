"""The dashboard in headless Chromium, served by uvicorn: browse, filter, follow, download.

Debian's ``chromium`` through Playwright, as the HTML report's browser tests drive it: out of
CI a machine without it skips, saying so; in CI (``CI=true``) a missing Chromium fails.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from assay_agents.dashboard import create_app
from assay_agents.store import Store
from chromium import launched_chromium

from .conftest import History

# One worker runs the module: it launches Chromium once.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("dashboard-chromium")]


@pytest.fixture(scope="module")
def browser(sqlite_history: History, matrix_history: tuple[str, object]) -> Iterator[object]:
    # The histories are made first: a run cannot start inside Playwright's event loop.
    yield from launched_chromium()


@pytest.fixture(scope="module")
def served(sqlite_history: History) -> Iterator[str]:
    """The dashboard served by uvicorn on a free port, in a thread of this process."""
    yield from _serve(sqlite_history.url)


@pytest.fixture(scope="module")
def served_matrix(matrix_history: tuple[str, object]) -> Iterator[str]:
    """The dashboard over a history holding one run of two models."""
    yield from _serve(matrix_history[0])


def _serve(url: str) -> Iterator[str]:
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    store = Store.open(url)
    config = uvicorn.Config(
        create_app(store), host="127.0.0.1", port=port, log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        store.close()


def test_browse_filter_follow_the_baseline_and_download(
    served: str, browser, sqlite_history: History, tmp_path: Path
) -> None:
    context = browser.new_context(accept_downloads=True)
    left: list[str] = []
    errors: list[str] = []

    def route(handle) -> None:
        if urlsplit(handle.request.url).netloc == urlsplit(served).netloc:
            handle.continue_()
        else:  # nothing may leave this host
            left.append(handle.request.url)
            handle.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else 0)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{served}/")
        assert page.locator("table.runs tbody tr").count() == 3
        page.select_option("select[name=suite]", "Customer support")
        page.fill("input[name=meta]", "revision=bad-2")
        page.click("form.filters button[type=submit]")
        page.wait_for_load_state("load")
        assert page.locator("table.runs tbody tr").count() == 1
        page.click(f'a[href="/runs/{sqlite_history.regressed.id}"]')
        page.wait_for_load_state("load")
        assert page.locator("#summary").is_visible()
        page.click('a[href$="/case?id=returns"]')
        page.wait_for_load_state("load")
        assert page.locator("ins").count() >= 1  # the answer diffed against the baseline
        page.click("#baseline-case")
        page.wait_for_load_state("load")
        assert sqlite_history.reference.id in page.url
        page.goto(f"{served}/runs/{sqlite_history.regressed.id}")
        with page.expect_download() as waiting:
            page.click('a[href$="run.json?download=1"]')
        download = waiting.value
        saved = tmp_path / download.suggested_filename
        download.save_as(saved)
        assert download.suggested_filename == "Customer-support-run-2.json"
        assert json.loads(saved.read_text())["id"] == sqlite_history.regressed.id
        page.set_viewport_size({"width": 375, "height": 800})
        page.goto(f"{served}/")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375 + 1  # nothing pushes the page sideways at 375 px
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Skip to the content"
    finally:
        context.close()
    assert left == [] and errors == []


def test_a_matrix_of_cases_and_models_reads_by_keyboard_at_375_px(
    served_matrix: str, browser, matrix_history: tuple[str, object]
) -> None:
    run = matrix_history[1]
    context = browser.new_context(viewport={"width": 375, "height": 800})
    left: list[str] = []
    errors: list[str] = []

    def route(handle) -> None:
        if urlsplit(handle.request.url).netloc == urlsplit(served_matrix).netloc:
            handle.continue_()
        else:  # nothing may leave this host
            left.append(handle.request.url)
            handle.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else 0)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{served_matrix}/runs/{run.id}")
        region = page.locator('#case-list [role="region"]')
        assert region.locator("tbody tr").count() == 3
        assert region.locator("td.fail").count() >= 1 and region.locator("td.pass").count() >= 1
        # The page never scrolls sideways: a wide matrix scrolls inside its region.
        assert page.evaluate("document.documentElement.scrollWidth") <= 375 + 1
        assert region.evaluate("e => e.clientWidth") <= 375
        assert region.evaluate("e => e.scrollWidth > e.clientWidth")  # its hostile names are long
        assert region.evaluate("e => getComputedStyle(e).overflowX") == "auto"
        # The region takes the focus (arrow keys scroll it), then the first case's link.
        region.focus()
        assert page.evaluate("document.activeElement.getAttribute('aria-label')") == (
            "Case × model"
        )
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.getAttribute('href')")
        assert focused == region.locator("tbody a").first.get_attribute("href")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.url.endswith(focused) and "/case?id=" in page.url
    finally:
        context.close()
    assert left == [] and errors == []
