"""Writes to stdout the Python side of the protocol: ``TypedDict``s of what
the runner sends (``RunResult``, ``CheckReport``, ``Completions`` and the
types they hold), from tests/fixtures/protocol.schema.json, which is
generated from the Rust types. `make schema` saves the output as
tests/python/wire.py, where pytest checks the runner's answers against it
(and fails when the saved file is stale).

    python3 scripts/protocol-python.py
"""

import json
import keyword
import pathlib
import sys

SCHEMA = pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "protocol.schema.json"
#: What the runner hands the worker: these and every type they hold.
ROOTS = ("RunResult", "CheckReport", "Completions")
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


class Writer:
    """Python declarations of the schema's types reachable from ``ROOTS``,
    each written once, after the types it names."""

    def __init__(self, definitions: dict):
        self.definitions = definitions
        self.written: set[str] = set()
        self.blocks: list[str] = []

    def type_of(self, schema: dict) -> str:
        """The annotation for a value of ``schema``."""
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            self.define(name)
            return name
        for key in ("anyOf", "oneOf"):
            if key in schema:
                consts = [choice["const"] for choice in schema[key] if "const" in choice]
                others = [self.type_of(choice) for choice in schema[key] if "const" not in choice]
                literal = [f"Literal[{', '.join(json.dumps(const) for const in consts)}]"] if consts else []
                return " | ".join(dict.fromkeys(literal + others))
        if "const" in schema:
            return f"Literal[{json.dumps(schema['const'])}]"
        kinds = schema.get("type")
        if kinds is None:
            return "Any"
        if isinstance(kinds, list):
            return " | ".join(self.type_of(schema | {"type": kind}) for kind in kinds)
        if kinds == "array":
            return f"list[{self.type_of(schema.get('items', {}))}]"
        if kinds == "object":
            extra = schema.get("additionalProperties")
            return f"dict[str, {self.type_of(extra) if isinstance(extra, dict) else 'Any'}]"
        return _SCALARS[kinds]

    def define(self, name: str, schema: "dict | None" = None) -> None:
        if name in self.written:
            return
        self.written.add(name)
        schema = self.definitions[name] if schema is None else schema
        doc = schema.get("description", "").strip().replace("\\", "\\\\").replace('"""', "'''").replace("\n", "\n    ")
        if "properties" not in schema:
            self.blocks.append(f"#: {doc.splitlines()[0] if doc else name}\n{name} = {self.type_of(schema)}\n")
            return
        required = set(schema.get("required", []))
        fields = []
        for field, item in schema["properties"].items():
            annotation = self.type_of(item)
            fields.append((field, annotation if field in required else f"NotRequired[{annotation}]"))
        if all(field.isidentifier() and not keyword.iskeyword(field) for field, _ in fields):
            body = "\n".join(f"    {field}: {annotation}" for field, annotation in fields)
            self.blocks.append(f'class {name}(TypedDict):\n    """{doc}"""\n\n{body}\n')
        else:
            body = "".join(f"\n        {json.dumps(field)}: {annotation}," for field, annotation in fields)
            head = f"#: {doc.splitlines()[0]}\n{name} = TypedDict(\n"
            self.blocks.append(f'{head}    "{name}",\n    {{{body}\n    }},\n)\n')


def main() -> None:
    definitions = json.loads(SCHEMA.read_text())["$defs"]
    writer = Writer(definitions)
    for root in ROOTS:
        writer.define(root)
    sys.stdout.write(
        '"""What the runner sends, as TypedDicts. Generated from\n'
        "tests/fixtures/protocol.schema.json by scripts/protocol-python.py\n"
        '(`make schema`); do not edit."""\n\n'
        "from typing import Any, Literal, NotRequired, TypedDict\n\n\n" + "\n\n".join(writer.blocks)
    )


if __name__ == "__main__":
    main()
