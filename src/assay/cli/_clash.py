"""Other installed projects that put an ``assay`` package or command where Assay's are.

Several projects on the package index (``assay-ai``, ``assay-it``, ``assay-sdk``,
``assay-server``) install an ``assay`` import package and an ``assay`` command too. In one
environment the one installed last overwrites the other's files, and neither works reliably;
nothing else says so. A distribution claims ``assay`` when its ``top_level.txt`` names it, or
its ``RECORD`` holds files of an ``assay`` package or an ``assay`` script: what
``importlib.metadata.packages_distributions()`` reads, plus the command.

Reading every installed distribution's ``RECORD`` takes as long as the rest of the start-up
(about a second for 180 distributions on a loaded machine), so only ``assay --version`` does.
``assay run`` reads only the distributions whose names begin with ``assay``, as those four do:
a directory listing and a few small files.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from importlib.metadata import Distribution, PathDistribution
from pathlib import Path

#: Assay's own distribution, as the package index names it.
OWN = "assay-agents"
_METADATA_DIRECTORY = (".dist-info", ".egg-info")
_SCRIPT_FOLDERS = ("bin", "Scripts")


def rivals(*, every: bool) -> list[str]:
    """``name version`` of each installed distribution but Assay's that claims ``assay``.

    With ``every`` false only distributions whose names begin with ``assay`` are read.
    """
    found: dict[str, str] = {}
    for project, dist in _distributions(every=every):
        try:
            if project not in found and _claims_assay(dist) and not _is_assays(project, dist):
                found[project] = f"{dist.metadata['Name'] or project} {dist.version}"
        except Exception:  # another project's broken metadata stops no command
            continue
    return sorted(found.values())


def clash_lines(names: list[str]) -> list[str]:
    """What ``assay --version`` says about ``names``: the clash, and what to do about it."""
    return [
        f"warning: {_also_install(names)} an `assay` package or command in this environment;",
        "  two projects' `assay` overwrite or shadow each other's files, and neither works",
        f"  reliably. Install Assay ({OWN}) in an environment of its own (a virtual",
        f"  environment, pipx, uv tool); `{OWN}` is Assay's command under a name no other",
        "  project installs.",
    ]


def warn_of_rivals() -> None:
    """Before a run: one line on standard error when another project claims ``assay``."""
    names = rivals(every=False)
    if names:
        print(
            f"warning: {_also_install(names)} an `assay` package or command here; give Assay "
            f"an environment of its own (see `{OWN} --version`)",
            file=sys.stderr,
        )


def _also_install(names: list[str]) -> str:
    """``assay-ai 1.0 also installs``, ``assay-ai 1.0 and assay-it 2.1 also install``."""
    from assay.text import visible

    shown = [visible(name) for name in names]
    if len(shown) == 1:
        return f"{shown[0]} also installs"
    return f"{', '.join(shown[:-1])} and {shown[-1]} also install"


def _distributions(*, every: bool) -> Iterator[tuple[str, Distribution]]:
    """The installed distributions on ``sys.path``, each with its project's normalised name.

    The name is read from the metadata folder's (``assay_agents-1.0.dist-info``), not from
    the metadata file, which would be parsed for every distribution.
    """
    for entry in sys.path:
        try:
            listed = list(os.scandir(entry or "."))
        except OSError:  # a missing folder, a zip file
            continue
        for item in listed:
            if not item.name.endswith(_METADATA_DIRECTORY):
                continue
            project = _normalized(item.name.rsplit(".", 1)[0].split("-", 1)[0])
            if every or project.startswith("assay"):
                yield project, PathDistribution(Path(item.path))


#: A ``RECORD`` line for a file of a top-level ``assay`` package or module, or the script.
_ASSAY_RECORD = re.compile(
    r"""^(?:"?assay/|"?assay\.py,|.*[/\\](?:bin|Scripts)[/\\]assay(?:\.exe)?"?,)""", re.MULTILINE
)


def _claims_assay(dist: Distribution) -> bool:
    top_level = dist.read_text("top_level.txt") or ""
    if "assay" in top_level.split():
        return True
    record = dist.read_text("RECORD")
    if record is not None:  # searched as text: parsing every line of every RECORD is slow
        return _ASSAY_RECORD.search(record) is not None
    return any(_is_assay_file(file.parts) for file in dist.files or ())


def _is_assay_file(parts: tuple[str, ...]) -> bool:
    """A file of a top-level ``assay`` package or module, or an ``assay`` script."""
    if parts and parts[0] in ("assay", "assay.py"):
        return True
    return len(parts) >= 2 and parts[-2] in _SCRIPT_FOLDERS and parts[-1] in ("assay", "assay.exe")


def _is_assays(project: str, dist: Distribution) -> bool:
    """Whether ``dist`` is Assay: by name, or an editable install of Assay's source folder.

    An editable install made before the distribution took its name is still Assay's; the
    source folder it points to says so.
    """
    if project == OWN:
        return True
    folder = _editable_folder(dist)
    return folder is not None and _project_name(folder / "pyproject.toml") == OWN


def _editable_folder(dist: Distribution) -> Path | None:
    import json
    from urllib.parse import unquote, urlparse

    try:
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return None
    url = direct.get("url") if isinstance(direct, dict) else None
    editable = isinstance(direct, dict) and (direct.get("dir_info") or {}).get("editable")
    if not editable or not isinstance(url, str) or not url.startswith("file://"):
        return None
    return Path(unquote(urlparse(url).path))


def _project_name(pyproject: Path) -> str | None:
    """The ``name`` of the ``[project]`` table, read without a TOML parser.

    A run checks this on every start, and loading ``tomllib`` would cost more than the rest of
    the check; the table's ``name = "..."`` line is all that is needed.
    """
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    table = re.search(r"^\[project\][ \t]*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    found = table and re.search(r"""^name\s*=\s*["']([^"'\n]+)["']""", table[1], re.MULTILINE)
    return _normalized(found[1]) if found else None


def _normalized(name: str) -> str:
    """A distribution's name as the package index compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()
