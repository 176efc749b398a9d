"""``.. volperf-spec::``: the campaign spec reference, generated at every build from the
JSON Schema of the pydantic models that check specs (what `volperf spec schema` prints):
one table per model, each field with its type, default, constraints and description."""

from __future__ import annotations

import json
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

CONSTRAINTS = {
    "minimum": "≥ {}",
    "exclusiveMinimum": "> {}",
    "maximum": "≤ {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "minItems": "at least {} items",
    "maxItems": "at most {} items",
    "pattern": "matches ``{}``",
}


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"`{name}`_"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_type(option) for option in schema[key])
    if "const" in schema:
        return f"``{json.dumps(schema['const'])}``"
    if "enum" in schema:
        return "one of " + ", ".join(f"``{json.dumps(v)}``" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    values = schema.get("additionalProperties")
    if kind == "object" and isinstance(values, dict):
        return f"mapping to {_type(values)}"
    return str(kind).replace("null", "none")


def _constraints(schema: dict[str, Any]) -> str:
    found = [text.format(schema[key]) for key, text in CONSTRAINTS.items() if key in schema]
    for option in schema.get("anyOf", []) + schema.get("oneOf", []):
        if _constraints(option):
            found.append(_constraints(option))
    if isinstance(schema.get("items"), dict) and _constraints(schema["items"]):
        found.append("each " + _constraints(schema["items"]))
    return "; ".join(found)


def _cell(text: str) -> str:
    return " ".join(text.split()) or " "


def model_table(name: str, model: dict[str, Any]) -> list[str]:
    """RST of one model: a heading, its description and a table of its fields."""
    lines = [name, "~" * len(name), ""]
    if model.get("description"):
        lines += [" ".join(model["description"].split()), ""]
    required = set(model.get("required", []))
    lines += [".. list-table::", "   :header-rows: 1", "   :widths: 18 22 12 20 28", ""]
    lines += [f"   * - {h}" if i == 0 else f"     - {h}" for i, h in enumerate(HEADER)]
    for field, schema in model.get("properties", {}).items():
        default = "required" if field in required else ""
        if "default" in schema:
            default = f"``{json.dumps(schema['default'])}``"
        row = [f"``{field}``", _type(schema), default, _constraints(schema)]
        row.append(schema.get("description", ""))
        lines += [
            f"   * - {_cell(c)}" if i == 0 else f"     - {_cell(c)}" for i, c in enumerate(row)
        ]
    return [*lines, ""]


HEADER = ["field", "type", "default", "constraints", "description"]


class SpecReference(SphinxDirective):
    """Every model of the campaign spec, the spec itself first."""

    def run(self) -> list[nodes.Node]:
        from harness.core.spec import CampaignSpec

        schema = CampaignSpec.model_json_schema()
        lines = model_table("CampaignSpec", schema)
        for name, model in schema.get("$defs", {}).items():
            lines += model_table(name, model)
        container = nodes.section()
        nested_parse_with_titles(self.state, StringList(lines, "volperf-spec"), container)
        return container.children


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("volperf-spec", SpecReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
