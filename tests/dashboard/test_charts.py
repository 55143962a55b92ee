"""The trend keeps the two dimensions apart: checks in one series, each criterion in its own."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.dashboard import create_app
from assay_agents.dashboard.charts import PASS_RATE, trend
from assay_agents.report import format as fmt
from assay_agents.store import Store
from assay_agents.store.browse import RunFilter


def _curt(instructions: str, prompt: str) -> str:
    return json.dumps({"score": 1, "reason": "curt"})


def _judged_run(tmp_path: Path) -> tuple[str, assay.Run]:
    suite = assay.Suite(
        "Curt but right",
        agent=lambda text, ctx: "The window is 30 days.",
        judge=judges.function("grader", _curt),
        criteria=["tone"],
    )
    suite.case("How long is the return window?", id="window", checks=[checks.contains("30 days")])
    url = f"sqlite:///{tmp_path / 'history.db'}"
    Store.open(url, migrate=True, create=True).close()
    return url, assay.run(suite, db=url, progress=False, samples=2)


def test_the_checks_series_reads_the_checks_alone_when_the_judge_fails(tmp_path: Path) -> None:
    url, run = _judged_run(tmp_path)
    summary = run.summary
    assert summary is not None and summary.check_pass_rate == 1.0
    assert summary.pass_rate == 0.0  # every sample failed its criterion, none a check
    tone = summary.judge["tone"].mean
    assert tone is not None and tone < 0.5

    with Store.open(url) as store:
        chart = trend(store.runs_page(RunFilter()).runs)  # what the stored summary says
    figures = {series.name: series.points[0].text for series in chart.series}
    assert figures[PASS_RATE].endswith(f"{PASS_RATE} 100.0%")
    assert figures["tone"].endswith(f"tone {fmt.percent(tone, 1)}")
    assert chart.table[0][1] == ("100.0%", fmt.percent(tone, 1))

    with Store.open(url) as store, TestClient(create_app(store)) as client:
        page = client.get("/trends", params={"suite": "Curt but right"})
    assert page.status_code == 200 and "100.0%" in page.text
