"""A host application's engine: used as it is, never disposed by the store."""

from sqlalchemy import create_engine, event, text

import assay_agents as assay
from assay_agents.store import Store


def test_a_store_on_a_host_engine_uses_its_pool_and_never_disposes_it(tmp_path):
    url = f"sqlite:///{tmp_path}/host.db"
    Store.open(url, migrate=True).close()
    engine = create_engine(url)
    checkouts = []
    event.listen(engine, "checkout", lambda *args: checkouts.append(1))
    disposed = []
    event.listen(engine, "engine_disposed", lambda *args: disposed.append(1))
    suite = assay.Suite("Host", agent=lambda text, ctx: "ok")
    suite.case("q", checks=[assay.checks.contains("ok")])
    with assay.Store(engine=engine) as store:
        run = assay.run(suite, db=store, progress=False)
        assert store.get_run(run.id).status is assay.RunStatus.COMPLETED
    assert checkouts and not disposed
    with engine.connect() as connection:  # the host's engine still works after close()
        assert connection.execute(text("SELECT count(*) FROM runs")).scalar() == 1
    engine.dispose()
