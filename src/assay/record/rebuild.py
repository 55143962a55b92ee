"""What a stored run needs to be graded again: the judge it ran with, built from its spec."""

from __future__ import annotations

from assay.errors import ConfigurationError
from assay.judging.judge import Judge
from assay.results import Run


def rebuilt_judge(run: Run, *, api_key: str | None = None) -> Judge:
    """The judge ``run`` was graded with, built again from the spec its settings keep.

    A run graded by a function judge (code, not a spec), by none, or stored before the spec
    was kept is a :class:`ConfigurationError` naming the run.
    """
    from assay import judges

    spec = run.settings.judge_spec
    if spec is None:
        graded = "no judge" if run.settings.judge is None else f"judge {run.settings.judge!r}"
        raise ConfigurationError(
            f"run {run.id} keeps no judge it can build again (it was graded by {graded})"
        )
    return judges.from_spec(spec, api_key=api_key)
