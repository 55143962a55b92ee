"""One local Ray cluster (two CPUs) for every test of the package, started once.

Starting Ray is most of what these tests cost; the tests share an xdist group, so that two
test workers never start a cluster each.
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator

import pytest

ray = pytest.importorskip("ray")


@pytest.fixture(scope="package")
def cluster() -> Iterator[str]:
    """The cluster's address, for a process of its own to connect to."""
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        with warnings.catch_warnings():
            # Ray's own handles on the processes it stopped: collected here, not in a test.
            warnings.simplefilter("ignore", ResourceWarning)
            gc.collect()
