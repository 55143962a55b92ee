"""Ray: a run's samples as tasks on a Ray cluster, stored by the process that runs it.

Needs the ``ray`` extra (``pip install 'assay-agents[ray]'``); ``import assay_agents`` never loads
it.
:class:`RayExecutor` is an :class:`assay_agents.evaluation.Executor`: pass it to
``assay.run(..., executor=RayExecutor(address="auto"))``, or run
``assay-agents run SPEC --executor ray --ray-address auto``.
"""

from assay_agents.ray.executor import DEFAULT_RETRIES, RayExecutor, address_error, require_ray

__all__ = ["DEFAULT_RETRIES", "RayExecutor", "address_error", "require_ray"]
