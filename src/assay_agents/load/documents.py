"""Reading one untrusted TOML file with the loaders' bounds, for readers outside them.

The project configuration (``assay.toml``, ``pyproject.toml``) is read like a suite file:
a regular file of at most :data:`~assay_agents.limits.MAX_SUITE_FILE_BYTES`, nested at most
:data:`MAX_DEPTH` levels, with no dotted key long enough to make the parser quadratic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay_agents.load._documents import MAX_DEPTH, parse_toml, read_text

__all__ = ["MAX_DEPTH", "read_toml"]


def read_toml(path: Path) -> Any:
    """The TOML document in ``path``; a :class:`~assay_agents.errors.SpecError` naming the file."""
    return parse_toml(read_text(path), str(path))
