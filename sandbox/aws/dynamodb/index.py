"""A Query reads its partition from a sorted index, as DynamoDB does, instead of walking the whole table.

DynamoDB stores a partition's items in sort-key order and a Query reads from where the key condition or
``ExclusiveStartKey`` puts it ("Query operations", Amazon DynamoDB developer guide): its cost follows the
page, not the table. moto keeps no index: every Query walks every item of the table, checks the
partition key on each, sorts the matches, then walks again from the first item to the exclusive start
key. With 10,000 operations that is most of a listing's time (bench/list_scale.py).

This keeps, per table, each index's partitions sorted by the keys moto sorts by (the index's keys, then
the table's), built on the first Query after a write and dropped by the next write: every write to the
table (PutItem, UpdateItem, DeleteItem, in a batch or a transaction) bumps the table's generation, and
any other DynamoDB call that is not a read bumps every table's (an UpdateTable that adds an index, a
PartiQL statement, a restore). The page is then cut from the sorted partition by bisection on the
exclusive start key and taken through moto's own loop (limit, 1 MB, the key condition on the sort key),
moto's index projection, FilterExpression after the limit and the ProjectionExpression, so the answer
is the one moto gives (tested equal for both directions, every page, ties, key conditions, filters).

Only string keys (S) with one partition and at most one sort key attribute take this path; anything
else (numbers, binaries, multi-attribute keys, the legacy QueryFilter, a consistent read on a global
index) is moto's own Query.
"""

from __future__ import annotations

import bisect
import copy
import threading
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws.core import once, patch

# DynamoDB calls that change no item and no table: every other call is taken as a write.
READS = frozenset(
    {
        "GetItem",
        "BatchGetItem",
        "Query",
        "Scan",
        "TransactGetItems",
        "DescribeTable",
        "ListTables",
        "DescribeTimeToLive",
        "DescribeContinuousBackups",
        "ListTagsOfResource",
        "DescribeStream",
        "GetShardIterator",
        "GetRecords",
        "ListStreams",
        "DescribeEndpoints",
        "DescribeLimits",
        "ListBackups",
        "DescribeBackup",
    }
)

_epoch = 0  # bumped by any call that is not a read; part of every table's generation
_lock = threading.Lock()


@dataclass
class _Partitions:
    """One index's (or the table's) partitions, each sorted by its keys, as of one generation."""

    generation: tuple[int, int]
    items: dict[str, list[Any]] = field(default_factory=dict)  # partition key -> items, ascending
    keys: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # the same order's sort tuples
    sizes: dict[int, int] = field(default_factory=dict)  # id(item) -> its size, unchanged until a write

    def size(self, item: Any) -> int:
        """The item's size (the 1 MB page limit sums them): an item with its phases is ~80 attribute values."""
        found = self.sizes.get(id(item))
        if found is None:
            found = self.sizes[id(item)] = int(item.size())
        return found


def written(table: Any) -> None:
    """The table's items changed: its sorted partitions are stale."""
    table.__dict__["_sandbox_generation"] = table.__dict__.get("_sandbox_generation", 0) + 1


def _generation(table: Any) -> tuple[int, int]:
    return (_epoch, table.__dict__.get("_sandbox_generation", 0))


def _sorted_partitions(
    table: Any, name: str | None, partition_attr: str, sort_attrs: list[str], required: list[str]
) -> _Partitions | None:
    """The partitions of index ``name`` (the table's own when None), each sorted by ``sort_attrs``; an item
    without the partition key or one of ``required`` is not in the index. None when a key is not a string
    (or missing where moto's sort would raise): moto answers that Query itself."""
    cache: dict[str | None, _Partitions] = table.__dict__.setdefault("_sandbox_partitions", {})
    found = cache.get(name)
    if found is not None and found.generation == _generation(table):
        return found
    built = _Partitions(_generation(table))
    rows: dict[str, list[tuple[tuple[str, ...], Any]]] = {}
    for item in _stored(table):
        attrs = item.attrs
        value = attrs.get(partition_attr)
        if value is None or any(attrs.get(attr) is None for attr in required):
            continue  # moto: ``not item_value`` and ``has_all_range_keys``
        parts = [attrs.get(attr) for attr in sort_attrs]
        if value.type != "S" or any(part is None or part.type != "S" for part in parts):
            return None
        rows.setdefault(value.value, []).append((tuple(part.value for part in parts), item))
    for partition, members in rows.items():
        members.sort(key=lambda row: row[0])
        built.keys[partition] = [k for k, _ in members]
        built.items[partition] = [i for _, i in members]
    cache[name] = built
    return built


def _stored(table: Any) -> list[Any]:
    if table.range_key_attr:
        return [item for hash_set in table.items.values() for item in hash_set.values()]
    return list(table.items.values())


def _start_key(start: dict[str, Any], attrs: list[str]) -> tuple[str, ...] | None:
    key = []
    for attr in attrs:
        value = start.get(attr)
        if type(value) is not dict or list(value) != ["S"]:
            return None
        key.append(value["S"])
    return tuple(key)


@once
def install() -> None:
    """Patch moto's Table.query and the write paths (idempotent)."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import RESULT_SIZE_LIMIT, GlobalSecondaryIndex, Table
    from moto.dynamodb.responses import DynamoHandler

    original_query = Table.query

    def query(
        self: Any,
        hash_key: Any,
        range_comparison: str | None,
        range_objs: list[Any],
        limit: int,
        exclusive_start_key: dict[str, Any],
        scan_index_forward: bool,
        projection_expressions: list[list[str]] | None,
        index_name: str | None = None,
        consistent_read: bool = False,
        filter_expression: Any = None,
        hash_key_conditions: list[tuple[str, Any]] | None = None,
        range_key_conditions: list[tuple[str, str, list[Any]]] | None = None,
        **filter_kwargs: Any,
    ) -> Any:
        def moto() -> Any:
            return original_query(
                self,
                hash_key,
                range_comparison,
                range_objs,
                limit,
                exclusive_start_key,
                scan_index_forward,
                projection_expressions,
                index_name,
                consistent_read,
                filter_expression,
                hash_key_conditions=hash_key_conditions,
                range_key_conditions=range_key_conditions,
                **filter_kwargs,
            )

        if filter_kwargs or (range_key_conditions and len(range_key_conditions) > 1):
            return moto()
        index = None
        if index_name:
            index = {i.name: i for i in self.all_indexes()}.get(index_name)
            if index is None or (consistent_read and index in self.global_indexes):
                return moto()  # moto's own validation errors
            hashes = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
            ranges = [k["AttributeName"] for k in index.schema if k["KeyType"] == "RANGE"]
            if len(hashes) != 1 or len(ranges) > 1 or len(hash_key_conditions or []) != 1:
                return moto()
            (condition_attr, wanted), partition_attr = (hash_key_conditions or [])[0], hashes[0]
            if condition_attr != partition_attr:
                return moto()
            if not ranges:
                if range_comparison:
                    return moto()  # moto raises
                # moto's order without an index sort key: the table's range key (GSI) or hash key
                ranges = [self.range_key_attr if isinstance(index, GlobalSecondaryIndex) and self.range_key_attr
                          else self.hash_key_attr]  # fmt: skip
                required = []
            else:
                required = ranges
            # moto's order (Table._generate_attr_to_sort_by): the index's sort key, then the table's keys
            sort_attrs = [a for a in dict.fromkeys([*ranges, self.hash_key_attr, self.range_key_attr]) if a]
        else:
            if hash_key is None or not self.range_key_attr:
                return moto()
            wanted, partition_attr, sort_attrs, required = hash_key, self.hash_key_attr, [self.range_key_attr], []
        if wanted.type != "S":
            return moto()
        with _lock:
            partitions = _sorted_partitions(self, index_name, partition_attr, sort_attrs, required)
        if partitions is None:
            return moto()
        members = partitions.items.get(wanted.value, [])
        keys = partitions.keys.get(wanted.value, [])
        if exclusive_start_key is not None:
            start = _start_key(exclusive_start_key, sort_attrs)
            if start is None or exclusive_start_key.get(partition_attr) != {"S": wanted.value}:
                return moto()
            if scan_index_forward is False:
                candidates = members[: bisect.bisect_left(keys, start)][::-1]
            else:
                candidates = members[bisect.bisect_right(keys, start) :]
        else:
            candidates = members[::-1] if scan_index_forward is False else list(members)

        # the attribute moto applies the sort key condition to: the one the condition names, else the index's
        comparison_attr = range_key_conditions[-1][0] if range_key_conditions else sort_attrs[0]
        # moto's loop from here on (Table.query, "FILTER"), over the partition from the start key
        results: list[Any] = []
        result_size = scanned_count = 0
        last_evaluated_key = None
        for result in candidates:
            if len(results) == limit or (result_size + partitions.size(result)) > RESULT_SIZE_LIMIT:
                last_evaluated_key = self._get_last_evaluated_key(results[-1], index_name)
                break
            if range_comparison:
                value = result.attrs.get(comparison_attr)
                if not (value and value.compare(range_comparison, range_objs)):
                    continue
            results.append(result)
            result_size += partitions.size(result)
            scanned_count += 1

        if projection_expressions and (index is None or _projects_all(index)):
            # the projection copies what it keeps (speed.py); a whole copy first would be thrown away
            answer = results
        else:
            answer = copy.deepcopy(results)
            if index is not None:
                answer = [index.project(r) for r in answer]
        if filter_expression is not None:
            answer = [item for item in answer if filter_expression.expr(item)]
        if projection_expressions:
            answer = [r.project(projection_expressions) for r in answer]
        return answer, scanned_count, last_evaluated_key

    def bumping(original: Any, table_of: Any) -> Any:
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return original(self, *args, **kwargs)
            finally:
                table = table_of(self, *args, **kwargs)
                if table is not None:
                    written(table)

        return call

    def table_by_name(backend: Any, table_name: str, *_: Any, **__: Any) -> Any:
        return backend.tables.get(table_name)

    def call_action(original: Any) -> Any:
        def call(self: Any) -> Any:
            global _epoch
            try:
                return original(self)
            finally:
                action = self._get_action() if hasattr(self, "_get_action") else None
                if action not in READS:
                    _epoch += 1

        return call

    query.__wrapped__ = original_query  # type: ignore[attr-defined]
    patch(Table, "query", query)
    patch(Table, "put_item", bumping(Table.put_item, lambda table, *a, **k: table))
    patch(Table, "delete_item", bumping(Table.delete_item, lambda table, *a, **k: table))
    patch(DynamoDBBackend, "update_item", bumping(DynamoDBBackend.update_item, table_by_name))
    patch(DynamoHandler, "call_action", call_action(DynamoHandler.call_action))


def _projects_all(index: Any) -> bool:
    return bool((index.projection or {}).get("ProjectionType", "ALL") == "ALL") or not index.projection
