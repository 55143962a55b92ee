"""A small trip-planning assistant whose commands and events are stored in SQLite.

It stands in for a real application: a turn is either text, which a model *understands* into
acts (operations with arguments) that are admitted as commands and committed as events, or a
reply to a pending interaction (a card), which is answered directly and never understood at
all. The model only writes the reply's prose. Nothing here knows about Assay.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

SCHEMA = """
CREATE TABLE cases (case_id TEXT PRIMARY KEY, workflow TEXT, label TEXT, revision INTEGER,
                    state TEXT);
CREATE TABLE interactions (id INTEGER PRIMARY KEY, case_id TEXT, kind TEXT, status TEXT,
                           options TEXT);
CREATE TABLE commands (seq INTEGER PRIMARY KEY AUTOINCREMENT, turn INTEGER, case_id TEXT,
                       type TEXT, payload TEXT);
CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, turn INTEGER, case_id TEXT,
                     type TEXT, payload TEXT);
CREATE TABLE acts (seq INTEGER PRIMARY KEY AUTOINCREMENT, turn INTEGER, operation TEXT);
"""

#: What each operation commits, and how it changes the case's state.
OPERATIONS: dict[str, tuple[str, Callable[[dict[str, Any], dict[str, Any]], None]]] = {
    "trip.set_name": ("trip.name_set", lambda state, args: state.update(name=args["name"])),
    "trip.set_travel_date": (
        "trip.travel_date_set",
        lambda state, args: state.update(travel_date=args["date"]),
    ),
    "trip.rebook": (
        "trip.rebooking_sent",
        lambda state, args: state.update(booking=args.get("train", "next")),
    ),
}


class UnscriptedCall(RuntimeError):
    """The model was asked something its script does not cover: fail loudly, never guess."""


@dataclass(frozen=True)
class Act:
    """One understood act: an operation on a case, with its arguments."""

    operation: str
    case_id: str
    arguments: dict[str, Any] = field(default_factory=dict)


class Model:
    """The model's two jobs in this app: understand a message, and write the reply."""

    def understand(self, text: str) -> list[Act]:
        """The acts a message asks for."""
        raise NotImplementedError

    def write(self, facts: list[str]) -> str:
        """The reply's prose, from the facts the turn settled."""
        raise NotImplementedError


class TripStore:
    """The application's storage: cases, interactions, and the command and event journals."""

    def __init__(self) -> None:
        # One connection per world; the harness may read it from another thread.
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.executescript(SCHEMA)
        self.turn = 0

    def seed(self, setup: Mapping[str, Any]) -> None:
        """Seed cases, their pending interactions and any prior history."""
        for case in setup.get("cases", []):
            self.db.execute(
                "INSERT INTO cases VALUES (?, ?, ?, ?, ?)",
                (
                    case["case_id"],
                    case.get("workflow", "trip"),
                    case.get("label", case["case_id"]),
                    case.get("revision", 1),
                    json.dumps(case.get("state", {})),
                ),
            )
            for card in case.get("pending", []):
                self.db.execute(
                    "INSERT INTO interactions (case_id, kind, status, options) "
                    "VALUES (?, ?, 'pending', ?)",
                    (case["case_id"], card["kind"], json.dumps(card["options"])),
                )
            prior = int(case.get("prior_events", 0))
            self.db.executemany(
                "INSERT INTO events (turn, case_id, type, payload) "
                "VALUES (0, ?, 'trip.history', '{}')",
                [(case["case_id"],)] * prior,
            )
        self.db.commit()

    def begin_turn(self) -> int:
        """Start a turn; every command and event written until the next one belongs to it."""
        self.turn += 1
        return self.turn

    def record_act(self, act: Act) -> None:
        """Keep what the model understood, for the replay record."""
        self.db.execute(
            "INSERT INTO acts (turn, operation) VALUES (?, ?)", (self.turn, act.operation)
        )

    def apply(
        self,
        case_id: str,
        command: str,
        arguments: Mapping[str, Any],
        event: str,
        change: Callable[[dict[str, Any]], None],
    ) -> None:
        """Admit a command, commit its event and bump the case's revision, atomically."""
        with self.db:
            row = self.db.execute(
                "SELECT state FROM cases WHERE case_id = ?", (case_id,)
            ).fetchone()
            if row is None:
                raise KeyError(f"no case {case_id!r}")
            state = json.loads(row[0])
            change(state)
            self.db.execute(
                "UPDATE cases SET state = ?, revision = revision + 1 WHERE case_id = ?",
                (json.dumps(state), case_id),
            )
            payload = json.dumps(dict(arguments))
            self.db.execute(
                "INSERT INTO commands (turn, case_id, type, payload) VALUES (?, ?, ?, ?)",
                (self.turn, case_id, command, payload),
            )
            self.db.execute(
                "INSERT INTO events (turn, case_id, type, payload) VALUES (?, ?, ?, ?)",
                (self.turn, case_id, event, payload),
            )

    def blocking_interaction(self, case_id: str) -> tuple[int, str, list[str]]:
        """The pending card of a case: its id, kind and options."""
        row = self.db.execute(
            "SELECT id, kind, options FROM interactions WHERE case_id = ? "
            "AND status = 'pending' ORDER BY id LIMIT 1",
            (case_id,),
        ).fetchone()
        if row is None:
            raise LookupError(f"case {case_id!r} has no pending interaction")
        return row[0], row[1], json.loads(row[2])

    def answer(self, case_id: str, option: str) -> str:
        """Answer the case's pending card with one of its options."""
        card, kind, options = self.blocking_interaction(case_id)
        if option not in options:
            raise ValueError(f"{option!r} is not an option of the {kind} card ({options})")

        def close(state: dict[str, Any]) -> None:
            state.setdefault("answers", []).append({"card": card, "option": option})

        self.apply(
            case_id,
            "trip.answer_interaction",
            {"card": card, "option": option},
            "trip.interaction_answered",
            close,
        )
        self.db.execute("UPDATE interactions SET status = 'answered' WHERE id = ?", (card,))
        self.db.commit()
        return kind

    # -- reading back: what a harness observes -------------------------------------------

    def commands(self, turn: int) -> list[str]:
        """Command types journaled in a turn, in admission order."""
        rows = self.db.execute("SELECT type FROM commands WHERE turn = ? ORDER BY seq", (turn,))
        return [row[0] for row in rows]

    def acts(self, turn: int) -> list[str]:
        """The operations the model understood in a turn."""
        rows = self.db.execute("SELECT operation FROM acts WHERE turn = ? ORDER BY seq", (turn,))
        return [row[0] for row in rows]

    def events_after(self, cursor: int, limit: int) -> list[tuple[int, int, str]]:
        """One page of the event journal after a sequence cursor: (seq, turn, type)."""
        return list(
            self.db.execute(
                "SELECT seq, turn, type FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
                (cursor, limit),
            )
        )

    def statuses(self, case_id: str) -> list[str]:
        """The statuses of a case's interactions, oldest first."""
        rows = self.db.execute(
            "SELECT status FROM interactions WHERE case_id = ? ORDER BY id", (case_id,)
        )
        return [row[0] for row in rows]

    def close(self) -> None:
        """Release the database."""
        self.db.close()


def read_events(
    store: TripStore, turn: int, *, page_size: int = 500, ceiling: int | None = None
) -> tuple[list[str], bool]:
    """The event types a turn committed, reading the journal page by page to its end.

    Returns the events and whether a ceiling stopped the read early (never silently).
    """
    found: list[str] = []
    for seq_turn_type in _pages(store, page_size):
        if seq_turn_type[1] == turn:
            if ceiling is not None and len(found) >= ceiling:
                return found, True
            found.append(seq_turn_type[2])
    return found, False


def _pages(store: TripStore, page_size: int) -> Iterator[tuple[int, int, str]]:
    cursor = 0
    while True:
        page = store.events_after(cursor, page_size)
        if not page:
            return  # caught up with the journal
        yield from page
        cursor = page[-1][0]


class TripAssistant:
    """The assistant: one turn per call, on one store, with one model."""

    def __init__(self, store: TripStore, model: Model) -> None:
        self.store = store
        self.model = model
        self.turn = 0

    def __call__(self, value: Any, ctx: Any = None) -> str:
        """Take a turn: a reply answers a card; text is understood into acts and applied."""
        self.turn = self.store.begin_turn()
        if isinstance(value, Mapping) and "reply" in value:
            return self._reply(value["reply"])
        return self._message(str(value))

    def _reply(self, reply: Mapping[str, Any]) -> str:
        # A card answer is never understood: the model only writes the prose.
        kind = self.store.answer(reply["case"], reply["option"])
        return self.model.write([f"{kind}: {reply['option']}"])

    def _message(self, text: str) -> str:
        facts = []
        for act in self.model.understand(text):
            event, change = OPERATIONS[act.operation]
            self.store.record_act(act)
            self.store.apply(
                act.case_id,
                act.operation,
                act.arguments,
                event,
                lambda state, args=act.arguments, apply=change: apply(state, args),
            )
            facts.append(f"{act.operation} {json.dumps(act.arguments, sort_keys=True)}")
        return self.model.write(facts)
