"""Where a pytest session keeps the plugin's state (imported by the plugin before anything)."""

from __future__ import annotations

from typing import Any

import pytest

#: The config stash key of the session's ``AssaySession`` (typed loosely: the plugin's
#: module must not load the state's).
STATE = pytest.StashKey[Any]()
