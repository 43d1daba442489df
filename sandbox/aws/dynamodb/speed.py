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

Each Query and Scan also sorted every item of the table through DynamoType's comparisons, built each
projected item through the 400 KB check (quadratic in its attributes) and turned the answer into plain
values asking each string whether it has ``to_json``: strings are sorted as strings, a projection is
built as moto copies an item, and plain values are answered directly; each tested equal to moto's way.
"""

from __future__ import annotations

import base64
import copy
from decimal import Decimal
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
    _install_plain_conversion()
    _install_plain_sort()
    _install_map_size()
    _install_copies()
    patch(DynamoType, "cast_value", property(fast_cast_value))
    patch(DynamoType, "__eq__", __eq__)
    patch(DynamoType, "__ne__", __ne__)
    patch(DynamoType, "__lt__", ordered(lt, lambda a, b: a < b))
    patch(DynamoType, "__le__", ordered(le, lambda a, b: a <= b))
    patch(DynamoType, "__gt__", ordered(gt, lambda a, b: a > b))
    patch(DynamoType, "__ge__", ordered(ge, lambda a, b: a >= b))


_SCALARS = {"S": str, "N": str, "BOOL": bool, "NULL": bool}


def _plain_attribute_value(value: Any) -> bool:
    """An attribute value the serializer would copy as it is: strings, numbers (kept as strings), booleans,
    nulls, string and number sets, and maps and lists of those. Binaries are base64-encoded: not plain."""
    if type(value) is not dict or len(value) != 1:
        return False
    ((member, inner),) = value.items()
    scalar = _SCALARS.get(member)
    if scalar is not None:
        return type(inner) is scalar
    if member == "M":
        return type(inner) is dict and all(type(k) is str and _plain_attribute_value(v) for k, v in inner.items())
    if member == "L":
        return type(inner) is list and all(_plain_attribute_value(v) for v in inner)
    if member in ("SS", "NS"):
        return type(inner) is list and all(type(v) is str for v in inner)
    return False


def _install_attribute_value_serializer() -> None:
    from moto.core.serialize import BaseJSONSerializer

    original = BaseJSONSerializer._serialize_type_structure

    def one_member(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
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

    def _serialize_type_structure(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
        # A plain value's serialization is the value itself: each string member through str() (a str already),
        # booleans as they are, maps and lists member by member. Whole items (about 80 values each on an
        # operations page) were walked node by node through botocore's shapes.
        if shape.name == "AttributeValue" and _plain_attribute_value(value):
            if key:
                self._default_serialize(serialized, value, shape, key)
            else:
                serialized.update(value)
            return
        one_member(self, serialized, value, shape, key)

    _serialize_type_structure.__wrapped__ = one_member  # type: ignore[attr-defined]
    patch(BaseJSONSerializer, "_serialize_type_structure", _serialize_type_structure)


def _install_top_level_projection() -> None:
    from moto.dynamodb.models.dynamo_type import Item, LimitedSizeDict

    original = Item.project

    def project(self: Any, projection_expressions: list[list[str]]) -> Any:
        if not all(len(path) == 1 and "[" not in path[0] for path in projection_expressions):
            return original(self, projection_expressions)  # nested paths and list elements: moto's way
        names = dict.fromkeys(path[0] for path in projection_expressions)  # in the expression's order, as moto
        # Built as moto's Item.__deepcopy__ builds a copy: a part of a stored item passed the 400 KB check when
        # it was written, and Item() checks it again attribute by attribute, each time summing every attribute
        # before it (quadratic in the attributes). The projection holds the stored values themselves, not
        # copies, as moto's GetItem without a projection answers the stored item: every caller (GetItem,
        # Query, Scan, their batch and transaction forms) only reads and serializes what it gets, and does so
        # under the lock that makes each DynamoDB call atomic (atomicity.py), so no write changes a value
        # before its answer is written out. Deep-copying each listed item was a fifth of a listing's CPU.
        projected: Any = Item.__new__(Item)
        projected.hash_key, projected.range_key = self.hash_key, self.range_key
        projected.attrs = LimitedSizeDict.__new__(LimitedSizeDict)
        dict.__init__(projected.attrs)
        for name in names:
            if name in self.attrs:
                dict.__setitem__(projected.attrs, name, self.attrs[name])
        return projected

    patch(Item, "project", project)


def _install_plain_conversion() -> None:
    """moto's ``dynamo_to_dict`` turns a response's items into plain values one node at a time, importing
    DynamoType and asking ``hasattr(obj, "to_json")`` at each; strings, numbers, dicts and lists (every node
    of an item but its DynamoTypes) are answered here as its own branches answer them, anything else by it."""
    from moto.dynamodb import responses
    from moto.dynamodb.models import utilities
    from moto.dynamodb.models.dynamo_type import DynamoType

    original = utilities.dynamo_to_dict

    def dynamo_to_dict(obj: Any) -> Any:
        kind = type(obj)
        if kind is str or kind is bool or kind is int or obj is None:
            return obj
        if kind is dict:
            return {k: dynamo_to_dict(v) for k, v in obj.items()}
        if kind is list:
            return [dynamo_to_dict(v) for v in obj]
        if kind is DynamoType and obj.type not in ("B", "BS"):
            return {obj.type: dynamo_to_dict(obj.value)}
        return original(obj)  # binaries, datetimes, models with to_json, dict subclasses: moto's way

    dynamo_to_dict.__wrapped__ = original  # type: ignore[attr-defined]
    patch(utilities, "dynamo_to_dict", dynamo_to_dict)  # its own recursion looks the name up here
    patch(responses, "dynamo_to_dict", dynamo_to_dict)


def _install_plain_sort() -> None:
    """Sorting by string keys compares the strings: moto sorts every item of the table on each Query and
    Scan (``all_items``) and a Query's matches again by the index's keys (``sorted_items``), each comparison
    a Python call on DynamoType. When every key compared is a string (S), the order of the strings is the
    order DynamoType gives them (above), and Python's sort is stable, so the result is the same list."""
    from moto.dynamodb.models.table import Table

    sorted_items = Table.sorted_items

    def plain(keys: list[Any]) -> list[Any] | None:
        if all(type(k) is tuple for k in keys):
            if all(v.type == "S" for key in keys for v in key):
                return [tuple(v.value for v in key) for key in keys]
        elif all(type(k) is not tuple and k.type == "S" for k in keys):
            return [k.value for k in keys]
        return None

    def all_items(self: Any) -> list[Any]:
        items: list[Any] = []
        for hash_set in self.items.values():
            if self.range_key_attr:
                items.extend(hash_set.values())
            else:
                items.append(hash_set)
        keys = [(x.hash_key, x.range_key) if x.range_key else x.hash_key for x in items]
        fast = plain(keys) if keys else []
        if fast is None:
            return sorted(items, key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)
        order = sorted(range(len(items)), key=fast.__getitem__)
        return [items[i] for i in order]

    def fast_sorted_items(self: Any, hash_key_attrs: list[str], range_key_attrs: list[Any], items: list[Any]) -> Any:
        attrs = self._generate_attr_to_sort_by(hash_key_attrs, range_key_attrs)
        try:
            keys = [tuple(x.attrs[key] for key in attrs) for x in items]
        except KeyError:
            return sorted_items(self, hash_key_attrs, range_key_attrs, items)  # moto's own error
        fast = plain(keys) if keys else []
        if fast is None:
            return sorted_items(self, hash_key_attrs, range_key_attrs, items)
        order = sorted(range(len(items)), key=fast.__getitem__)
        items[:] = [items[i] for i in order]
        return items

    patch(Table, "all_items", all_items)
    patch(Table, "sorted_items", fast_sorted_items)


def _install_map_size() -> None:
    """An item's size (the 400 KB check on every write, and a Query's 1 MB page) sums its values' sizes; for
    a map moto wraps each member in a new DynamoType first, which copies the member's whole subtree, at every
    level. A member that is already a DynamoType has the size its copy would have."""
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.utilities import bytesize

    size = DynamoType.size

    def map_size(self: Any) -> int:
        if self.type == "M":
            members = self.value.items()
            return sum(bytesize(k) + (v.size() if type(v) is DynamoType else DynamoType(v).size()) for k, v in members)
        return int(size(self))

    map_size.__wrapped__ = size  # type: ignore[attr-defined]
    patch(DynamoType, "size", map_size)


_SETS = frozenset({"SS", "NS", "BS"})
_ATOMS = frozenset({str, bytes, int, float, bool, type(None), Decimal})  # immutable: deepcopy returns them


def _install_copies() -> None:
    """An UpdateItem copies the item it changes twice before changing it (moto's handler keeps the old
    attributes for ReturnValues, its backend the old image for the table's stream), then turns the old and
    the new item into JSON for the stream record. moto copies through ``copy.deepcopy`` for every attribute
    value (its dispatch, its memo) and its ``to_regular_json`` deep-copies a map's or a list's whole
    subtree before converting it, then does the same in each member: a value three levels down is copied
    three times. An operation with its phases is about 80 values three levels deep, rewritten on every
    phase and progress line: in a profile of a provision this was a third of the sandbox process's time.

    These copy and convert each value once, into the same result: the same types, the same values, sets
    copied as lists, binaries decoded as moto decodes them. An attribute value is a tree (DynamoDB has no
    references between values), so no memo is needed; anything that is not a DynamoType is copied by
    ``copy.deepcopy`` as before."""
    from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict

    to_regular_json = DynamoType.to_regular_json
    value_copy, item_copy = DynamoType.__deepcopy__, Item.__deepcopy__

    def plain(value: Any) -> Any:
        """``copy.deepcopy`` of what an update leaves inside a value as JSON (dicts, lists, strings, numbers,
        booleans, None), a DynamoType met on the way copied as a DynamoType; anything else by deepcopy."""
        kind = type(value)
        if kind in _ATOMS:
            return value
        if kind is dict:
            return {k: plain(v) for k, v in value.items()}
        if kind is list:
            return [plain(v) for v in value]
        if kind is DynamoType:
            return clone(value)
        return copy.deepcopy(value)

    def clone(value: Any) -> Any:
        if type(value) is not DynamoType:
            return plain(value)
        result = DynamoType.__new__(DynamoType)
        result.type = kind = value.type
        inner = value.value
        if kind == "L":
            result.value = [clone(v) for v in inner]
        elif kind == "M":
            result.value = {k: clone(v) for k, v in inner.items()}
        elif kind in _SETS:
            result.value = list(inner)
        else:
            result.value = inner
        return result

    def copy_value(self: Any, memo: dict[int, Any]) -> Any:
        return clone(self) if type(self) is DynamoType else value_copy(self, memo)

    def copy_item(self: Any, memo: dict[int, Any]) -> Any:
        result = self.__class__.__new__(self.__class__)
        result.hash_key = clone(self.hash_key)
        result.range_key = clone(self.range_key)
        attrs = LimitedSizeDict.__new__(LimitedSizeDict)  # the source passed the size check when written
        dict.__init__(attrs, {key: clone(value) for key, value in self.attrs.items()})
        result.attrs = attrs
        return result

    def regular(value: Any) -> Any:
        return value.to_regular_json() if isinstance(value, DynamoType) else plain(value)

    def regular_json(self: Any) -> dict[str, Any]:
        inner = self.value
        if isinstance(inner, dict):
            value: Any = {key: regular(member) for key, member in inner.items()}
        elif isinstance(inner, list):
            value = [regular(member) for member in inner]
        else:
            value = plain(inner)
        if self.type == "B" and isinstance(value, str):
            value = base64.b64decode(value)
        return {self.type: value}

    copy_value.__wrapped__ = value_copy  # type: ignore[attr-defined]
    copy_item.__wrapped__ = item_copy  # type: ignore[attr-defined]
    regular_json.__wrapped__ = to_regular_json  # type: ignore[attr-defined]
    patch(DynamoType, "__deepcopy__", copy_value)
    patch(Item, "__deepcopy__", copy_item)
    patch(DynamoType, "to_regular_json", regular_json)
