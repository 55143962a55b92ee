import importlib.util

import pytest

from assay_agents.errors import ConfigurationError
from assay_agents.store import Store


@pytest.mark.parametrize(
    "url", ["mysql://ann:secret@db/assay", "foo://x", "postgresql+asyncpg://ann@db/assay"]
)
def test_an_unsupported_scheme_names_the_supported_ones(url):
    with pytest.raises(ConfigurationError) as caught:
        Store.open(url)
    message = str(caught.value)
    assert "unsupported URL scheme" in message and "sqlite:///" in message
    assert "postgresql://" in message and "secret" not in message


def test_a_missing_postgres_driver_names_its_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "psycopg" else real(name, *args),
    )
    with pytest.raises(ConfigurationError, match=r"pip install 'assay-agents\[postgres\]'"):
        Store.open("postgresql://ann@127.0.0.1:1/assay")
