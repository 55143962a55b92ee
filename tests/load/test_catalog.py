import textwrap

import pytest
import yaml

import assay_agents as assay
from assay_agents.load import Catalog

CATALOG = """\
catalog: support_desk
name: Support Desk
description: What the support agents are expected to handle
owner_team: support-platform
products:
  - key: triage
    name: Triage agent
    agent: TriageAgent
    repository: acme/triage
    sets:
      - key: smoke
        name: Smoke
        judge:
          kind: rules
        criteria: [tone]
        cadence: nightly
        scenarios:
          - key: refund_request
            prompt: A customer asks for a refund on order 1042.
            expect:
              tools: [lookup_order]
              contains: [refund]
            notes: Looks the order up before answering.
            tags: [billing]
            params:
              locale: en
      - key: production
        name: Production data
        scenarios:
          - key: open_tickets
            prompt: Which open tickets mention a refund?
            production_only: true
  - key: billing
    name: Billing agent
    sets:
      - key: smoke
        scenarios:
          - key: invoice_copy
            prompt: Send me a copy of my last invoice.
            expect:
              tools: [send_invoice]
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def catalog(tmp_path):
    return Catalog.load(write(tmp_path, "support_desk.yml", CATALOG))


def test_products_sets_and_scenarios(catalog):
    assert [product.key for product in catalog.products] == ["triage", "billing"]
    assert len(catalog.set("triage", "smoke").scenarios) == 1
    assert [s.key for s in catalog.scenarios(product="triage")] == [
        "refund_request",
        "open_tickets",
    ]
    assert [s.key for s in catalog.scenarios(product="triage", include_production_only=False)] == [
        "refund_request"
    ]
    with pytest.raises(assay.SpecError, match=r"no product 'triag' \(did you mean 'triage'"):
        catalog.product("triag")
    with pytest.raises(assay.SpecError, match="has no set 'nightly'"):
        catalog.set("triage", "nightly")


def test_unknown_keys_are_kept_as_metadata_where_they_sit(catalog):
    assert catalog.metadata == {"owner_team": "support-platform"}
    assert catalog.product("triage").metadata == {"repository": "acme/triage"}
    assert catalog.set("triage", "smoke").metadata == {"cadence": "nightly"}


def test_suite_for_runs_a_set_against_the_products_agent(catalog):
    suite = catalog.suite_for("triage", "smoke", agent=lambda text, ctx: "refund")
    assert suite.name == "support_desk/triage/smoke" and suite.agent_name == "TriageAgent"
    assert suite.criteria == ("tone",)
    case = suite.cases[0]
    assert (case.id, case.group, case.tags, case.params, case.notes) == (
        "refund_request",
        "smoke",
        ("billing",),
        {"locale": "en"},
        "Looks the order up before answering.",
    )
    unnamed = catalog.suite_for("billing", "smoke")
    assert isinstance(unnamed.agent, assay.load.entry.MissingAgent)


def test_to_yaml_is_canonical_and_the_digest_is_its_hash(catalog, tmp_path):
    text = catalog.to_yaml()
    document = yaml.safe_load(text)
    assert list(document) == ["catalog", "name", "description", "owner_team", "products"]
    assert list(document["products"][0]) == ["key", "name", "agent", "repository", "sets"]
    scenario = document["products"][0]["sets"][0]["scenarios"][0]
    assert list(scenario) == ["key", "prompt", "expect", "notes", "tags", "params"]
    assert "production_only" not in scenario  # empty values dropped
    # The canonical document reloads to the same catalog, and the digest follows the text.
    again = Catalog.load(write(tmp_path, "again.yml", text))
    assert again.to_yaml() == text and again.digest() == catalog.digest()
    import hashlib

    assert catalog.digest() == hashlib.sha256(text.encode()).hexdigest()
    reordered = CATALOG.replace("name: Support Desk\n", "").replace(
        "catalog: support_desk\n", "catalog: support_desk\nname: Support Desk\n"
    )
    assert Catalog.load(write(tmp_path, "same.yml", reordered)).digest() == catalog.digest()
    edited = CATALOG.replace("order 1042", "order 1043")
    assert Catalog.load(write(tmp_path, "edited.yml", edited)).digest() != catalog.digest()


def test_later_catalogs_layer_by_key(tmp_path):
    local = """\
    catalog: support_desk
    products:
      - key: triage
        sets:
          - key: smoke
            scenarios:
              - key: refund_request
                prompt: A customer asks for a refund on order 7.
              - key: escalation
                prompt: The customer wants a manager.
      - key: search
        sets:
          - key: smoke
            scenarios:
              - key: find
                prompt: Find order 7
    """
    merged = Catalog.load(write(tmp_path, "a.yml", CATALOG), write(tmp_path, "b.yml", local))
    assert [p.key for p in merged.products] == ["triage", "billing", "search"]
    smoke = merged.set("triage", "smoke")
    assert smoke.name == "Smoke" and smoke.criteria == ("tone",)  # kept where not set
    assert [(s.key, s.prompt) for s in smoke.scenarios] == [
        ("refund_request", "A customer asks for a refund on order 7."),
        ("escalation", "The customer wants a manager."),
    ]
    assert merged.product("triage").metadata == {"repository": "acme/triage"}


def test_a_suite_document_loads_as_a_catalog_of_one_product(tmp_path):
    suite_doc = """\
    suite: support_bot
    groups:
      - key: orders
        name: Orders
        scenarios:
          - key: orders_1
            prompt: Where is my order?
    """
    catalog = Catalog.load(write(tmp_path, "suite.yml", suite_doc))
    assert [p.key for p in catalog.products] == ["support_bot"]
    assert catalog.set("support_bot", "orders").name == "Orders"
    assert catalog.suite_for("support_bot", "orders").cases[0].id == "orders_1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            CATALOG.replace("prompt: Send me", "promt: Send me"),
            "products[1].sets[0].scenarios[0].promt: unknown field (did you mean 'prompt'?)",
        ),
        (CATALOG.replace("key: billing", "key: triage"), "products[1].key: duplicate key"),
        (
            CATALOG.replace("criteria: [tone]", "criteria: [tones]"),
            "products[0].sets[0].criteria[0]: 'tones' is not allowed",
        ),
        ("products: []\n", "bad.yml: catalog: required field is missing"),
        ("owner: x\n", "is neither a catalog"),
    ],
)
def test_bad_catalogs(tmp_path, text, message):
    with pytest.raises(assay.SpecError) as caught:
        Catalog.load(write(tmp_path, "bad.yml", text))
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "field", "near"),
    [
        (
            CATALOG.replace(
                "        scenarios:\n          - key: invoice_copy",
                "        scenario:\n          - key: invoice_copy",
            ),
            "products[1].sets[0].scenario",
            "scenarios",
        ),
        (
            CATALOG.replace("    agent: TriageAgent", "    agnet: TriageAgent"),
            "products[0].agnet",
            "agent",
        ),
        (CATALOG.replace("products:", "Products:"), "Products", "products"),
        (
            CATALOG.replace("        criteria: [tone]", "        criterias: [tone]"),
            "products[0].sets[0].criterias",
            "criteria",
        ),
        (
            CATALOG.replace("        name: Smoke", "        nmae: Smoke"),
            "products[0].sets[0].nmae",
            "name",
        ),
    ],
)
def test_a_key_near_a_defined_one_is_a_misspelling_not_metadata(tmp_path, text, field, near):
    with pytest.raises(assay.SpecError) as caught:
        Catalog.load(write(tmp_path, "typo.yml", text))
    assert caught.value.field == field
    assert f"unknown field (did you mean {near!r}?)" in str(caught.value)


def test_metadata_keys_far_from_defined_ones_are_kept(tmp_path):
    text = CATALOG.replace(
        "owner_team: support-platform",
        "owner_team: support-platform\nbudget: 10\ntags: [x]\nteam: y\nnotes: z",
    )
    assert Catalog.load(write(tmp_path, "meta.yml", text)).metadata == {
        "owner_team": "support-platform",
        "budget": 10,
        "tags": ["x"],
        "team": "y",
        "notes": "z",
    }


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        (
            CATALOG.replace(
                "        scenarios:\n          - key: invoice_copy\n            "
                "prompt: Send me a copy of my last invoice.\n            expect:\n"
                "              tools: [send_invoice]\n",
                "        cadence: nightly\n",
            ),
            "products[1].sets[0].scenarios",
            "set 'smoke' of product 'billing' has no scenarios",
        ),
        (
            CATALOG.replace(
                "    sets:\n      - key: smoke\n        scenarios:\n          - key: invoice_copy",
                "    owner: x\n    other:\n      - key: smoke\n"
                "        scenarios:\n          - key: invoice_copy",
            ),
            "products[1].sets",
            "product 'billing' has no sets",
        ),
    ],
)
def test_a_set_or_product_without_scenarios_is_an_error(tmp_path, text, field, message):
    with pytest.raises(assay.SpecError) as caught:
        Catalog.load(write(tmp_path, "empty.yml", text))
    assert caught.value.field == field and message in str(caught.value)


def test_a_layer_may_leave_scenarios_to_the_catalog_under_it(tmp_path):
    local = """\
    catalog: support_desk
    products:
      - key: billing
        owner_team: billing-team
        sets:
          - key: smoke
            cadence: weekly
    """
    merged = Catalog.load(write(tmp_path, "a.yml", CATALOG), write(tmp_path, "b.yml", local))
    assert merged.set("billing", "smoke").metadata == {"cadence": "weekly"}
    assert len(merged.set("billing", "smoke").scenarios) == 1
    with pytest.raises(assay.SpecError, match=r"b\.yml: products\[0\]\.sets\[0\]\.scenarios"):
        Catalog.load(write(tmp_path, "b.yml", local))


def test_suite_for_finds_a_set_by_its_key_alone_when_it_is_unique(catalog):
    assert catalog.suite_for("production").name == "support_desk/triage/production"
    with pytest.raises(
        assay.SpecError,
        match=r"'smoke' names several sets \(triage/smoke, "
        r"billing/smoke\); name the product and the set",
    ):
        catalog.suite_for("smoke")
    with pytest.raises(
        assay.SpecError,
        match=r"no set 'produktion' \(did you mean "
        r"'production'\?\)",
    ):
        catalog.suite_for("produktion")


def test_a_suite_document_is_a_product_whose_groups_are_its_sets(tmp_path):
    suite_text = (
        "suite: triage\ngroups:\n  - key: smoke\n    scenarios:\n"
        "      - key: refund\n        prompt: Refund order 1042\n"
    )
    catalog = Catalog.load(write(tmp_path, "triage.yml", suite_text))
    # The product's suite, whose one group is the set.
    suite = catalog.suite_for("triage")
    assert suite.name == "triage/triage" and [c.group for c in suite.cases] == ["smoke"]
    assert catalog.suite_for("triage", "smoke").name == "triage/triage/smoke"


def test_a_later_document_without_its_own_name_layers_over_the_first(tmp_path):
    overlay = (
        "products:\n  - key: billing\n    sets:\n      - key: smoke\n        scenarios:\n"
        "          - key: refund_copy\n            prompt: Send me my refund receipt.\n"
    )
    catalog = Catalog.load(
        write(tmp_path, "support_desk.yml", CATALOG), write(tmp_path, "local.yml", overlay)
    )
    assert catalog.key == "support_desk"
    assert [s.key for s in catalog.set("billing", "smoke").scenarios] == [
        "invoice_copy",
        "refund_copy",
    ]
    suite_text = (
        "suite: triage\ngroups:\n  - key: smoke\n    scenarios:\n"
        "      - key: refund\n        prompt: Refund order 1042\n"
    )
    later = "groups:\n  - key: smoke\n    scenarios:\n      - key: refund\n        prompt: Refund\n"
    layered = Catalog.load(
        write(tmp_path, "triage.yml", suite_text), write(tmp_path, "triage_local.yml", later)
    )
    assert [s.prompt for s in layered.scenarios()] == ["Refund"]
    with pytest.raises(assay.SpecError, match="groups layer over a suite"):
        Catalog.load(
            write(tmp_path, "support_desk.yml", CATALOG), write(tmp_path, "triage_local.yml", later)
        )
