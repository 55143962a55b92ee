"""Runs for the HTML report tests: two models, a verdict, faults, evidence of every kind."""

from __future__ import annotations

from dataclasses import replace
from html.parser import HTMLParser

from assay_agents.agent import Observation
from assay_agents.compare import StoredComparison, compare_models
from assay_agents.report import Report
from assay_agents.results import Run, summarise
from assay_agents.results.fault import Fault
from assay_agents.results.run import ModelVerdict

from .conftest import current_samples, make_run, passing_samples

MODELS = ("model-a", "model-b")

REPLAY = {
    "passed": False,
    "allow_hosts": [],
    "expected": [],
    "requests": [{"method": "GET", "url": "https://api.example/orders/42", "status": "mismatch"}],
    "missing": [],
    "problems": ["request 1 GET https://api.example/orders/42 does not match api[0]: body"],
}


def _two_models(samples: list) -> list:
    return [replace(sample, model=model) for sample in samples for model in MODELS]


def evidence_samples() -> list:
    """The candidate's samples with faults, a traceback, replay evidence and an observation."""
    samples = current_samples()
    samples[1] = replace(
        samples[1],
        fault=Fault.CHECK_FAILED,
        recommendation="Answer with the refund only; do not look the order up first.",
        observation=Observation({"commands": [{"refund": 42}]}),
        metadata={"api_replay": REPLAY},
    )
    samples[2] = replace(
        samples[2],
        fault=Fault.RUN_ERROR,
        recommendation="Make the agent answer within the timeout.",
        metadata={
            "traceback": 'Traceback (most recent call last):\n  File "agent.py"\nTimeoutError'
        },
    )
    return samples


def rich_run(samples: list | None = None, *, run_id: str = "run-0002", sequence: int = 2) -> Run:
    """Two models, a judge's verdict, stored model intervals, faults and their evidence."""
    both = _two_models(evidence_samples() if samples is None else samples)
    run = make_run(both, run_id=run_id, sequence=sequence)
    run = replace(
        run,
        summary=summarise(both),
        verdict=ModelVerdict("model-a", "fewer failures on the same cases", "judge-1"),
    )
    return replace(run, comparison=StoredComparison(None, compare_models(run)))


def baseline_of_rich() -> Run:
    return make_run(_two_models(passing_samples()), run_id="run-0001", sequence=1)


def rich_report(**options: object) -> Report:
    return Report(rich_run(), baseline=baseline_of_rich(), **options)  # type: ignore[arg-type]


class Page(HTMLParser):
    """A parsed page: every element with its attributes, its path, and its text."""

    VOID = {"meta", "br", "input", "link", "img", "hr", "wbr", "source", "col", "area", "base"}

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self.stack: list[dict] = []
        self.text: list[str] = []
        self.comments: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = {"tag": tag, "attrs": dict(attrs), "text": [], "parents": list(self.stack)}
        self.elements.append(element)
        if tag in self.VOID or tag in ("circle", "line", "rect", "path"):
            return
        self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(
            {"tag": tag, "attrs": dict(attrs), "text": [], "parents": list(self.stack)}
        )

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index]["tag"] == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        for element in self.stack:
            element["text"].append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)

    def all(self, tag: str, **attrs: str) -> list[dict]:
        return [
            e
            for e in self.elements
            if e["tag"] == tag and all(e["attrs"].get(k) == v for k, v in attrs.items())
        ]

    def with_class(self, name: str) -> list[dict]:
        return [e for e in self.elements if name in (e["attrs"].get("class") or "").split()]

    def one(self, tag: str, **attrs: str) -> dict:
        found = self.all(tag, **attrs)
        assert len(found) == 1, (tag, attrs, len(found))
        return found[0]

    @staticmethod
    def text_of(element: dict) -> str:
        return "".join(element["text"])

    @property
    def all_text(self) -> str:
        return "".join(self.text)
