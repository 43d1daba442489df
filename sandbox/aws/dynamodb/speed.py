"""moto's DynamoDB comparisons and responses without the detours: the same answers, faster.

moto's Query and Scan walk every item of the table (it keeps no index), and each comparison on the
way goes through ``DynamoType.cast_value``, which asks five questions of the value's type before it
answers a string with itself. With 10,000 operations in the table that is about 100,000 calls per
Query, most of the time the list routes spend (bench/list_scale.py). For strings, binaries and booleans
``cast_value`` *is* the stored value, so this compares those directly and hands every other type
(numbers as Decimal, sets, lists, maps, null) to moto's own code. Nothing a caller can see changes:
the order of a Query is still DynamoDB's ("Query results are always sorted by the sort key value ...
by UTF-8 bytes" for strings, Amazon DynamoDB developer guide, "Query operations"), and Python's order
of ``str`` is code-point order, which is the order of their UTF-8 bytes.

The response is the other half: moto's serializer walks botocore's shape of every attribute value, and an
``AttributeValue`` is a union of ten members (S, N, B, SS, NS, BS, M, L, NULL, BOOL, "AttributeValue",
Amazon DynamoDB API reference) of which a value sets exactly one; for each member it tries five aliases
on the value. For an operation with its phases (about 80 attribute values an item) that is 40,000 lookups
a page of 50. A value of one member is serialized through that member alone, by the same code, so the
JSON DynamoDB answers is the same byte for byte; anything else goes the whole way as before.

A ProjectionExpression of top-level attributes keeps those attributes of the item as they are stored;
moto turned the whole item into plain JSON once per attribute named, then back into attribute values.
"""

from __future__ import annotations

import copy
from typing import Any

from sandbox.aws.core import once, patch

_PLAIN = frozenset({"S", "B", "BOOL"})  # moto's cast_value returns these values as they are stored


@once
def install() -> None:
    """Patch moto's DynamoType once per process (idempotent)."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    cast_value = vars(DynamoType)["cast_value"].fget  # a property
    eq, ne, lt, le, gt, ge = (
        DynamoType.__eq__,
        DynamoType.__ne__,
        DynamoType.__lt__,
        DynamoType.__le__,
        DynamoType.__gt__,
        DynamoType.__ge__,
    )

    def fast_cast_value(self: Any) -> Any:
        return self.value if self.type in _PLAIN else cast_value(self)

    def plain_pair(self: Any, other: Any) -> bool:
        return type(other) is DynamoType and self.type in _PLAIN and other.type in _PLAIN

    def __eq__(self: Any, other: Any) -> bool:
        if plain_pair(self, other):
            return bool(self.type == other.type and self.value == other.value)
        return bool(eq(self, other))

    def __ne__(self: Any, other: Any) -> bool:
        if plain_pair(self, other):
            return bool(self.type != other.type or self.value != other.value)
        return bool(ne(self, other))

    def ordered(original: Any, compare: Any) -> Any:
        def method(self: Any, other: Any) -> bool:
            if plain_pair(self, other):
                return bool(compare(self.value, other.value))
            return bool(original(self, other))

        return method

    _install_attribute_value_serializer()
    _install_top_level_projection()
    patch(DynamoType, "cast_value", property(fast_cast_value))
    patch(DynamoType, "__eq__", __eq__)
    patch(DynamoType, "__ne__", __ne__)
    patch(DynamoType, "__lt__", ordered(lt, lambda a, b: a < b))
    patch(DynamoType, "__le__", ordered(le, lambda a, b: a <= b))
    patch(DynamoType, "__gt__", ordered(gt, lambda a, b: a > b))
    patch(DynamoType, "__ge__", ordered(ge, lambda a, b: a >= b))


def _install_attribute_value_serializer() -> None:
    from moto.core.serialize import BaseJSONSerializer

    original = BaseJSONSerializer._serialize_type_structure

    def _serialize_type_structure(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
        if shape.name == "AttributeValue" and type(value) is dict and len(value) == 1:
            (member,) = value
            member_shape = shape.members.get(member)
            if member_shape is not None:  # what the loop over every member does when only this one is set
                wrapper = self.MAP_TYPE() if key else serialized
                member_shape.parent = shape
                self._serialize_structure_member(wrapper, value, member_shape, member)
                if key:
                    self._default_serialize(serialized, wrapper, shape, key)
                return
        original(self, serialized, value, shape, key)

    patch(BaseJSONSerializer, "_serialize_type_structure", _serialize_type_structure)


def _install_top_level_projection() -> None:
    from moto.dynamodb.models.dynamo_type import Item

    original = Item.project

    def project(self: Any, projection_expressions: list[list[str]]) -> Any:
        if not all(len(path) == 1 and "[" not in path[0] for path in projection_expressions):
            return original(self, projection_expressions)  # nested paths and list elements: moto's way
        names = dict.fromkeys(path[0] for path in projection_expressions)  # in the expression's order, as moto
        kept = {name: copy.deepcopy(self.attrs[name]) for name in names if name in self.attrs}
        return Item(hash_key=self.hash_key, range_key=self.range_key, attrs=kept)

    patch(Item, "project", project)
