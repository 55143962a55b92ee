"""Which folders a search upwards may read: only those no other user could have written into.

Assay looks for its configuration and its ``.assay/`` history from the working directory
upwards, the way git finds ``.git``. A parent shared with other users (``/tmp``, a team's
scratch space) could hold an ``assay.toml`` or a ``.assay/`` that someone else planted: a
gate that passes every run, a history that decides the baselines. Like git's
``safe.directory``, the search stops at the first folder that

* another user owns (root's own folders, such as ``/`` and ``/home``, are trusted), or
* any user may write into: world-writable, the sticky bit included (``/tmp`` is never
  trusted, since anyone may create a file there that its owner alone may remove).

What would have been found past that point is named on standard error, once per process.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["distrust", "trusted_folders"]

_warned: set[Path] = set()


def distrust(folder: Path) -> str | None:
    """Why ``folder`` may hold what another user put there, or ``None`` when it may not."""
    try:
        status = folder.stat()
    except OSError:
        return None  # a folder that cannot be read holds nothing that will be read
    if status.st_mode & stat.S_IWOTH:
        return "is world-writable"
    owner = status.st_uid
    me = os.geteuid() if hasattr(os, "geteuid") else owner
    if owner not in (me, 0):
        return f"is owned by another user (uid {owner})"
    return None


def trusted_folders(start: Path, planted: Callable[[Path], Path | None]) -> Iterator[Path]:
    """``start`` and its parents, up to the first folder :func:`distrust` refuses.

    ``planted`` tells what a folder holds that the search would have used; when the search
    stops, the first such thing in the refused folder or above is named on standard error.
    """
    for folder in (start, *start.parents):
        reason = distrust(folder)
        if reason is not None:
            _warn(folder, reason, planted)
            return
        yield folder


def _warn(refused: Path, reason: str, planted: Callable[[Path], Path | None]) -> None:
    for folder in (refused, *refused.parents):
        found = planted(folder)
        if found is not None:
            break
    else:
        return
    if found in _warned:
        return
    _warned.add(found)
    from assay_agents.text import visible

    print(
        visible(
            f"warning: ignoring {found}: {refused} {reason}, so another user could "
            "have put it there (the search upwards stops below such a folder)"
        ),
        file=sys.stderr,
    )
