import pytest

from assay_agents.errors import SpecError
from assay_agents.load import load_items


def test_a_file_with_several_mistakes_names_every_one(tmp_path):
    (tmp_path / "a.toml").write_text(
        'id = "a"\njudge = 3\n[input]\ntxt = "hello"\n[expect]\nforbidd = {commands = ["x"]}\n'
    )
    with pytest.raises(SpecError) as caught:
        load_items(tmp_path)
    message = str(caught.value)
    assert "and 2 more in this file" in message
    for field in (
        "input.txt: unknown field (did you mean 'text'?)",
        "expect.forbidd: unknown field (did you mean 'forbid'?)",
        "judge: ",
    ):
        assert field in message
    assert caught.value.field == "input.txt"
