"""moto's DynamoDB comparisons without the detour: the same answers, faster.

moto's Query and Scan walk every item of the table (it keeps no index), and each comparison on the
way goes through ``DynamoType.cast_value``, which asks five questions of the value's type before it
answers a string with itself. With 10,000 operations in the table that is about 100,000 calls per
Query, most of the time the list routes spend (bench/list_scale.py). For strings, binaries and booleans
``cast_value`` *is* the stored value, so this compares those directly and hands every other type
(numbers as Decimal, sets, lists, maps, null) to moto's own code. Nothing a caller can see changes:
the order of a Query is still DynamoDB's ("Query results are always sorted by the sort key value ...
by UTF-8 bytes" for strings, Amazon DynamoDB developer guide, "Query operations"), and Python's order
of ``str`` is code-point order, which is the order of their UTF-8 bytes.
"""

from __future__ import annotations

import threading
from typing import Any

_PLAIN = frozenset({"S", "B", "BOOL"})  # moto's cast_value returns these values as they are stored
_lock = threading.Lock()
_installed = False


def install() -> None:
    """Patch moto's DynamoType once per process (idempotent)."""
    global _installed
    from moto.dynamodb.models.dynamo_type import DynamoType

    with _lock:
        if _installed:
            return
        cast_value = DynamoType.cast_value.fget
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

        DynamoType.cast_value = property(fast_cast_value)  # type: ignore[method-assign,assignment]
        DynamoType.__eq__ = __eq__  # type: ignore[method-assign,assignment]
        DynamoType.__ne__ = __ne__  # type: ignore[method-assign,assignment]
        DynamoType.__lt__ = ordered(lt, lambda a, b: a < b)  # type: ignore[method-assign]
        DynamoType.__le__ = ordered(le, lambda a, b: a <= b)  # type: ignore[method-assign]
        DynamoType.__gt__ = ordered(gt, lambda a, b: a > b)  # type: ignore[method-assign]
        DynamoType.__ge__ = ordered(ge, lambda a, b: a >= b)  # type: ignore[method-assign]
        _installed = True
