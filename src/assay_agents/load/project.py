"""The project a suite belongs to: its root, its importable modules, and its defaults.

A project's configuration (``[tool.assay]`` in ``pyproject.toml``, or ``assay.toml``; see
:mod:`assay_agents.load.config`) fills what a suite leaves unset: its judge, its concurrency and its
gate. :func:`configured` is the one place that does it, for a suite opened from a file
(:func:`assay_agents.load.open_suite`) and for one a program built (:func:`assay.run`), so that a
library call and ``assay-agents run`` on the same project run with the same settings.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from assay_agents.errors import SpecError

if TYPE_CHECKING:
    from assay_agents.load.config import ProjectConfig
    from assay_agents.spec import Suite
    from assay_agents.spec.gate import Gate


def project_config() -> ProjectConfig:
    """The nearest project configuration (``[tool.assay]`` or ``assay.toml``) upwards."""
    from assay_agents.load.config import find_config

    return find_config()


def configured(suite: Suite, config: ProjectConfig | None = None) -> Suite:
    """``suite`` with the project's defaults where it sets none: judge, concurrency, gate.

    The suite given is not changed: a copy carries the defaults. ``config`` is the nearest
    project configuration when not given. A suite's own setting always wins; an argument
    of the run (``judge=``, ``concurrency=``, ``gate=``) wins over both.
    """
    found = project_config() if config is None else config
    judge = suite.judge if suite.judge is not None else project_judge(found)
    concurrency = suite.concurrency or found.concurrency
    gate = suite.gate or config_gate(found)
    adaptive = _adaptive(suite, found)
    if (judge, concurrency, gate) == (suite.judge, suite.concurrency, suite.gate) and (
        adaptive == _adaptive(suite, None)
    ):
        return suite
    made = copy.copy(suite)
    made.judge, made.concurrency, made.gate = judge, concurrency, gate
    made.concurrency_floor, made.concurrency_ceiling, made.rate_limit_retries = adaptive
    return made


def _adaptive(
    suite: Suite, config: ProjectConfig | None
) -> tuple[int | None, int | None, int | None]:
    """The suite's floor, ceiling and rate-limit retries, the configuration's where unset."""
    names = ("concurrency_floor", "concurrency_ceiling", "rate_limit_retries")
    own = [getattr(suite, name, None) for name in names]
    given = [None if config is None else getattr(config, name) for name in names]
    floor, ceiling, retries = (
        mine if mine is not None else theirs for mine, theirs in zip(own, given, strict=True)
    )
    return floor, ceiling, retries


def project_judge(config: ProjectConfig) -> object | None:
    """The judge the configuration names (``judge``, at ``judge_base_url``), if any."""
    if config.judge is None:
        return None
    from assay_agents import judges

    if config.judge.strip().lower() == "auto" and config.judge_base_url is None:
        # Unpinned: the first configured provider, or none (judge criteria are skipped).
        return judges.route(None)
    return judges.named(config.judge, base_url=config.judge_base_url)


def config_gate(config: ProjectConfig) -> Gate | None:
    """The gate a project configuration sets, if any."""
    if not config.gate:
        return None
    from assay_agents.spec.gate import Gate

    field = "gate" if config.path is None or config.path.name == "assay.toml" else "tool.assay.gate"
    try:
        return Gate.from_mapping(config.gate, field=field)
    except SpecError as error:
        raise error.at(str(config.path)) from None


def project_root() -> Path:
    """The project's root: where its configuration or ``.assay/`` history is, else here."""
    from assay_agents.load.history import discover as find_history

    config = project_config()
    if config.root is not None:
        return config.root
    history = find_history()
    return history.parent.parent if history is not None else Path.cwd().resolve()


def importable_project() -> Path:
    """Put the project root first on ``sys.path``, as pytest does its rootdir, and return it.

    A suite or an agent can then import the project's own modules (``from myapp.agents
    import support``) wherever the suite file sits, and entry points are named from the root.
    """
    root = str(project_root())
    if root in sys.path:
        sys.path.remove(root)
    sys.path.insert(0, root)
    return Path(root)
