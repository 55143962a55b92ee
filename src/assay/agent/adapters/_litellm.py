"""Importing LiteLLM without it reaching for the network."""

from __future__ import annotations

import os
from types import ModuleType

from assay.errors import ConfigurationError


def import_litellm() -> ModuleType:
    """Import ``litellm`` with its bundled price map (it would otherwise fetch one at import)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise ConfigurationError("LiteLLM support needs: pip install 'assay[litellm]'") from None
    # Its "Give Feedback / Get Help" banner on every failed call would bury the progress bar.
    litellm.suppress_debug_info = True
    return litellm
