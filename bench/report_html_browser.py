"""The HTML report of a large run in headless Chromium: how soon it loads and opens a case.

The runs are :mod:`report_html`'s (N/2 cases on two models, through the evaluation engine).
Each page is written to a file and opened in a fresh browser context of Debian's
``chromium`` driven by Playwright, best of three: the time to the ``load`` event (the
navigation's own timing), the renderer's CPU time until then (fair on a shared machine, where
the wall clock waits for other work), the elements on the page, then the time to open the
first case (a click on its summary until the next frame) and to jump to the last section.

Run: ``python bench/report_html_browser.py`` for the pages of this checkout, or
``python bench/report_html_browser.py PAGE.html ...`` for pages written before (to compare).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from report_html import SIZES, run_of

from assay_agents.report import Report, build_view
from assay_agents.report.html import html_of

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROUNDS = 3

#: Opens the first case as a reader's click does, and waits for the frame that shows it.
OPEN_FIRST = """async () => {
  const summary = document.querySelector("details.case > summary");
  const started = performance.now();
  summary.click();
  summary.parentElement.querySelector("pre").getBoundingClientRect();
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  return performance.now() - started;
}"""
#: Jumps to the last section (past every case), and waits for the frame that shows it.
JUMP_TO_END = """async () => {
  const started = performance.now();
  location.hash = "#fixes";
  document.getElementById("fixes").getBoundingClientRect();
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  return performance.now() - started;
}"""
LOADED = """() => {
  const navigation = performance.getEntriesByType("navigation")[0];
  return [navigation.loadEventStart, document.getElementsByTagName("*").length];
}"""


def _metrics(session: Any) -> dict[str, float]:
    return {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}


def visit(browser: Any, path: Path) -> dict[str, float]:
    """One fresh visit of the page at ``path``: its load, CPU, elements, opening and jump."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        session = context.new_cdp_session(page)
        session.send("Performance.enable")
        before = _metrics(session)
        page.goto(path.as_uri(), wait_until="load")
        after = _metrics(session)
        load_ms, elements = page.evaluate(LOADED)
        return {
            "load": load_ms / 1000,
            "cpu": after["ProcessTime"] - before["ProcessTime"],
            "elements": elements,
            "open": page.evaluate(OPEN_FIRST) / 1000,
            "jump": page.evaluate(JUMP_TO_END) / 1000,
        }
    finally:
        context.close()


def measure(browser: Any, label: str, path: Path) -> None:
    visits = [visit(browser, path) for _ in range(ROUNDS)]
    best = {key: min(v[key] for v in visits) for key in visits[0]}
    size = path.stat().st_size
    print(
        f"{label}: {size / 1_000_000:.1f} MB, {best['elements']:,.0f} elements; "
        f"load {best['load']:.2f} s ({best['cpu']:.2f} s renderer CPU), "
        f"first case opened in {best['open'] * 1000:.0f} ms, "
        f"end reached in {best['jump'] * 1000:.0f} ms (best of {ROUNDS})"
    )


def main(pages: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        # Written before the browser starts: its driver runs an event loop, and assay.run()
        # does not start inside one.
        shown = [(name, Path(name).resolve()) for name in pages]
        for samples in () if pages else SIZES:
            path = Path(folder) / f"report-{samples}.html"
            path.write_text(html_of(build_view(Report(run_of(samples)))), encoding="utf-8")
            shown.append((f"{samples:,} samples", path))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                for label, path in shown:
                    measure(browser, label, path)
            finally:
                browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
