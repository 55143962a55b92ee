"""Recorded replay fixtures read back: one JSON file per case, as ``--record`` writes them.

A fixture file holds what :meth:`assay.ApiFixtures.from_mapping` reads (``interactions``,
optionally ``allow_hosts``, ``redact`` and the ``recorded`` stamp). Errors name the file and
the field (``fixtures/track.json: api[0].ignore[1]: ...``).
"""

from __future__ import annotations

import json
from pathlib import Path

from assay_agents.errors import ConfigurationError, SpecError
from assay_agents.limits import MAX_SUITE_FILE_BYTES, read_bounded
from assay_agents.spec import ApiFixtures, Suite
from assay_agents.spec.fixtures import fixture_file


def read_fixture_file(file: str | Path) -> ApiFixtures:
    """The fixtures of one file; ``body_file`` paths in it resolve against its folder."""
    path = Path(file)
    where = str(path)
    try:
        data = json.loads(read_bounded(path, MAX_SUITE_FILE_BYTES, "a fixture file"))
    except SpecError as error:
        raise error.at(where) from None
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise SpecError(f"is not a JSON fixture file: {error}", location=where) from None
    try:
        return ApiFixtures.from_mapping(data, base_dir=path.parent)
    except SpecError as error:
        raise error.at(where) from None


def replaying(suite: Suite, folder: str | Path) -> Suite:
    """``suite`` with each case that declares no fixtures replaying its recorded file.

    Strict: a case without a recorded file is refused, naming the file it needs, rather
    than let it reach the network.
    """
    root = Path(folder)
    if not root.is_dir():
        raise ConfigurationError(f"{root}: is not a folder of recorded fixtures")
    found: dict[str, ApiFixtures] = {}
    missing: list[str] = []
    for case in suite.cases:
        if case.api is not None:
            continue
        file = fixture_file(root, case.id)
        if file.is_file():
            found[case.id] = read_fixture_file(file)
        else:
            missing.append(f"{case.id!r} ({file})")
    if missing:
        raise ConfigurationError(
            f"no recorded fixtures for case(s) {', '.join(missing)}; record them with --record"
        )
    return suite.with_fixtures(found)
