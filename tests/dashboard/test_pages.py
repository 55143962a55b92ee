"""The dashboard's pages over real runs, on SQLite and PostgreSQL, through Starlette's client."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote, urlencode

import pytest
from starlette.testclient import TestClient

from assay_agents.dashboard import create_app
from assay_agents.report import Report
from assay_agents.store import Store
from commandline import run_in_process

from .conftest import History


@pytest.fixture
def client(history: History) -> Iterator[TestClient]:
    with Store.open(history.url) as store, TestClient(create_app(store)) as client:
        yield client


def test_the_runs_page_lists_each_run_with_its_figures(
    client: TestClient, history: History
) -> None:
    page = client.get("/")
    assert page.status_code == 200
    for run in (history.reference, history.regressed):
        assert f'href="/runs/{run.id}"' in page.text
    assert "regressed" in page.text and "passed" in page.text  # the verdict against the baseline
    assert (
        f"/compare?baseline={history.reference.id}&amp;current={history.regressed.id}" in page.text
    )
    assert "<bdi>ref-1</bdi>" in page.text and "100%" in page.text


@pytest.mark.parametrize(
    ("query", "shown", "hidden"),
    [
        ("suite=Customer+support", ("reference", "regressed"), ("hostile",)),
        ("meta=revision%3Dbad-2", ("regressed",), ("reference", "hostile")),
        ("status=completed&suite=Customer+support", ("reference", "regressed"), ("hostile",)),
        ("status=running", (), ("reference", "regressed", "hostile")),
        ("from=2000-01-01&to=2000-01-02", (), ("reference", "regressed", "hostile")),
        ("model=no-such-model", (), ("reference", "regressed", "hostile")),
    ],
)
def test_filters_choose_the_runs(
    client: TestClient, history: History, query: str, shown: tuple, hidden: tuple
) -> None:
    page = client.get(f"/?{query}")
    assert page.status_code == 200
    for name in shown:
        assert f'/runs/{getattr(history, name).id}"' in page.text, name
    for name in hidden:
        assert f'/runs/{getattr(history, name).id}"' not in page.text, name


def test_pages_go_back_in_time_a_page_at_a_time(client: TestClient, history: History) -> None:
    first = client.get("/?per=2")
    second = client.get("/?per=2&page=2")

    def listed(run, page) -> bool:
        return f'href="/runs/{run.id}"' in page.text

    assert listed(history.hostile, first) and listed(history.regressed, first)
    assert not listed(history.reference, first) and 'rel="next"' in first.text
    assert listed(history.reference, second) and 'rel="prev"' in second.text
    assert 'rel="next"' not in second.text


def test_a_run_page_reads_as_the_report_with_its_cases_and_baseline(
    client: TestClient, history: History
) -> None:
    run = history.regressed
    page = client.get(f"/runs/{run.id}")
    assert page.status_code == 200
    assert 'id="summary"' in page.text and 'id="comparison"' in page.text
    assert f'id="baseline-link" href="/runs/{history.reference.id}"' in page.text
    assert f"/runs/{run.id}/case?id=returns" in page.text
    by_handle = client.get("/runs/" + quote("Customer support#2", safe=""))
    assert by_handle.status_code == 200 and run.id in by_handle.text


def _section(html: str, name: str) -> str:
    found = re.search(rf'<section id="{name}".*?</section>', html, re.DOTALL)
    assert found is not None, name
    return found.group(0)


def test_a_run_page_shows_the_report_s_figures_read_from_the_stored_summary(
    client: TestClient, history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay_agents.dashboard import pages

    run = history.regressed
    with Store.open(history.url) as store:
        whole = store.get_run(run.id)
    report = Report(whole).to_html()
    monkeypatch.setattr(pages, "CASES_PER_PAGE", 2)  # a page of two cases, of this small run
    page = client.get(f"/runs/{run.id}")
    assert page.status_code == 200
    # The figures, the comparison and what to fix read as the report of the whole run does.
    for name in ("summary", "comparison", "fixes"):
        assert _section(page.text, name) == _section(report, name), name
    summary = whole.summary
    assert summary is not None
    assert f"{summary.passed} passed · {summary.failed} failed" in page.text
    # The evidence is on the case pages: this page lists the cases a page at a time.
    assert 'id="matrix"' not in page.text and '<section id="cases"' not in page.text
    listed = re.findall(rf'href="/runs/{run.id}/case\?id=([^"]+)"', page.text)
    later = client.get(f"/runs/{run.id}", params={"cases": 2})
    listed_later = re.findall(rf'href="/runs/{run.id}/case\?id=([^"]+)"', later.text)
    assert len(listed) == 2 and listed_later and not set(listed) & set(listed_later)
    assert f"Cases ({len(whole.cases)})" in page.text and 'rel="next"' in page.text
    assert 'rel="prev"' in later.text


def test_a_case_page_sets_the_baseline_beside_it_and_shows_its_history(
    client: TestClient, history: History
) -> None:
    run = history.regressed
    page = client.get(f"/runs/{run.id}/case", params={"id": "returns"})
    assert page.status_code == 200, page.text
    assert f'id="baseline-case" href="/runs/{history.reference.id}/case?id=returns"' in page.text
    assert "<del>" in page.text and "<ins>" in page.text  # the two answers diffed
    assert "Actions" in page.text and "Metrics" in page.text
    assert page.text.count('/case?id=returns">#') == 2  # both runs in the case's history
    assert "flaky" not in page.text  # one flip is a change (this regression), not noise


def test_trends_draw_a_point_per_run_with_a_figure_and_none_without(
    client: TestClient, history: History
) -> None:
    page = client.get("/trends", params={"suite": "Customer support"})
    assert page.status_code == 200
    assert "<svg" in page.text and page.text.count('class="dot"') == 2
    unjudged = client.get("/trends", params={"suite": history.hostile.suite})
    assert unjudged.status_code == 200 and "pass rate (checks)" in unjudged.text


def test_compare_pairs_two_runs_as_the_command_does(client: TestClient, history: History) -> None:
    page = client.get(
        "/compare", params={"baseline": history.reference.id, "current": history.regressed.id}
    )
    assert page.status_code == 200
    assert "Comparison" in page.text and "regress" in page.text.lower()
    assert client.get("/compare", params={"baseline": history.reference.id}).status_code == 400


def test_the_run_json_is_the_report_command_s_byte_for_byte(
    client: TestClient, history: History, tmp_path
) -> None:
    run = history.regressed
    done = run_in_process(["report", run.id, "--format", "json", "--db", history.url], tmp_path)
    assert done.returncode == 0, done.stderr
    for path in (f"/runs/{run.id}/run.json", f"/runs/{run.id}/report.json"):
        download = client.get(path, params={"download": "1"})
        assert download.content == done.stdout.encode("utf-8")
        assert download.headers["content-disposition"] == (
            'attachment; filename="Customer-support-run-2.json"'
        )
    assert "content-disposition" not in client.get(f"/runs/{run.id}/run.json").headers


def test_reports_download_in_every_format_and_in_parts(
    client: TestClient, history: History
) -> None:
    run = history.regressed
    with Store.open(history.url) as store:
        made = Report(store.get_run(run.id))
    base = f"/runs/{run.id}"
    markdown = client.get(f"{base}/report.md")
    assert markdown.text == made.render("markdown")
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert client.get(f"{base}/report.md", params={"part": "fix_items"}).text == (
        made.fix_items_markdown()
    )
    case = client.get(f"{base}/report.md", params={"part": "case", "case": "returns"})
    assert case.text == made.case_markdown("returns")
    assert client.get(f"{base}/report.xml").text == made.render("junit")
    html = client.get(f"{base}/report", params={"download": "1"})
    assert html.text == made.render("html")
    assert "sha256-" in html.headers["content-security-policy"]
    case_json = client.get(f"{base}/case.json", params={"id": "returns"}).json()
    assert case_json["case_id"] == "returns" and case_json["samples"]
    assert client.get(f"{base}/report.md", params={"part": "nope"}).status_code == 400
    missing = client.get(f"{base}/report.md", params={"part": "case", "case": "nope"})
    assert missing.status_code == 404


def test_head_answers_like_get_without_a_body(client: TestClient, history: History) -> None:
    head = client.head(f"/runs/{history.regressed.id}/run.json")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"].startswith("application/json")


def test_a_running_run_shows_its_progress_and_refreshes(history: History) -> None:
    from dataclasses import replace

    from assay_agents.evaluation.lease import this_process
    from assay_agents.results import RunStatus

    with Store.open(history.url) as store:
        template = store.get_run(history.reference.id)
        running = replace(
            template,
            id=f"running-{template.id[:8]}",
            status=RunStatus.RUNNING,
            samples=template.samples[:1],
            summary=None,
            comparison=None,
            outcome=None,
            finished_at=None,
            lease=this_process(),
            sequence=None,
            number=None,
        )
        stored = store.create_run(running)
        with TestClient(create_app(store)) as client:
            listed = client.get("/", params={"status": "running"})
            page = client.get(f"/runs/{stored.id}")
    assert f"1 of {len(template.samples)} samples" in listed.text
    assert 'http-equiv="refresh"' in listed.text and 'http-equiv="refresh"' in page.text
    assert re.search(r"state-running", listed.text)


def test_a_case_that_flips_back_and_forth_or_within_a_run_is_flaky() -> None:
    from datetime import UTC, datetime

    from assay_agents.evaluation.browsing import is_flaky
    from assay_agents.store.browse import CaseRun

    def entry(*statuses: str, fingerprint: str = "f") -> CaseRun:
        counts = {status: 1 for status in statuses}
        return CaseRun(
            run_id="r",
            number=1,
            started_at=datetime.now(UTC),
            fingerprint=fingerprint,
            statuses=counts,
        )

    newest_first = (entry("passed"), entry("failed"), entry("passed"))
    assert is_flaky(newest_first)
    assert not is_flaky((entry("failed"), entry("passed"), entry("passed")))
    assert is_flaky((entry("passed", "failed"),))
    changed = (entry("passed", fingerprint="g"), entry("failed"), entry("passed"))
    assert not is_flaky(changed)  # a new definition starts a new history


def _matrix_rows(table: str, row_key: str) -> list[tuple[str, list[str]]]:
    """Each body row of a matrix table: its case id (as written) and its cells, byte for byte."""
    body = table.split("<tbody>", 1)[1]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL):
        key = re.search(row_key, row)
        assert key is not None, row
        rows.append((key.group(1), re.findall(r"<td[^>]*>.*?</td>", row)))
    return rows


def _column_headers(table: str) -> list[str]:
    return re.findall(r'<th scope="col">.*?</th>', table.split("<tbody>", 1)[0])


def test_a_run_of_two_models_pages_the_report_s_case_by_model_matrix(
    matrix_history: tuple[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay_agents.dashboard import pages
    from hostile import raw_controls

    url, run = matrix_history
    monkeypatch.setattr(pages, "CASES_PER_PAGE", 2)  # two pages of this run's three cases
    with Store.open(url) as store, TestClient(create_app(store)) as client:
        whole = store.get_run(run.id)
        assert whole.comparison is not None and whole.comparison.models is not None
        shown = [client.get(f"/runs/{run.id}", params={"cases": n}) for n in (1, 2)]
    report = _section(Report(whole).to_html(), "matrix")
    statuses = {s.status.value for s in whole.samples}
    assert statuses == {"passed", "failed", "error", "not_evaluated"}
    expected = _matrix_rows(report, r'<th scope="row">(.*?)</th>')
    tables = []
    for page in shown:
        assert page.status_code == 200
        assert "<script>alert" not in page.text and "<img src=x" not in page.text
        assert not raw_controls(page.text) and "\u202e" not in page.text
        found = re.search(
            r'<div class="scroll" role="region" aria-label="Case × model" '
            r'tabindex="0">\s*<table>.*?</table>',
            page.text,
            re.DOTALL,
        )
        assert found is not None
        tables.append(found.group(0))
        # The columns are the report's: its headers as it writes them.
        assert _column_headers(found.group(0))[1:] == _column_headers(report)[1:]
    rows = [r for t in tables for r in _matrix_rows(t, r'<span class="note"><bdi>(.*?)</bdi>')]
    # Every cell reads (and is coloured) as the whole run's report writes it.
    assert rows == expected and len(rows) == len(whole.cases) == 3
    assert 'class="fail">fail 0/3 · missing_content</td>' in tables[0]
    assert 'class="fail">fail 2/3 · run_error</td>' in tables[0]
    for case in whole.cases:  # each case links to its page
        listed = "".join(p.text for p in shown)
        assert f'href="/runs/{run.id}/case?{urlencode({"id": case.case_id})}"' in listed
