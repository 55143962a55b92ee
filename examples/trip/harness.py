"""The trip app's harness: what the application writes once so Assay can run its items.

``start`` seeds a fresh SQLite world from the item's ``setup`` and hands back the assistant
with a scripted model; ``observe`` reads, from the app's own storage, what the turn did:
the acts it understood, the commands it journaled, the events it committed (the event
journal is paged to its end) and the statuses of the case's cards.

The model is scripted, keyed on the message and the sample index, so variance is exercised
with no network. It proves the harness and the assertions, not model reasoning. A message
nobody scripted fails loudly instead of being guessed at.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trip_app import Act, Model, TripAssistant, TripStore, UnscriptedCall, read_events

Script = Callable[[int], list[Act]]


def _always(*acts: Act) -> Script:
    return lambda sample: list(acts)


def _alternating(right: list[Act], wrong: list[Act]) -> Script:
    # Even samples understand the message, odd ones mistake it: a flaky model, by design.
    return lambda sample: list(right if sample % 2 == 0 else wrong)


SCRIPTS: dict[str, Script] = {
    "Set the name to Lisbon offsite": _always(
        Act("trip.set_name", "trip-1", {"name": "Lisbon offsite"})
    ),
    "Change the travel date to 14 June": _alternating(
        [Act("trip.set_travel_date", "trip-1", {"date": "2025-06-14"})],
        [Act("trip.set_name", "trip-1", {"name": "14 June"})],
    ),
    "Move the trip to 14 June and keep my seats": _always(
        Act("trip.set_travel_date", "trip-1", {"date": "2025-06-14"}),
        Act("trip.rebook", "trip-1", {"train": "ICE 1014"}),
    ),
}


class ScriptedModel(Model):
    """Understands only the scripted messages; writes a plain reply from the facts."""

    def __init__(self, sample: int) -> None:
        self.sample = sample

    def understand(self, text: str) -> list[Act]:
        """The scripted acts for this message and sample."""
        script = SCRIPTS.get(text)
        if script is None:
            raise UnscriptedCall(f"nobody scripted an understanding of {text!r}")
        return script(self.sample)

    def write(self, facts: list[str]) -> str:
        """A reply that states the settled facts."""
        return "Done: " + "; ".join(facts) if facts else "Nothing to do."


class TripHarness:
    """Seeds a world per sample and reads back what the turn recorded."""

    #: Events read per page of the journal.
    page_size = 500

    def start(self, case: Any, sample: int) -> TripAssistant:
        """A fresh store seeded from the item's setup, and the assistant on it."""
        store = TripStore()
        store.seed(case.setup or {})
        return TripAssistant(store, ScriptedModel(sample))

    def observe(self, agent: TripAssistant) -> dict[str, Any]:
        """What the turn did, read from storage (never from the reply's prose)."""
        store, turn = agent.store, agent.turn
        events, truncated = read_events(store, turn, page_size=self.page_size)
        cases = [row[0] for row in store.db.execute("SELECT case_id FROM cases ORDER BY 1")]
        return {
            "acts": store.acts(turn),
            "commands": store.commands(turn),
            "events": events,
            "interaction_status": [status for case in cases for status in store.statuses(case)],
            "truncated": truncated,
        }

    def stop(self, agent: TripAssistant) -> None:
        """Release the world."""
        agent.store.close()
