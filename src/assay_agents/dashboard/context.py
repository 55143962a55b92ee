"""What every route of one dashboard shares: its store, its access rules, what it keeps."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, final

from assay_agents.dashboard.security import Access

if TYPE_CHECKING:
    from assay_agents.store import Store


@final
class Dashboard:
    """What every route of one dashboard shares: its store and its access rules."""

    #: How many completed runs' pages are kept laid out.
    REPORTS_KEPT = 32

    def __init__(self, store: Store, access: Access, *, owns_store: bool) -> None:
        self.store = store
        self.access = access
        self._owns_store = owns_store
        #: Completed runs' pages as laid out, by the run asked for and the page of its cases
        #: (they never change).
        self.reports: OrderedDict[tuple[str, int], tuple[Any, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def keep_report(self, key: tuple[str, int], laid_out: tuple[Any, Any]) -> None:
        """Keep a completed run's laid-out report, dropping the oldest past the limit."""
        with self._lock:
            self.reports[key] = laid_out
            while len(self.reports) > self.REPORTS_KEPT:
                self.reports.popitem(last=False)

    def close(self) -> None:
        """Release the store's connections, when the dashboard opened it."""
        if self._owns_store:
            self.store.close()
