"""Tests on a local Ray cluster, one for the package (see conftest.py)."""
