"""``manage.py spectacular --validate --fail-on-warn`` passes: the schema is valid OpenAPI,
and drf-spectacular warns of nothing (no two components of one name, such as the profile
chart's rating points and a tournament's, where one silently described the other; no
enum named by a hash because several choice sets share a field name)."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command

import yaml


def test_the_schema_validates_without_a_warning(tmp_path: Path) -> None:
    schema = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(schema))
    components = yaml.safe_load(schema.read_text())["components"]["schemas"]
    assert {"PersonRatingPoint", "RatingPoint", "BotKindEnum", "SeatKindEnum"} <= set(components)
    assert set(components["RatingPoint"]["properties"]) >= {"competitor", "match", "round"}
    assert not [name for name in components if name.startswith("Kind")]
