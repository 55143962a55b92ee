import shutil
from pathlib import Path

import pytest

from assay_agents.errors import SpecError
from assay_agents.load.paths import Source, kind_of, load_path

TRIP = Path(__file__).resolve().parents[2] / "examples" / "trip" / "items"


@pytest.mark.parametrize("name", ["set_name.toml", "confirm_rebooking.json"])
def test_one_item_file_is_a_suite_of_that_item_with_its_folders_settings(name):
    path = TRIP / name
    assert kind_of(path) == "item"
    suite = load_path(path, Source(imports=False))
    whole = load_path(TRIP, Source(imports=False))
    (case,) = suite.cases
    assert case.id in {c.id for c in whole.cases}
    assert suite.name == whole.name and suite.samples == whole.samples


def test_suite_toml_stands_for_its_folder():
    assert len(load_path(TRIP / "suite.toml", Source(imports=False)).cases) == len(
        load_path(TRIP, Source(imports=False)).cases
    )


def test_an_item_outside_a_suite_folder_is_refused_by_name(tmp_path):
    shutil.copy(TRIP / "set_name.toml", tmp_path / "lonely.toml")
    with pytest.raises(SpecError) as caught:
        load_path(tmp_path / "lonely.toml", Source(imports=False))
    assert str(tmp_path) in str(caught.value)
