"""The OpenAPI schema and the validation agree, field by field: for every field of every
API input (api.views: each view's InputSerializer), a JSON value is accepted by
the field exactly when the schema drf-spectacular generates for it allows the value.

The schema is read as its readers read it: OpenAPI 3.0, JSON Schema draft 4 with
ECMA-262 regular expressions, checked by the validator schemathesis uses (jsonschema-rs).
Values are drawn by hypothesis, with extra weight on what DRF's own fields take and the
schema does not (numbers for text, text for numbers, blanks, NUL, white space of every
kind, integers at and past the bounds); tests/api/test_schemathesis.py does the
same through the live server.

The values are drawn once for the module (``json_examples``) and every field is checked
against all of them: each field still meets 250 of hypothesis's examples. Drawn per field,
the 46 fields were given the very same 250 values under CI's derandomized profile (the same
inner test, so the same seed), and drawing them was about 85 % of the module's CPU: 45 of
46 draws repeated the first. Locally each run still draws new random values.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from rest_framework import serializers
from rest_framework.views import APIView

import jsonschema_rs
import pytest
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api import views
from api.fields import WHITE_SPACE, StrictCharField

FieldKey = tuple[str, str, str]  # (component, field, view)


def _input_fields() -> list[FieldKey]:
    found: list[FieldKey] = []
    for view in vars(views).values():
        if not (isinstance(view, type) and issubclass(view, APIView)):
            continue
        nested = view.__dict__.get("InputSerializer")
        if nested is None:
            continue
        component = f"{view.__name__.removesuffix('Api')}Input"
        for name, field in nested().fields.items():
            if isinstance(field, serializers.FileField):
                continue  # multipart, not JSON: tests/api/test_uploads.py
            found.append((component, name, view.__name__))
    return sorted(found)


INPUT_FIELDS = _input_fields()


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    generator = SchemaGenerator()  # type: ignore[no-untyped-call]
    document = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    assert document["openapi"].startswith("3.0")
    return dict(document)


def _openapi_to_draft4(schema: Any) -> Any:
    """OpenAPI 3.0's ``nullable`` as draft 4 says it."""
    if isinstance(schema, list):
        return [_openapi_to_draft4(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _openapi_to_draft4(value) for key, value in schema.items()}
    if converted.pop("nullable", False):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def _validator(document: dict[str, Any], component: str, name: str) -> Any:
    field_schema = document["components"]["schemas"][component]["properties"][name]
    root = {
        "components": _openapi_to_draft4(copy.deepcopy(document["components"])),
        **_openapi_to_draft4(copy.deepcopy(field_schema)),
    }
    return jsonschema_rs.Draft4Validator(root)


TRICKY_CHARACTERS = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2000\u2028\u3000\ufeff\x00\x01\x7faZé😀"
tricky_text = st.text(alphabet=TRICKY_CHARACTERS, max_size=6)
near_bounds = st.sampled_from([0, 1, 2, -1, 40, 41, 100, 101, 1000, 1001, 2**31, 2**63 - 1, 2**63])
numbers = (
    st.integers()
    | near_bounds
    | st.floats(allow_nan=False, allow_infinity=False)
    | near_bounds.map(float)
    | st.sampled_from([0.1, 0.09999, 3600.0, 3600.5, 36000.0, 1e300])
)
scalars = (
    st.none()
    | st.booleans()
    | numbers
    | st.text(max_size=30)
    | tricky_text
    | numbers.map(str)
    | st.sampled_from(["me", "builtin:greedy", "builtin: x", "me\n", "player", "owner", ""])
    | st.sampled_from(["round_robin", "swiss", "x" * 40, "x" * 41, "x" * 150, "x" * 151])
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=2)
    ),
    max_leaves=4,
)


EXAMPLES = 250
"""How many of hypothesis's examples each field is checked against."""


@pytest.fixture(scope="module")
def json_examples() -> list[Any]:
    """``EXAMPLES`` values drawn by hypothesis from ``json_values`` (under the active
    profile: the same ones every CI run), infinite floats left out (not JSON)."""
    drawn: list[Any] = []

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(value=json_values)
    def draw(value: Any) -> None:
        if not (isinstance(value, float) and math.isinf(value)):
            drawn.append(value)

    draw()
    assert len(drawn) > EXAMPLES // 2, len(drawn)  # hypothesis gave its examples
    return drawn


def _accepted(component: str, name: str, value: Any) -> bool:
    view = next(v for c, n, v in INPUT_FIELDS if (c, n) == (component, name))
    serializer = getattr(views, view).InputSerializer(data={name: value})
    serializer.is_valid()
    return name not in serializer.errors


@pytest.mark.parametrize(("component", "name", "view"), INPUT_FIELDS)
def test_a_field_accepts_exactly_what_its_schema_allows(
    schema: dict[str, Any], json_examples: list[Any], component: str, name: str, view: str
) -> None:
    validator = _validator(schema, component, name)
    disagreements = []
    for value in json_examples:
        allowed = validator.is_valid(value)
        if _accepted(component, name, value) != allowed:
            disagreements.append(
                f"{view}: {name}={value!r}: the schema {'allows' if allowed else 'forbids'} it"
            )
    # Shortest first: the simplest value that shows the disagreement leads.
    assert not disagreements, "\n".join(sorted(disagreements, key=len)[:10])


def test_every_input_field_is_one_whose_schema_says_what_it_accepts() -> None:
    """DRF's own CharField, IntegerField, FloatField and BooleanField coerce what the
    schema forbids (0 into "0", "5" into 5): the inputs use api.fields instead."""
    lenient = (
        serializers.CharField,
        serializers.IntegerField,
        serializers.FloatField,
        serializers.BooleanField,
    )
    found = []
    for _component, name, view in INPUT_FIELDS:
        field = getattr(views, view).InputSerializer().fields[name]
        fields = [field, getattr(field, "child", None)]
        for each in (f for f in fields if f is not None):
            module = type(each).__module__
            if isinstance(each, lenient) and not module.startswith("api.fields"):
                found.append(f"{view}.{name}: {type(each).__name__}")
    assert not found


def test_blank_names_and_white_space_of_every_kind() -> None:
    """The white space the schema's pattern names is what Python strips: a name of only
    such characters is blank for both, and one character more is a name for both."""
    name = StrictCharField(max_length=10)
    for space in [chr(c) for c in range(0x10000) if chr(c).isspace()]:
        with pytest.raises(serializers.ValidationError, match="blank"):
            name.run_validation(space * 2)
        assert name.run_validation(f"{space}a{space}") == "a"
    assert "\\u001c-\\u0020" in WHITE_SPACE  # the separators \s of ECMA-262 leaves out
