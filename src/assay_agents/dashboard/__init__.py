"""A read-only dashboard over the history: runs, trends, cases, comparisons and downloads.

:func:`create_app` returns a Starlette application that mounts under any prefix of a
Starlette or FastAPI application; ``assay-agents dashboard`` serves it with uvicorn. It needs the
``assay-agents[dashboard]`` extra; ``import assay_agents`` never loads it.

>>> app = create_app("sqlite:///.assay/assay.db")  # doctest: +SKIP
>>> host.mount("/evals", app)  # doctest: +SKIP
"""

from assay_agents.dashboard.app import create_app
from assay_agents.dashboard.context import Dashboard

__all__ = ["Dashboard", "create_app"]
