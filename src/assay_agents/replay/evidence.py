"""Replay evidence: what was declared, what each request got, and what never came.

Evidence is stored with the sample (``metadata["api_replay"]``), so every report shows it
and a later reader can tell a mismatch from a missing call without re-running anything.
Everything in it is redacted (see :mod:`assay_agents.replay.redact`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from assay_agents.replay.redact import Redactor
from assay_agents.results import SampleResult, decide_status
from assay_agents.spec import JSON
from assay_agents.spec.fixtures import ApiFixtures, Interaction, Unset

RequestStatus = Literal["matched", "mismatch", "unexpected", "exhausted", "allowed"]
#: The metadata key evidence is stored under.
EVIDENCE_KEY = "api_replay"
_FAILING = frozenset({"mismatch", "unexpected", "exhausted"})


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One request the agent made while replaying, and what became of it.

    ``status`` is ``matched`` (served the declared response), ``mismatch`` (it was the next
    declaration's turn and something differed), ``unexpected`` (no declaration targets it),
    ``exhausted`` (its declarations were all used) or ``allowed`` (an allowed host, sent live).
    """

    method: str
    url: str
    status: RequestStatus
    declaration: int | None = None
    differences: tuple[str, ...] = ()
    request_bytes: int = 0
    response_status: int | None = None
    response_bytes: int | None = None

    @property
    def failed(self) -> bool:
        """Whether this request makes the sample an agent error."""
        return self.status in _FAILING

    def problem(self, number: int) -> str:
        """One line saying what went wrong with request ``number`` (1-based)."""
        head = f"request {number} {self.method} {self.url}"
        detail = "; ".join(self.differences)
        if self.status == "mismatch":
            return f"{head} does not match api[{self.declaration}]: {detail}"
        return f"{head}: {detail}" if detail else f"{head}: {self.status}"

    def to_json(self) -> dict[str, JSON]:
        """Portable form stored with the sample."""
        return {
            "method": self.method,
            "url": self.url,
            "status": self.status,
            "declaration": self.declaration,
            "differences": list(self.differences),
            "request_bytes": self.request_bytes,
            "response_status": self.response_status,
            "response_bytes": self.response_bytes,
        }


@dataclass(frozen=True, slots=True)
class ReplayEvidence:
    """The replay of one sample: the declarations, the requests made, the declarations unused."""

    fixtures: ApiFixtures
    requests: tuple[RequestRecord, ...]
    missing: tuple[int, ...]

    @property
    def passed(self) -> bool:
        """No unexpected, mismatched or exhausted request, and no declaration left unused."""
        return not self.missing and not any(record.failed for record in self.requests)

    def problems(self) -> list[str]:
        """Every failure, one readable line each, in the order they happened."""
        lines = [
            record.problem(number)
            for number, record in enumerate(self.requests, 1)
            if record.failed
        ]
        redactor = Redactor.of(self.fixtures)
        lines += [
            f"{describe(index, self.fixtures.interactions[index], redactor)} was never requested"
            for index in self.missing
        ]
        return lines

    def message(self) -> str | None:
        """The agent error this evidence amounts to, or ``None`` when the replay passed."""
        problems = self.problems()
        if not problems:
            return None
        return "API replay failed: " + "\n".join(problems)

    def to_json(self) -> dict[str, JSON]:
        """Portable, redacted form stored as ``metadata["api_replay"]``."""
        interactions = self.fixtures.interactions
        redactor = Redactor.of(self.fixtures)
        return {
            "passed": self.passed,
            "allow_hosts": list(self.fixtures.allow_hosts),
            "expected": [
                _expected(index, item, redactor) for index, item in enumerate(interactions)
            ],
            "requests": [record.to_json() for record in self.requests],
            "missing": [
                {
                    "declaration": index,
                    "method": interactions[index].request.method,
                    "url": _declared_url(interactions[index], redactor),
                }
                for index in self.missing
            ],
            "problems": list(self.problems()),
        }

    def apply(self, result: SampleResult) -> SampleResult:
        """The sample with this evidence in its metadata; any failure makes it an agent error.

        The agent may have caught the replay exception or answered correctly anyway: the
        evidence decides, and the agent's own error, if any, is kept after it.
        """
        metadata = {**result.metadata, EVIDENCE_KEY: self.to_json()}
        message = self.message()
        if message is None:
            return replace(result, metadata=metadata)
        error = message if result.error is None else f"{message}\n{_agent_part(result.error)}"
        return replace(
            result, metadata=metadata, error=error, status=decide_status(error, result.metrics)
        )


def _agent_part(error: str) -> str:
    # The agent letting the replay's own exception escape would repeat the line above.
    name, _, text = error.partition(": ")
    if name.startswith("Replay") and text:
        return f"agent error: it did not catch the {name}"
    return f"agent error: {error}"


def describe(index: int, interaction: Interaction, redactor: Redactor | None = None) -> str:
    """``api[0] GET https://host/path?query``: a declaration as messages name it."""
    return f"api[{index}] {interaction.request.method} {_declared_url(interaction, redactor)}"


def _declared_url(interaction: Interaction, redactor: Redactor | None) -> str:
    return (redactor or Redactor()).url(interaction.request.url, interaction.request.query)


def _expected(index: int, interaction: Interaction, redactor: Redactor) -> dict[str, JSON]:
    request, response = interaction.request, interaction.response
    described: dict[str, JSON] = {
        "declaration": index,
        "method": request.method,
        "url": _declared_url(interaction, redactor),
        "headers": redactor.headers(request.headers),
    }
    if not isinstance(request.json, Unset):
        described["json"] = redactor.json(request.json)
    if request.ignore:
        described["ignore"] = list(request.ignore)
    if request.match != "exact":
        described["match"] = request.match
    described["response"] = {
        "status": response.status,
        "headers": redactor.headers(response.headers),
        "body_bytes": len(response.body),
        "body_sha256": response.sha256,
        "source": response.source,
    }
    return described
