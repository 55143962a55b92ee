"""Strict HTTP replay of the agent's own API calls, scoped to one sample.

A case declares its fixtures with :func:`assay.api`; the runner opens a
:class:`ReplaySession` around the agent call only (checks and judges never run inside it).
``httpx`` (sync and async), its fork ``httpx2`` (used by the ``openai`` client) and
``requests`` are intercepted at their transports while any session is active; a context
variable decides which session, if any, a request belongs to, so concurrent samples never
see each other's fixtures and requests outside every sample go to the network untouched.

Outside the runner, for a unit test of your own agent::

    session = ReplaySession(assay.api().expect_request(...).respond_with(json={...}))
    with session.active():
        my_agent(...)
    assert session.evidence().passed

``ReplaySession(record="fixtures/track.json")`` records instead: the requests go to the
network and leaving the block writes them, redacted, as a fixture file that replays strictly
(see :mod:`assay_agents.replay.recording`; ``assay-agents run --record`` does it for every case).

This package is imported only when a case has fixtures, so ``import assay_agents`` stays light.
"""

from assay_agents.replay.evidence import EVIDENCE_KEY, ReplayEvidence, RequestRecord, RequestStatus
from assay_agents.replay.matching import ObservedRequest, json_equal
from assay_agents.replay.redact import REDACTED
from assay_agents.replay.session import ReplaySession

__all__ = [
    "EVIDENCE_KEY",
    "REDACTED",
    "ObservedRequest",
    "ReplayEvidence",
    "ReplaySession",
    "RequestRecord",
    "RequestStatus",
    "json_equal",
]
