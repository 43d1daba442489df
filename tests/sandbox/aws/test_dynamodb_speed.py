"""The sandbox's faster DynamoDB comparisons answer as DynamoDB does: Query order by the sort key's
type (strings by UTF-8 bytes, numbers by value), key equality by type and value, filters unchanged."""

from __future__ import annotations

from moto.dynamodb.models.dynamo_type import DynamoType

from sandbox.aws.dynamodb import speed as dynamodb_speed
from tests.sandbox.aws.support import id_table


def _table(client, name: str, sort_type: str) -> None:
    client("dynamodb").create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": "id", "AttributeType": "S"},
            {"AttributeName": "feed", "AttributeType": "S"},
            {"AttributeName": "at", "AttributeType": sort_type},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-at",
                "KeySchema": [
                    {"AttributeName": "feed", "KeyType": "HASH"},
                    {"AttributeName": "at", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )


def _query(client, name: str, **extra) -> list:
    values = {":f": {"S": "all"}, **extra.pop("values", {})}
    extra.setdefault("KeyConditionExpression", "feed = :f")
    answer = client("dynamodb").query(TableName=name, IndexName="by-at", ExpressionAttributeValues=values, **extra)
    return [item["at"] for item in answer["Items"]]


def test_an_index_of_strings_lists_them_in_utf8_byte_order_both_ways(client):
    _table(client, "strings", "S")
    words = ["b", "B", "a", "é", "z", "😀", "ab", "A", "\uff41"]  # upper before lower, ASCII before é, é before 😀
    for i, word in enumerate(words):
        client("dynamodb").put_item(
            TableName="strings", Item={"id": {"S": str(i)}, "feed": {"S": "all"}, "at": {"S": word}}
        )
    client("dynamodb").put_item(TableName="strings", Item={"id": {"S": "x"}, "feed": {"S": "other"}, "at": {"S": "a"}})
    expected = sorted(words, key=lambda w: w.encode())
    assert _query(client, "strings") == [{"S": w} for w in expected]
    assert _query(client, "strings", ScanIndexForward=False) == [{"S": w} for w in reversed(expected)]
    page = _query(client, "strings", ScanIndexForward=False, Limit=3)
    assert page == [{"S": w} for w in list(reversed(expected))[:3]]


def test_an_index_of_numbers_lists_them_by_value_not_by_their_digits(client):
    _table(client, "numbers", "N")
    for i, number in enumerate(["10", "9", "-1", "2.5", "100"]):
        client("dynamodb").put_item(
            TableName="numbers", Item={"id": {"S": str(i)}, "feed": {"S": "all"}, "at": {"N": number}}
        )
    assert _query(client, "numbers") == [{"N": n} for n in ["-1", "2.5", "9", "10", "100"]]
    between = _query(client, "numbers", KeyConditionExpression="feed = :f AND at BETWEEN :lo AND :hi",
                     values={":lo": {"N": "3"}, ":hi": {"N": "50"}})  # fmt: skip
    assert between == [{"N": "9"}, {"N": "10"}]


def test_a_string_equals_only_the_same_string_and_never_a_number_or_binary(client):
    dynamodb_speed.install()  # installing again changes nothing
    assert DynamoType({"S": "1"}) == DynamoType({"S": "1"})
    assert DynamoType({"S": "1"}) != DynamoType({"N": "1"})
    assert DynamoType({"S": "1"}) != DynamoType({"S": "1 "})
    assert DynamoType({"N": "1.0"}) == DynamoType({"N": "1"})  # numbers still compare by value
    assert DynamoType({"BOOL": True}) != DynamoType({"S": "True"})
    assert DynamoType({"S": "a"}) < DynamoType({"S": "b"}) <= DynamoType({"S": "b"}) < DynamoType({"S": "é"})
    _table(client, "filtered", "S")
    for i, status in enumerate(["FAILED", "SUCCEEDED", "FAILED"]):
        item = {"id": {"S": str(i)}, "feed": {"S": "all"}, "at": {"S": f"t{i}"}, "status": {"S": status}}
        client("dynamodb").put_item(TableName="filtered", Item=item)
    failed = _query(client, "filtered", FilterExpression="#s = :s", ExpressionAttributeNames={"#s": "status"},
                    values={":s": {"S": "FAILED"}})  # fmt: skip
    assert failed == [{"S": "t0"}, {"S": "t2"}]


EVERY_TYPE = {
    "id": {"S": "all-types"},
    "n": {"N": "-12.50"},
    "b": {"B": b"\x00\xffbytes"},
    "ss": {"SS": ["x", "y"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": [b"\x01", b"\x02"]},
    "m": {"M": {"inner": {"S": "v"}, "deep": {"M": {"n": {"N": "3"}, "l": {"L": [{"BOOL": False}]}}}}},
    "l": {"L": [{"S": "a"}, {"N": "1"}, {"NULL": True}, {"M": {"k": {"B": b"\x03"}}}]},
    "null": {"NULL": True},
    "yes": {"BOOL": True},
}


def _sets_sorted(item: dict) -> dict:
    return {k: {t: sorted(v) if t in ("SS", "NS", "BS") else v for t, v in value.items()} for k, value in item.items()}


def test_an_item_of_every_type_comes_back_as_written_whole_or_projected(client):
    ddb = client("dynamodb")
    id_table(ddb, "every-type")
    ddb.put_item(TableName="every-type", Item=EVERY_TYPE)
    whole = ddb.get_item(TableName="every-type", Key={"id": {"S": "all-types"}})["Item"]
    assert _sets_sorted(whole) == _sets_sorted(EVERY_TYPE)
    queried = ddb.query(
        TableName="every-type",
        KeyConditionExpression="id = :i",
        ExpressionAttributeValues={":i": {"S": "all-types"}},
        ProjectionExpression="#m, #l, bs, #absent",
        ExpressionAttributeNames={"#m": "m", "#l": "l", "#absent": "absent"},
    )["Items"]
    assert [_sets_sorted(i) for i in queried] == [_sets_sorted({k: EVERY_TYPE[k] for k in ("m", "l", "bs")})]
    nested = ddb.get_item(
        TableName="every-type", Key={"id": {"S": "all-types"}}, ProjectionExpression="m.deep.n, l[3]"
    )["Item"]
    assert nested == {"m": {"M": {"deep": {"M": {"n": {"N": "3"}}}}}, "l": {"L": [{"M": {"k": {"B": b"\x03"}}}]}}
