"""Where a pytest session keeps the plugin's state (imported by the plugin before anything)."""

from __future__ import annotations

from typing import Any

import pytest

#: The config stash key of the session's ``AssaySession`` (typed loosely: the plugin's
#: module must not load the state's).
STATE = pytest.StashKey[Any]()

#: What the xdist controller tells its workers: the samples go back to it with the reports.
CONTROLLED = "assay_controlled"

#: Set on the xdist controller.
CONTROLLER = pytest.StashKey[bool]()

#: On the xdist controller: the node ids the first worker collected.
IDS = pytest.StashKey[list[str]]()

#: The pytest session (the xdist controller imports a marked test's module through it).
SESSION = pytest.StashKey[pytest.Session]()
