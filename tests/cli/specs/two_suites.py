import assay_agents as assay
from assay_agents import checks

first = assay.Suite("First", agent=lambda text, ctx: text, checks=[checks.min_length(1)])
first.case("a")
second = assay.Suite("Second", agent=lambda text, ctx: text, checks=[checks.min_length(1)])
second.case("b")
