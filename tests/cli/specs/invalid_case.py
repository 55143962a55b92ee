import assay_agents as assay

suite = assay.Suite("Broken", agent=lambda text, ctx: text)
suite.case("fine")
suite.case("bad threshold", minimum_scores={"semantic_accuracy": 1.5})
