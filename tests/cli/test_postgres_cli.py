"""The command line against a real PostgreSQL server, selected by --db or the environment."""

import pytest

pytestmark = pytest.mark.postgres


def test_unmigrated_database_exits_2_then_migrate_and_run(cli, support_spec, postgres_url):
    refused = cli("run", support_spec, "--db", postgres_url)
    assert refused.returncode == 2 and "assay-agents db migrate" in refused.stderr

    migrated = cli("db", "migrate", "--db", postgres_url)
    assert migrated.returncode == 0, migrated.stderr
    assert cli("db", "migrate", "--db", postgres_url).returncode == 0  # idempotent

    env = {"ASSAY_DATABASE_URL": postgres_url}
    assert cli("run", support_spec, env=env).returncode == 0
    regressed = cli(
        "run", support_spec, "--fail-on-regression", env={**env, "AGENT_REVISION": "regressed"}
    )
    assert regressed.returncode == 1 and "2 regression(s)" in regressed.stdout
    report = cli.json_report(env=env)
    assert report["summary"]["passed"] == 2
    assert not (cli.cwd / ".assay").exists()  # nothing went to the SQLite default
