"""The HTML report in headless Chromium: offline, quiet, themed, readable at 375 px, copyable.

Debian's ``chromium`` is driven through Playwright for Python. Out of CI a machine without it
skips these tests, saying so; in CI (``CI=true``) a missing Chromium fails them.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from assay_agents.report import Report
from assay_agents.text import visible
from chromium import launched_chromium

from .conftest import current_samples, make_run
from .html_runs import rich_report
from .test_hostile_text import hostile_run

# One worker runs the module: it launches Chromium once.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("report-chromium")]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from launched_chromium()


class Visit:
    """A page opened from a file, every request and console error recorded."""

    def __init__(self, browser, path: Path, **context: object) -> None:
        self.context = browser.new_context(**context)
        self.url = path.resolve().as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on(
            "console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else 0
        )
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _route(self, route) -> None:
        if route.request.url == self.url:
            route.continue_()
        else:  # anything else the page asks for is a failure, whatever it is
            self.requests.append(route.request.url)
            route.abort()

    def open(self) -> Visit:
        self.page.goto(self.url)
        self.page.wait_for_load_state("load")
        return self

    def close(self) -> None:
        self.context.close()

    def quiet(self) -> None:
        """Nothing but the report itself was requested, and nothing complained."""
        assert set(self.requests) <= {self.url}, self.requests
        assert self.errors == []


@pytest.fixture
def visit(browser, tmp_path: Path):
    opened: list[Visit] = []

    def open_(html: str, name: str = "report.html", **context: object) -> Visit:
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        found = Visit(browser, path, **context).open()
        opened.append(found)
        return found

    yield open_
    for found in opened:
        found.close()


SPREAD = """async (source) => {
  const image = new Image();
  image.src = source;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, image.width, image.height).data;
  let sum = 0, squares = 0;
  const colours = new Set();
  for (let i = 0; i < data.length; i += 4) {
    const luma = 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];
    sum += luma;
    squares += luma * luma;
    colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  }
  const n = data.length / 4;
  const std = Math.sqrt(squares / n - (sum / n) ** 2);
  return { width: image.width, std: std, colours: colours.size };
}"""


def _spread(browser, png: bytes) -> dict:
    """The width, the luminance's standard deviation and the distinct colours of a PNG.

    Measured by Chromium itself, in a blank page of its own context.
    """
    context = browser.new_context()
    try:
        page = context.new_page()
        source = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        return page.evaluate(SPREAD, source)
    finally:
        context.close()


def _background(visit: Visit) -> tuple[int, ...]:
    colour = visit.page.evaluate("getComputedStyle(document.body).backgroundColor")
    return tuple(int(part) for part in colour.removeprefix("rgb(").rstrip(")").split(","))


@pytest.fixture(scope="module")
def report() -> Report:
    return rich_report()


def test_the_page_loads_nothing_and_logs_no_error(visit, report: Report) -> None:
    opened = visit(report.to_html())
    for summary in opened.page.locator("summary").all():
        summary.click()  # every disclosure opened: still nothing fetched, nothing logged
    opened.quiet()
    assert opened.page.title().startswith("Assay report: Customer support")


@pytest.mark.parametrize(
    ("theme", "scheme", "dark"),
    [
        ("system", "light", False),
        ("system", "dark", True),
        ("light", "dark", False),
        ("dark", "light", True),
    ],
)
def test_themes(visit, report: Report, theme: str, scheme: str, dark: bool) -> None:
    opened = visit(report.to_html(theme=theme), color_scheme=scheme)
    brightness = sum(_background(opened))
    assert (brightness < 150) is dark, brightness
    opened.quiet()


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshots_are_not_blank_and_fit_the_width(
    browser, visit, report: Report, width: int, theme: str
) -> None:
    opened = visit(report.to_html(theme=theme), viewport={"width": width, "height": 900})
    spread = _spread(browser, opened.page.screenshot())
    assert spread["width"] == width
    assert spread["std"] > 10, "the screenshot is blank"
    assert spread["colours"] > 20
    scrolled = opened.page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= width, f"the page scrolls sideways at {width} px ({scrolled})"
    opened.quiet()


def test_copy_as_markdown_puts_the_fix_item_on_the_clipboard(visit, report: Report) -> None:
    opened = visit(report.to_html(), permissions=["clipboard-read", "clipboard-write"])
    buttons = opened.page.get_by_role("button", name="Copy as Markdown")
    assert buttons.count() == len(report.fix_items)
    for index, item in enumerate(report.fix_items):
        buttons.nth(index).click()
        card = opened.page.locator(".fix-card").nth(index)
        card.locator(".copy-status", has_text="Copied").wait_for()
        copied = opened.page.evaluate("navigator.clipboard.readText()")
        assert copied == report.fix_item_markdown(item)
    opened.quiet()


REFUSE = """
Object.defineProperty(navigator, "clipboard", {
  value: { writeText: () => Promise.reject(new DOMException("refused", "NotAllowedError")) },
});
"""


def test_a_refused_clipboard_shows_the_markdown_selected(browser, tmp_path, report) -> None:
    path = tmp_path / "report.html"
    path.write_text(report.to_html(), encoding="utf-8")
    opened = Visit(browser, path)
    try:
        opened.page.add_init_script(REFUSE)
        opened.open()
        opened.page.get_by_role("button", name="Copy as Markdown").first.focus()
        opened.page.keyboard.press("Enter")  # the keyboard reaches it as a mouse does
        area = opened.page.get_by_role("textbox", name="Markdown of this fix item")
        area.wait_for()
        assert area.input_value() == report.fix_item_markdown(report.fix_items[0])
        selected = opened.page.evaluate(
            "[document.activeElement.tagName, document.activeElement.selectionStart, "
            "document.activeElement.selectionEnd]"
        )
        assert selected == ["TEXTAREA", 0, len(area.input_value())]
        assert opened.page.locator(".copy-status").first.inner_text() != ""
        opened.quiet()
    finally:
        opened.close()


def test_disclosures_open_from_the_keyboard(visit, report: Report) -> None:
    opened = visit(report.to_html())
    case = opened.page.locator("details.case").first
    assert case.get_attribute("open") is None
    case.locator("summary").focus()
    opened.page.keyboard.press("Enter")
    assert case.get_attribute("open") is not None
    assert case.locator("pre.answer").first.is_visible()


def test_printing_opens_every_disclosure(visit, report: Report) -> None:
    opened = visit(report.to_html())
    answer = opened.page.locator("details.case pre.answer").first
    assert not answer.is_visible()
    opened.page.emulate_media(media="print")
    assert answer.is_visible()
    assert not opened.page.get_by_role("button", name="Copy as Markdown").first.is_visible()


def test_a_long_matrix_opens_on_demand_and_prints(visit) -> None:
    samples = [replace(s, case_id=f"{s.case_id}-{n}") for n in range(50) for s in current_samples()]
    opened = visit(Report(make_run(samples, run_id="run-0002", sequence=2)).to_html())
    cell = opened.page.locator("#matrix td").last
    assert not cell.is_visible()
    opened.page.emulate_media(media="print")
    assert cell.is_visible()
    opened.page.emulate_media(media="screen")
    opened.page.locator("#matrix summary").click()
    cell.scroll_into_view_if_needed()
    assert cell.is_visible()
    opened.quiet()


TRIGGER = """() => {
  for (const element of document.querySelectorAll("*")) {
    for (const type of ["mouseover", "focus", "load", "error", "animationstart"]) {
      element.dispatchEvent(new Event(type));
    }
  }
}"""
MARKER = "window.__pwned = 1"
PAYLOADS = {
    "script": f"<script>{MARKER}</script>",
    "closing": f"</pre></details></section><script>{MARKER}</script>",
    "handler": f"<img src=x onerror='{MARKER}'>",
    "svg": f"<svg onload='{MARKER}'></svg>",
    "quotes": f'" onmouseover="{MARKER}" autofocus onfocus="{MARKER}" x="',
    "link": f'<a href="javascript:{MARKER}">x</a>',
    "json": f"' onclick='{MARKER}' data-x='",
    "bidi": "invoice\u202efdp.exe \u2066isolate",
}


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_hostile_text_runs_nothing_and_reads_as_written(visit, name: str) -> None:
    text = PAYLOADS[name]
    run = hostile_run(text)
    report = Report(run, baseline=hostile_run(text, run_id="run-b", sequence=4))
    opened = visit(report.to_html())
    page = opened.page
    for summary in page.locator("summary").all():
        summary.click()
    # Any handler an attribute had smuggled in would run on these.
    page.evaluate(TRIGGER)
    assert page.evaluate("window.__pwned") is None
    shown = page.locator("body").inner_text()
    assert visible(f"answer {text}", lines=True) in shown
    opened.quiet()


def test_a_megabyte_answer_loads_as_text(visit) -> None:
    huge = f"<script>{MARKER}</script>" + "<b>x</b> " * 111_000
    run = hostile_run("big")
    run = replace(run, samples=(replace(run.samples[0], answer=huge), *run.samples[1:]))
    opened = visit(Report(run).to_html())
    opened.page.locator("details.case summary").first.click()
    assert opened.page.evaluate("window.__pwned") is None
    shown = opened.page.locator("pre.answer").first.inner_text()
    assert shown.strip() == huge.strip()
    opened.quiet()
