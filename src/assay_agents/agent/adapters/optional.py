"""Optional client packages: importing LiteLLM offline, and refusing early when one is missing."""

from __future__ import annotations

import os
from types import ModuleType

from assay_agents.errors import ConfigurationError


def import_litellm() -> ModuleType:
    """Import ``litellm`` with its bundled price map (it would otherwise fetch one at import)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise ConfigurationError(
            "LiteLLM support needs: pip install 'assay-agents[litellm]'"
        ) from None
    # Its "Give Feedback / Get Help" banner on every failed call would bury the progress bar.
    litellm.suppress_debug_info = True
    return litellm


def require(module: str, extra: str) -> None:
    """Refuse early, with the install command, when an optional client is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ConfigurationError(
            f"this needs the {module} package: pip install 'assay-agents[{extra}]'"
        )
