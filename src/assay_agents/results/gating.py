"""What a run's verdict was decided with, kept in its settings under ``gate``.

The thresholds (:class:`~assay_agents.spec.gate.Gate`), the regression gate and the tolerances the
comparison applied (:class:`~assay_agents.results.settings.RunGate`, read and checked by the record
codec with the rest of the settings): with them a run read back (an archived report brought
into another history) has its comparison and its outcome recomputed from its samples, never
taken as written. Runs stored before it was kept have no ``gate`` setting.
"""

from __future__ import annotations

from assay_agents.results.settings import RunGate

#: The settings key.
GATE_SETTING = "gate"

__all__ = ["GATE_SETTING", "RunGate"]
