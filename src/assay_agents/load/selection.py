"""Choosing the cases of a suite to run: by group, by id, and production-only or not."""

from __future__ import annotations

from collections.abc import Iterable

from assay_agents.errors import SpecError
from assay_agents.spec import Case, Suite
from assay_agents.text import suggestion


def select(
    suite: Suite,
    *,
    groups: Iterable[str] | None = None,
    cases: Iterable[str] | None = None,
    include_production_only: bool = True,
) -> Suite:
    """The suite with only the chosen cases; naming an unknown group or case is an error.

    ``groups`` keeps cases of those groups, ``cases`` keeps those ids (both may be given:
    a case must satisfy both), and ``include_production_only=False`` drops cases that need
    production data. A selection that keeps nothing is an error, never an empty run.
    """
    if not suite.cases and (groups is not None or cases is not None or not include_production_only):
        # Nothing was selected away: there was nothing to select from.
        raise SpecError("the suite defines no cases; add at least one", location=suite.name)
    wanted_groups = _known(groups, {c.group for c in suite.cases if c.group}, "group", suite.name)
    wanted_cases = _known(cases, {c.id for c in suite.cases}, "case", suite.name)
    if wanted_groups is None and wanted_cases is None and include_production_only:
        return suite

    def keep(case: Case) -> bool:
        return (
            (wanted_groups is None or case.group in wanted_groups)
            and (wanted_cases is None or case.id in wanted_cases)
            and (include_production_only or not case.production_only)
        )

    chosen = suite.subset(keep)
    if not chosen.cases:
        raise SpecError(
            "the selection holds no case (check --group, --case and --include-production-only)",
            location=suite.name,
        )
    return chosen


def _known(
    names: Iterable[str] | None, available: set[str], kind: str, suite: str
) -> set[str] | None:
    if names is None:
        return None
    wanted = set(names)
    for name in sorted(wanted - available):
        shown = sorted(available)
        # A suite may hold thousands of cases: name a few, and the near one.
        listed = (
            ", ".join(shown[:10]) + (f", … ({len(shown)} in all)" if len(shown) > 10 else "")
            if shown
            else "none"
        )
        raise SpecError(
            f"no {kind} {name!r}{suggestion(name, available)} (available: {listed})",
            location=suite,
            field=kind,
        )
    return wanted or None
