"""The HTML report: one self-contained page, in the issue's reading order, user text as text."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay_agents.cli.app import app
from assay_agents.errors import ConfigurationError
from assay_agents.report import Report, build_view, format_for, format_named, prose
from assay_agents.report.html import THEMES, html_of
from assay_agents.results import Run
from hostile import CONTROLS, EVERYTHING, MARKUP

from .conftest import current_samples, make_run
from .html_runs import Page, rich_report
from .test_comparison_sections import FLOOR, runs
from .test_hostile_text import hostile_run

SECTIONS = ["summary", "models", "matrix", "comparison", "intervals", "cases", "fixes"]


def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


@pytest.fixture(scope="module")
def page() -> Page:
    return Page(rich_report().to_html())


def test_sections_come_in_the_reading_order(page: Page) -> None:
    ids = [e["attrs"]["id"] for e in page.all("section") if "id" in e["attrs"]]
    assert ids == SECTIONS


def test_the_page_loads_nothing_from_anywhere(page: Page) -> None:
    assert not page.all("link") and not page.all("img") and not page.all("iframe")
    for element in page.elements:
        for name, value in element["attrs"].items():
            if name in ("src", "href", "action", "xlink:href", "srcset", "poster"):
                assert (value or "").startswith("#"), (element["tag"], name, value)
    style = page.text_of(page.one("style"))
    assert "url(" not in style and "@import" not in style and "@font-face" not in style


def test_one_inline_script_and_style_allowed_by_their_hashes_alone(page: Page) -> None:
    script = page.one("script")
    assert "src" not in script["attrs"]
    body = page.text_of(script)
    assert "clipboard" in body
    policy = page.one("meta", **{"http-equiv": "Content-Security-Policy"})["attrs"]["content"]
    assert f"script-src 'sha256-{_digest(body)}'" in policy
    assert f"style-src 'sha256-{_digest(page.text_of(page.one('style')))}'" in policy
    assert "default-src 'none'" in policy and "unsafe" not in policy


def test_stat_tiles_keep_the_checks_and_each_criterion_apart(page: Page) -> None:
    tiles = [" ".join(page.text_of(t).split()) for t in page.with_class("tile")]
    assert any(t.startswith("Pass rate") and "·" in t for t in tiles), tiles
    assert any(t.startswith("Checks pass") for t in tiles), tiles
    assert any(t.startswith("semantic_accuracy") and "judge" in t for t in tiles), tiles
    assert any(t.startswith("Cost") for t in tiles), tiles
    assert any(t.startswith("Latency") and "p50" in t and "p95" in t for t in tiles), tiles


def test_a_panel_per_model_with_the_verdict(page: Page) -> None:
    panels = page.with_class("model-panel")
    assert [page.text_of(p).split()[0] for p in panels] == ["model-a", "model-b"]
    assert "Best model" in page.text_of(panels[0]) and "Best model" not in page.text_of(panels[1])
    assert "fewer failures on the same cases" in page.all_text


def test_the_matrix_has_a_row_per_case_and_a_column_per_model(page: Page) -> None:
    matrix = next(e for e in page.all("section") if e["attrs"].get("id") == "matrix")
    headers = [page.text_of(th) for th in page.all("th") if matrix in th["parents"]]
    assert headers[:3] == ["case", "model-a", "model-b"]
    cells = [page.text_of(td) for td in page.all("td") if matrix in td["parents"]]
    assert "fail 0/1 · check_failed" in cells


def _section(page: Page, name: str) -> dict:
    return next(e for e in page.all("section") if e["attrs"].get("id") == name)


def test_a_short_matrix_is_shown_open(page: Page) -> None:
    matrix = _section(page, "matrix")
    assert not [d for d in page.all("details") if matrix in d["parents"]]


def test_a_long_matrix_waits_in_a_closed_disclosure_a_row_per_case() -> None:
    samples = [replace(s, case_id=f"{s.case_id}-{n}") for n in range(50) for s in current_samples()]
    page = Page(Report(make_run(samples, run_id="run-0002", sequence=2)).to_html())
    matrix = _section(page, "matrix")
    closed = [d for d in page.all("details") if matrix in d["parents"]]
    assert len(closed) == 1 and "open" not in closed[0]["attrs"]
    summary = next(e for e in page.all("summary") if closed[0] in e["parents"])
    # The run's three defined cases (no sample ran them) and the 150 that ran.
    assert " ".join(page.text_of(summary).split()) == "All 153 cases"
    rows = [page.text_of(th) for th in page.all("th", scope="row") if closed[0] in th["parents"]]
    assert len(rows) == 153 and {s.case_id for s in samples} <= set(rows)
    cells = [td for td in page.all("td") if closed[0] in td["parents"]]
    assert len(cells) == 153  # one cell per case and model, nothing else


def test_the_comparison_says_the_pairing_first(page: Page) -> None:
    report = rich_report()
    assert report.comparison is not None
    comparison = next(e for e in page.all("section") if e["attrs"].get("id") == "comparison")
    lines = [" ".join(page.text_of(p).split()) for p in page.all("p") if comparison in p["parents"]]
    assert lines[0].startswith("Baseline: run-0001"), lines
    assert lines[1] == prose.pairing_line(report.comparison)
    text = page.text_of(comparison)
    assert "Deterministic regressions" in text and "New errors" in text
    assert "unmeasured" in text  # every change carries its noise label


def test_a_withheld_headline_is_shown_as_withheld() -> None:
    before, after = runs()
    report = Report(after, baseline=before, noise_floor=FLOOR)
    page = Page(report.to_html())
    withheld = page.with_class("withheld")
    assert len(withheld) == 1
    assert "withheld" in page.text_of(withheld[0]).lower()
    assert "Pass rate over" not in page.all_text
    defect = page.all_text.index("CORPUS DEFECT")
    assert defect < page.all_text.index(page.text_of(withheld[0]))


def test_model_intervals_on_a_fixed_axis_best_first(page: Page) -> None:
    rows = page.with_class("interval-row")
    names = [page.text_of(r).split()[0] for r in rows]
    models = rich_report().model_comparison
    assert models is not None
    ranked = sorted(models.models, key=lambda m: -m.pass_rate)
    assert names == [m.model for m in ranked]
    for row, model in zip(rows, ranked, strict=True):
        dots = [c for c in page.all("circle") if row in c["parents"]]
        assert len(dots) == 1
        cx = float(dots[0]["attrs"]["cx"].removesuffix("%"))
        assert cx == pytest.approx(model.pass_rate * 100, abs=0.001)
        bars = [line for line in page.all("line") if row in line["parents"]]
        if model.interval is not None:
            low, high = (float(bars[0]["attrs"][k].removesuffix("%")) for k in ("x1", "x2"))
            assert low <= cx <= high
    axis = " ".join(page.text_of(t) for t in page.with_class("axis"))
    assert "0%" in axis and "100%" in axis


def test_one_closed_disclosure_per_case_with_its_evidence(page: Page) -> None:
    cases = [d for d in page.all("details") if "case" in (d["attrs"].get("class") or "").split()]
    assert len(cases) == 3
    assert all("open" not in d["attrs"] for d in cases)
    refund = " ".join(page.text_of(cases[1]).split())
    for expected in (
        "Item in order 42 arrived broken",  # input
        "Refund issued.",  # reference
        "model-a",
        "model-b",
        "refunds.create_refund",  # actions
        '"refund": 42',  # observation
        "does not match api[0]",  # replay evidence
        "exact_match",
        "Answer with the refund only",
    ):
        assert expected in refund, expected
    escalation = page.text_of(cases[2])
    assert "TimeoutError: no answer within 30 s" in escalation
    assert "Traceback (most recent call last)" in escalation
    order = page.text_of(cases[0])
    assert "votes 0.9, 0.8" in order  # each metric's reason and votes


def test_fix_cards_copy_the_markdown_fix_item() -> None:
    report = rich_report()
    page = Page(report.to_html())
    cards = page.with_class("fix-card")
    assert len(cards) == len(report.fix_items) >= 2
    for card, item in zip(cards, report.fix_items, strict=True):
        button = next(b for b in page.all("button") if card in b["parents"])
        assert button["attrs"]["type"] == "button"
        assert json.loads(button["attrs"]["data-markdown"]) == report.fix_item_markdown(item)


@pytest.mark.parametrize("theme", THEMES)
def test_the_theme_is_set_on_the_page(theme: str) -> None:
    page = Page(rich_report().to_html(theme=theme))
    assert page.one("html")["attrs"]["data-theme"] == theme


def test_the_default_theme_follows_the_system(current_run: Run) -> None:
    assert Page(Report(current_run).to_html()).one("html")["attrs"]["data-theme"] == "system"


def test_an_unknown_theme_is_refused(current_run: Run, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"theme 'sepia'.*light, dark"):
        Report(current_run).to_html(theme="sepia")
    with pytest.raises(ConfigurationError, match="theme"):
        Report(current_run).export(tmp_path / "r.md", theme="dark")
    assert not (tmp_path / "r.md").exists()


@pytest.mark.parametrize("name", ["r.html", "r.HTM"])
def test_export_by_extension(tmp_path: Path, current_run: Run, name: str) -> None:
    written = Report(current_run).export(tmp_path / name, theme="dark")
    text = written.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and 'data-theme="dark"' in text


def test_the_format_registry_knows_html(current_run: Run) -> None:
    assert format_named("html").name == "html"
    assert format_for(Path("x.htm")).name == "html"
    assert Report(current_run).render("html") == Report(current_run).to_html()
    assert html_of(build_view(current_run)).startswith("<!DOCTYPE html>")


def test_a_run_without_models_comparison_or_fixes_still_renders(running_run: Run) -> None:
    page = Page(Report(running_run).to_html())
    ids = [e["attrs"]["id"] for e in page.all("section") if "id" in e["attrs"]]
    assert ids == ["summary", "matrix", "comparison", "cases", "fixes"]
    assert "Nothing to fix" in page.all_text
    assert "No stored summary" in page.all_text


def test_estimated_money_carries_the_legend_once_and_a_tooltip(current_run: Run) -> None:
    page = Page(Report(current_run).to_html())
    assert page.all_text.count("estimated from tokens") == 1
    titled = [e for e in page.elements if "estimated" in (e["attrs"].get("title") or "")]
    assert titled and all(page.text_of(e).startswith("~") for e in titled)
    # Without the rates it was priced at, an estimate's tooltip names the tokens they applied to.
    workings = [e["attrs"]["title"] for e in titled if "2,328 in" in e["attrs"]["title"]]
    assert workings == ["estimated: 2,328 in + 423 out tokens × model rates"]


def _priced(run: Run, rate: dict[str, object]) -> Run:
    """``run`` with its estimated sample carrying the rate it was priced at."""
    samples = [
        replace(s, metadata={**s.metadata, "cost_rate": rate})
        if s.usage is not None and s.usage.cost_source == "estimated"
        else s
        for s in run.samples
    ]
    return replace(run, samples=tuple(samples))


def _cost_titles(page: Page) -> list[str]:
    return [
        e["attrs"]["title"]
        for e in page.all("span")
        if "estimated" in e["attrs"].get("class", "") and page.text_of(e) == "~$0.0243"
    ]


def test_an_estimated_cost_shows_its_working_in_the_tooltip(current_run: Run) -> None:
    rate = {"input": 5.0, "output": 30.0, "source": "catalog"}
    page = Page(Report(_priced(current_run, rate)).to_html())
    assert _cost_titles(page) == ["2,328 in × $5.00/M + 423 out × $30.00/M · catalog rate"]


def test_a_hostile_rate_source_stays_in_its_tooltip(current_run: Run) -> None:
    source = '" onmouseover="window.__pwned=1" x="\u202e'
    rate = {"input": 0.075, "output": 0.3, "source": source}
    page = Page(Report(_priced(current_run, rate)).to_html())
    _allowed(page)
    assert _cost_titles(page) == [
        f"2,328 in × $0.075/M + 423 out × $0.30/M · {source} rate".replace("\u202e", "\\u202e")
    ]


# -- hostile text ---------------------------------------------------------------------------

CORPUS = {
    **CONTROLS,
    **MARKUP,
    "everything": EVERYTHING,
    "quote_break": '" onmouseover="window.__pwned=1" x="\' onfocus=\'window.__pwned=1\'',
    "js_href": '<a href="javascript:window.__pwned=1">click</a>',
    "script_close": "</script><script>window.__pwned=1</script>",
    "style_break": "</style><style>body{display:none}</style>",
    "textarea_break": "</textarea></pre></details><script>window.__pwned=1</script>",
    "escapes": "\\u003cscript\\u003e \\x3cb\\x3e &#60;b&#62; {{ 7*7 }} {% raw %}",
}


ATTRIBUTES = {
    *("lang", "data-theme", "charset", "name", "content", "http-equiv", "class", "id", "href"),
    *("role", "aria-label", "aria-labelledby", "aria-hidden", "aria-live", "tabindex"),
    *("scope", "rowspan", "type", "data-markdown", "title", "width", "height"),
    "preserveaspectratio",
    *("x1", "x2", "y1", "y2", "cx", "cy", "r", "x", "y", "text-anchor"),
}


def _allowed(page: Page) -> None:
    """Only the page's own script and markup: no handler, no script link, no foreign element."""
    assert len(page.all("script")) == 1
    assert not page.comments
    for element in page.elements:
        assert element["tag"] not in ("iframe", "img", "object", "embed", "form", "base")
        if element["tag"] == "a":  # the page's own links to its sections
            assert element["attrs"]["href"].startswith("#")
        for name, value in element["attrs"].items():
            assert not name.startswith("on"), (element["tag"], name)
            if name in ("href", "src", "action", "formaction", "xlink:href", "data", "poster"):
                assert (value or "").startswith("#"), (element["tag"], name, value)
        # Attributes hold only what the page set: no attribute broke out of its quotes.
        assert set(element["attrs"]) <= ATTRIBUTES, (element["tag"], element["attrs"])


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_hostile_text_is_only_text(name: str) -> None:
    text = CORPUS[name]
    run = hostile_run(text)
    html = Report(run, baseline=hostile_run(text, run_id="run-b", sequence=4)).to_html()
    page = Page(html)
    _allowed(page)
    shown = page.all_text
    # Control and bidirectional characters are shown as escapes, everything else as written.
    from assay_agents.text import visible

    assert visible(f"answer {text}", lines=True) in shown
    assert not re.search("[\u202a-\u202e\u2066-\u2069\x1b\x07]", html)


def test_a_megabyte_answer_is_there_in_full() -> None:
    huge = "<b>x</b>" * (1_000_000 // 8)
    run = hostile_run("big")
    run = replace(run, samples=(replace(run.samples[0], answer=huge), *run.samples[1:]))
    page = Page(Report(run).to_html())
    _allowed(page)
    assert huge in page.all_text
    assert not page.all("b")


# -- command line ---------------------------------------------------------------------------


def _invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    spec = tmp_path / "spec.py"
    spec.write_text(
        "import assay_agents as assay\nfrom assay_agents import checks\n"
        "suite = assay.Suite('S', agent=lambda text: 'a <b>', checks=[checks.exact_match()])\n"
        "suite.case('q', id='one', expected='a <b>')\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    for name in [n for n in __import__("os").environ if n.startswith("ASSAY_")]:
        monkeypatch.delenv(name)
    return spec


def test_assay_run_writes_an_html_report(stored: Path, tmp_path: Path) -> None:
    done = _invoke("run", stored, "--report", tmp_path / "r.html", "--theme", "light")
    assert done.exit_code == 0, done.output
    page = Page((tmp_path / "r.html").read_text(encoding="utf-8"))
    assert page.one("html")["attrs"]["data-theme"] == "light"
    assert "a <b>" in page.all_text


def test_assay_report_writes_html(stored: Path, tmp_path: Path) -> None:
    assert _invoke("run", stored).exit_code == 0
    done = _invoke("report", "--format", "html", "--theme", "dark", "--output", tmp_path / "o.x")
    assert done.exit_code == 0, done.output
    assert 'data-theme="dark"' in (tmp_path / "o.x").read_text(encoding="utf-8")
    printed = _invoke("report", "--format", "html")
    assert printed.stdout.startswith("<!DOCTYPE html>")


def test_a_theme_for_another_format_or_an_unknown_one_exits_2(stored: Path, tmp_path: Path) -> None:
    assert _invoke("run", stored).exit_code == 0
    wrong = _invoke("report", "--theme", "dark", "--output", tmp_path / "r.md")
    assert wrong.exit_code == 2 and "theme" in wrong.stderr
    assert not (tmp_path / "r.md").exists()
    unknown = _invoke("report", "--theme", "sepia", "--output", tmp_path / "r.html")
    assert unknown.exit_code == 2 and "sepia" in unknown.stderr
    assert not (tmp_path / "r.html").exists()
    before = _invoke("run", stored, "--report", tmp_path / "s.html", "--theme", "sepia")
    assert before.exit_code == 2 and not (tmp_path / "s.html").exists()
