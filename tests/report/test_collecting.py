"""Reports are built with the cycle collector paused, and leave it as they found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from assay_agents.report import Report
from assay_agents.report._collecting import collector_paused
from assay_agents.results import Run


@pytest.fixture
def collector() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_a_report_resumes_the_collector_it_paused(current_run: Run, collector: None) -> None:
    gc.enable()
    report = Report(current_run)
    with collector_paused():
        assert not gc.isenabled()
    assert report.to_html() and report.to_text()
    assert gc.isenabled()


def test_a_collector_paused_before_stays_paused(current_run: Run, collector: None) -> None:
    gc.disable()
    assert Report(current_run).to_html()
    assert not gc.isenabled()


def test_nested_pauses_resume_once_the_outermost_ends(collector: None) -> None:
    gc.enable()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_while_paused_resumes_the_collector(collector: None) -> None:
    gc.enable()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("building failed")
    assert gc.isenabled()
