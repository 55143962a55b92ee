"""A catalog's product as one suite, its groups being the product's sets."""

import pytest

import assay_agents as assay
from assay_agents.load import Catalog

CATALOG = """\
catalog: support_desk
products:
  - key: triage
    agent: TriageAgent
    sets:
      - key: smoke
        criteria: [tone]
        scenarios:
          - key: refund_request
            prompt: A customer asks for a refund on order 1042.
            expect: {tools: [lookup_order]}
      - key: production
        scenarios:
          - key: open_tickets
            prompt: Which open tickets mention a refund?
            production_only: true
          - key: closed_tickets
            prompt: Which tickets were closed today?
  - key: billing
    sets:
      - key: smoke
        scenarios:
          - key: invoice_copy
            prompt: Send me a copy of my last invoice.
"""


@pytest.fixture
def catalog(tmp_path):
    path = tmp_path / "support_desk.yml"
    path.write_text(CATALOG)
    return Catalog.load(path)


def test_suite_for_a_product_alone_is_the_products_suite_grouped_by_set(catalog):
    suite = catalog.suite_for("triage", agent=lambda text, ctx: "ok")
    assert suite.name == "support_desk/triage" and suite.agent_name == "TriageAgent"
    assert [(c.id, c.group) for c in suite.cases] == [
        ("refund_request", "smoke"),
        ("open_tickets", "production"),
        ("closed_tickets", "production"),
    ]
    # Each set's criteria stay with its own scenarios.
    assert [c.criteria for c in suite.cases] == [("tone",), (), ()]
    assert suite.cases[1].production_only


def test_a_product_of_one_set_is_its_suite_too(catalog):
    suite = catalog.suite_for("billing")
    assert suite.name == "support_desk/billing"
    assert [(c.id, c.group) for c in suite.cases] == [("invoice_copy", "smoke")]


def test_a_set_key_alone_still_finds_its_set_when_no_product_has_that_key(catalog):
    assert catalog.suite_for("production").name == "support_desk/triage/production"


def test_a_key_two_sets_of_a_product_share_is_refused_naming_both(tmp_path):
    path = tmp_path / "desk.yml"
    path.write_text(CATALOG.replace("key: closed_tickets", "key: refund_request"))
    with pytest.raises(assay.SpecError, match=r"refund_request.*sets smoke and production"):
        Catalog.load(path).suite_for("triage")
