"""Choosing a run's baseline, and saying why: explicit, pinned, or the latest passing run.

``assay-agents run`` and ``assay-agents baseline show`` ask the same question here, so the baseline
a team is shown is the one its next run takes.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import cast

from assay_agents.errors import StoreError
from assay_agents.evaluation.ports import AlikeRunStore, GradedRunStore, RunStore, reads_alike
from assay_agents.results import Run, RunStatus
from assay_agents.results.baseline import (
    BaselineChoice,
    BaselineReason,
    RunOutcome,
    legacy_outcome,
    where_text,
)

Where = tuple[tuple[str, str], ...]


def choose_baseline(
    store: RunStore,
    current: Run,
    explicit: Run | None,
    where: Where,
    judged: bool,
    *,
    samples: bool = True,
) -> tuple[Run | None, BaselineChoice]:
    """The explicit baseline, else the pinned one, else the latest earlier passing run.

    A rescore's explicit baseline is the run it rescores, and its choice says so. Without
    ``samples``, a pinned or automatic baseline comes with its cases only when the store can
    read it so (a :class:`GradedRunStore`; the explicit one as it was given).

    The automatic one is of the same suite and agent (graded by the same judge when judge
    scores are compared), restricted to runs whose metadata matches ``where``; without one,
    the choice's note says why there is none.
    """
    if explicit is not None:
        rescored = current.rescored_from == explicit.id
        reason = BaselineReason.RESCORED if rescored else BaselineReason.EXPLICIT
        return explicit, BaselineChoice(reason, explicit.id)
    if samples or not isinstance(store, GradedRunStore):
        pinned = store.pinned_baseline(current.suite, current.agent)
        found_by = functools.partial(store.find_baseline, current)
    elif reads_alike(store):
        # Its cases defined as the current run's share their definitions with them.
        sharing = cast(AlikeRunStore, store)
        pinned = sharing.pinned_baseline(current.suite, current.agent, samples=False, alike=current)
        found_by = functools.partial(sharing.find_baseline, current, samples=False, alike=current)
    else:
        pinned = store.pinned_baseline(current.suite, current.agent, samples=False)
        found_by = functools.partial(store.find_baseline, current, samples=False)
    if pinned is not None and pinned.id != current.id:
        return pinned, BaselineChoice(BaselineReason.PINNED, pinned.id)
    found = found_by(same_judge=judged, where=dict(where))
    if found is not None:
        return found, BaselineChoice(BaselineReason.LATEST_PASSING, found.id, dict(where))
    try:
        note, hint = _no_baseline(store, current, judged, where)
    except StoreError as error:
        if error.transient:
            raise
        # The earlier runs are read only to explain the absence: one that does not read is
        # named, and the run goes on without a baseline, as it would have anyway.
        note, hint = f"no earlier run could be the baseline; one does not read ({error})", None
    return None, BaselineChoice(BaselineReason.NONE, None, dict(where), note, hint)


def next_baseline(
    store: RunStore, suite: str, agent: str, where: Mapping[str, str] | None = None
) -> BaselineChoice:
    """The baseline the next run of ``suite`` by ``agent`` would take (judge aside)."""
    probe = Run(
        id="",
        suite=suite,
        agent=agent,
        fingerprint="",
        status=RunStatus.RUNNING,
        started_at=datetime.now(UTC),
    )
    where_pairs = tuple((where or {}).items())
    return choose_baseline(store, probe, None, where_pairs, judged=False, samples=False)[1]


def _no_baseline(
    store: RunStore, current: Run, judged: bool, where: Where
) -> tuple[str, str | None]:
    """Why no run could be the baseline, and what to do about it (or ``None``).

    The reason names the earlier runs of the suite, if any; the hint ends with the command
    to paste.
    """
    earlier = [
        run
        for run in store.history(suite=current.suite, limit=100)
        if run.id != current.id
        and (current.sequence is None or run.sequence is None or run.sequence < current.sequence)
    ]
    if not earlier:
        return f"this is the first run of suite {current.suite!r}", None
    completed = [run for run in earlier if run.status is RunStatus.COMPLETED]
    by_agent = [run for run in completed if run.agent == current.agent]
    hint = (
        f"compare with one explicitly: assay-agents compare {earlier[0].id[:8]} {current.id[:8]}"
        if current.id
        else None
    )
    if not completed:
        return (
            f"{len(earlier)} earlier run(s) of suite {current.suite!r}, but none "
            "completed (resume them with --resume)"
        ), hint
    if not by_agent:
        agents = ", ".join(sorted({repr(run.agent) for run in completed})[:5])
        return (
            f"{len(earlier)} earlier run(s) of suite {current.suite!r}, but none by "
            f"agent {current.agent!r} (theirs: {agents})"
        ), hint
    judge = current.settings.judge
    graded = f" graded by judge {judge!r}" if judged else ""
    return (
        f"no earlier passing run of this suite and agent{where_text(where)}{graded}: "
        f"{_outcomes(by_agent)}"
    ), "pin one with assay-agents baseline set RUN"


def _outcomes(runs: list[Run]) -> str:
    """``3 earlier completed (2 regressed, 1 failed)``."""
    found = Counter(run.outcome or legacy_outcome(run.summary) for run in runs)
    counts = ", ".join(
        f"{found[outcome]} {outcome.value}" for outcome in RunOutcome if found[outcome]
    )
    return f"{len(runs)} earlier completed ({counts})"
