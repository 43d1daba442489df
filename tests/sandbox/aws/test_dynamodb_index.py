"""A Query read from the sandbox's sorted partitions answers as moto's walk over the whole table does, and
sees every write: the same items in the same order, the same counts and LastEvaluatedKey, page by page."""

from __future__ import annotations

import random
from typing import Any

import pytest
from moto.dynamodb.models.table import Table

WORDS = ["a", "b", "B", "é", "ab", "z", "😀", "\uff41", "m", "m"]  # ties on purpose
TOP = "\U0001ffff"  # after every sort key of WORDS


def _tables(ddb: Any) -> None:
    ddb.create_table(
        TableName="ops",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": a, "AttributeType": "S"} for a in ("id", "feed", "at", "status", "target")
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": name,
                "KeySchema": [{"AttributeName": pk, "KeyType": "HASH"}]
                + ([{"AttributeName": sk, "KeyType": "RANGE"}] if sk else []),
                "Projection": projection,
            }
            for name, pk, sk, projection in (
                ("by-at", "feed", "at", {"ProjectionType": "ALL"}),
                ("by-status", "status", "at", {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["note"]}),
                ("by-target", "target", None, {"ProjectionType": "KEYS_ONLY"}),
            )
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    ddb.create_table(
        TableName="pairs",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk")],
        BillingMode="PAY_PER_REQUEST",
    )


def _seed(ddb: Any, rng: random.Random, count: int = 60) -> None:
    for i in range(count):
        item = {"id": {"S": f"op-{rng.randrange(10_000):05d}"}, "note": {"S": "x" * rng.randrange(5)}}
        item["n"] = {"N": str(rng.randrange(100))}
        if rng.random() < 0.9:  # some items are in no index
            item["feed"] = {"S": "all"}
            item["at"] = {"S": rng.choice(WORDS) + rng.choice(WORDS)}
        if rng.random() < 0.7:
            item["status"] = {"S": rng.choice(["FAILED", "SUCCEEDED"])}
        if rng.random() < 0.5:
            item["target"] = {"S": rng.choice(["c1", "c2"])}
        ddb.put_item(TableName="ops", Item=item)
        ddb.put_item(
            TableName="pairs", Item={"pk": {"S": rng.choice(["p", "q"])}, "sk": {"S": rng.choice(WORDS) + str(i)}}
        )


QUERIES: list[dict[str, Any]] = [
    {"TableName": "ops", "IndexName": "by-at", "KeyConditionExpression": "feed = :p", "values": {":p": "all"}},
    {"TableName": "ops", "IndexName": "by-at", "KeyConditionExpression": "feed = :p AND #a > :v",
     "names": {"#a": "at"}, "values": {":p": "all", ":v": "m"}},
    {"TableName": "ops", "IndexName": "by-at", "KeyConditionExpression": "feed = :p AND begins_with(#a, :v)",
     "names": {"#a": "at"}, "values": {":p": "all", ":v": "a"}},
    {"TableName": "ops", "IndexName": "by-at", "KeyConditionExpression": "feed = :p",
     "FilterExpression": "#n < :n", "names": {"#n": "n"}, "values": {":p": "all", ":n": 50}},
    {"TableName": "ops", "IndexName": "by-at", "KeyConditionExpression": "feed = :p",
     "ProjectionExpression": "id, #a, note", "names": {"#a": "at"}, "values": {":p": "all"}},
    {"TableName": "ops", "IndexName": "by-status", "KeyConditionExpression": "#s = :p",
     "names": {"#s": "status"}, "values": {":p": "FAILED"}},
    {"TableName": "ops", "IndexName": "by-status", "KeyConditionExpression": "#s = :p AND #a BETWEEN :x AND :y",
     "names": {"#s": "status", "#a": "at"}, "values": {":p": "SUCCEEDED", ":x": "b", ":y": "é"}},
    {"TableName": "ops", "IndexName": "by-target", "KeyConditionExpression": "target = :p", "values": {":p": "c1"}},
    {"TableName": "pairs", "KeyConditionExpression": "pk = :p", "values": {":p": "q"}},
    {"TableName": "pairs", "KeyConditionExpression": "pk = :p AND sk <= :v", "values": {":p": "p", ":v": "m"}},
    {"TableName": "ops", "IndexName": "by-at", "KeyConditionExpression": "feed = :p", "values": {":p": "nobody"}},
]  # fmt: skip


def _pages(ddb: Any, spec: dict[str, Any], limit: int | None, forward: bool) -> list[dict[str, Any]]:
    """Every page of the query, as the client receives them."""
    request = {k: v for k, v in spec.items() if k not in ("names", "values")}
    request["ExpressionAttributeValues"] = {
        k: {"N": str(v)} if isinstance(v, int) else {"S": v} for k, v in spec["values"].items()
    }
    if "names" in spec:
        request["ExpressionAttributeNames"] = spec["names"]
    request["ScanIndexForward"] = forward
    if limit:
        request["Limit"] = limit
    pages: list[dict[str, Any]] = []
    while len(pages) < 200:  # more pages than items: a cursor that does not advance
        answer = ddb.query(**request)
        answer.pop("ResponseMetadata")
        pages.append(answer)
        if "LastEvaluatedKey" not in answer:
            return pages
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    raise AssertionError(f"the pages never ended: {pages[-1]['LastEvaluatedKey']} again")


def _both(ddb: Any, monkeypatch: pytest.MonkeyPatch, spec: dict[str, Any], limit: int | None, forward: bool) -> Any:
    ours = _pages(ddb, spec, limit, forward)
    with monkeypatch.context() as moto:
        moto.setattr(Table, "query", Table.query.__wrapped__)  # type: ignore[attr-defined]
        theirs = _pages(ddb, spec, limit, forward)
    return ours, theirs


@pytest.mark.parametrize("spec", QUERIES, ids=[f"q{i}" for i in range(len(QUERIES))])
def test_every_page_of_a_query_equals_motos_own_both_ways_at_any_limit(client, monkeypatch, spec):
    ddb = client("dynamodb")
    _tables(ddb)
    _seed(ddb, random.Random(7))
    for limit in (None, 1, 4, 9):
        for forward in (True, False):
            ours, theirs = _both(ddb, monkeypatch, spec, limit, forward)
            assert ours == theirs, (limit, forward)
    assert any(page["Items"] for page in ours) or spec["values"][":p"] == "nobody"


def test_a_query_sees_every_kind_of_write_made_since_the_last(client, monkeypatch):
    ddb = client("dynamodb")
    _tables(ddb)
    _seed(ddb, random.Random(11), count=20)
    feed = QUERIES[0]

    def ids() -> list[str]:
        ours, theirs = _both(ddb, monkeypatch, feed, None, False)
        assert ours == theirs
        return [item["id"]["S"] for item in ours[0]["Items"]]

    before = ids()
    ddb.put_item(TableName="ops", Item={"id": {"S": "new"}, "feed": {"S": "all"}, "at": {"S": TOP}})
    assert ids() == ["new", *before]
    ddb.update_item(
        TableName="ops",
        Key={"id": {"S": "new"}},
        UpdateExpression="SET #a = :a",
        ExpressionAttributeNames={"#a": "at"},
        ExpressionAttributeValues={":a": {"S": ""}},
    )
    assert ids()[-1] == "new"  # the smallest sort key now: last, newest first
    ddb.delete_item(TableName="ops", Key={"id": {"S": "new"}})
    assert ids() == before
    ddb.batch_write_item(
        RequestItems={"ops": [{"PutRequest": {"Item": {"id": {"S": "b1"}, "feed": {"S": "all"}, "at": {"S": TOP}}}}]}
    )
    assert ids()[0] == "b1"
    ddb.transact_write_items(
        TransactItems=[{"Delete": {"TableName": "ops", "Key": {"id": {"S": "b1"}}}}]
    )  # fmt: skip
    assert ids() == before
    ddb.execute_statement(Statement=f"UPDATE ops SET feed='elsewhere' WHERE id='{before[0]}'")
    assert ids() == before[1:]
