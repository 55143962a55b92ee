"""What an upgrade of a history did, in one line for whoever opened it."""

from __future__ import annotations

from assay_agents.store.revisions import Upgrade
from assay_agents.text import visible


class HistoryUpgraded(UserWarning):
    """Opening a history upgraded its schema (the Python API's way of saying so)."""


def upgraded_note(plan: Upgrade) -> str | None:
    """One line saying a history was upgraded and where its previous file is kept.

    ``None`` for a database created from nothing: that is no upgrade.
    """
    if plan.start is None:
        return None
    said = (
        f"upgraded the history at {visible(plan.database)} from schema revision "
        f"{visible(plan.start)} to {plan.head}"
    )
    if plan.backup is None:
        return said
    return f"{said}; the previous file is backed up at {visible(str(plan.backup))}"
