"""The sandbox's faster DynamoDB comparisons answer as DynamoDB does: Query order by the sort key's
type (strings by UTF-8 bytes, numbers by value), key equality by type and value, filters unchanged."""

from __future__ import annotations

import copy
import datetime
import json
import random

from moto.dynamodb.models import dynamodb_backends, utilities
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table

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


def test_a_projection_answers_the_item_as_stored_at_its_read_and_leaves_the_stored_item_whole(client):
    # the projection holds the stored values, not copies: reads and writes in turn each see the item as it is then
    ddb = client("dynamodb")
    id_table(ddb, "shared")
    ddb.put_item(TableName="shared", Item=EVERY_TYPE)
    query = {
        "TableName": "shared",
        "KeyConditionExpression": "id = :i",
        "ExpressionAttributeValues": {":i": {"S": "all-types"}},
        "ProjectionExpression": "m, l",
    }
    before = ddb.query(**query)["Items"]
    ddb.update_item(
        TableName="shared",
        Key={"id": {"S": "all-types"}},
        UpdateExpression="SET m.deep.n = :n, l[0] = :s REMOVE m.#inner",
        ExpressionAttributeNames={"#inner": "inner"},  # a reserved word
        ExpressionAttributeValues={":n": {"N": "4"}, ":s": {"S": "b"}},
    )
    after = ddb.query(**query)["Items"]
    assert before == [{"m": EVERY_TYPE["m"], "l": EVERY_TYPE["l"]}]
    assert after[0]["m"]["M"]["deep"]["M"]["n"] == {"N": "4"} and "inner" not in after[0]["m"]["M"]
    assert after[0]["l"]["L"][0] == {"S": "b"} and after[0]["l"]["L"][1:] == EVERY_TYPE["l"]["L"][1:]
    whole = ddb.get_item(TableName="shared", Key={"id": {"S": "all-types"}})["Item"]
    assert (whole["m"], whole["l"]) == (after[0]["m"], after[0]["l"])
    assert _sets_sorted({k: v for k, v in whole.items() if k not in ("m", "l")}) == _sets_sorted(
        {k: v for k, v in EVERY_TYPE.items() if k not in ("m", "l")}
    )


def test_pages_of_an_index_with_tied_sort_keys_come_in_dynamodbs_order_each_item_once(client):
    # ties on the index's sort key are ordered by the table's key; pages continue exactly after the last key
    _table(client, "ties", "S")
    rng = random.Random(7)
    stamps = ["2026-01-01", "2026-01-02", "é", "Z", "a", "😀"]
    rows = [(f"{rng.choice(['op-', 'Op-', 'ö'])}{i}", rng.choice(stamps)) for i in range(60)]
    for key, at in rows:
        item = {"id": {"S": key}, "feed": {"S": "all"}, "at": {"S": at}}
        client("dynamodb").put_item(TableName="ties", Item=item)
    expected = [key for key, _ in sorted(rows, key=lambda r: (r[1].encode(), r[0].encode()))]
    for forward, limit in ((True, 7), (False, 7), (False, 60), (True, 1)):
        seen, start = [], None
        while True:
            extra = {"ExclusiveStartKey": start} if start else {}
            answer = client("dynamodb").query(
                TableName="ties", IndexName="by-at", KeyConditionExpression="feed = :f",
                ExpressionAttributeValues={":f": {"S": "all"}}, ScanIndexForward=forward, Limit=limit, **extra,
            )  # fmt: skip
            seen += [item["id"]["S"] for item in answer["Items"]]
            start = answer.get("LastEvaluatedKey")
            if not start:
                break
        assert seen == (expected if forward else expected[::-1])
    scanned = client("dynamodb").scan(TableName="ties")["Items"]
    assert sorted(i["id"]["S"] for i in scanned) == sorted(key for key, _ in rows)


def _reference_order(items: list) -> list:
    """moto's own sort of a table's items (DynamoType comparisons)."""
    return sorted(items, key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)


def test_the_plain_sort_orders_items_as_dynamotypes_order_them_for_any_key_types():
    rng = random.Random(11)
    alphabet = ["a", "B", "é", "😀", "\uff41", "0", "9"]
    for kinds in (("S", "S"), ("S", None), ("S", "N"), ("N", None)):
        table = Table.__new__(Table)
        table.range_key_attr = "r" if kinds[1] else None
        table.items = {}
        for _ in range(80):

            def value(kind: str) -> dict:
                if kind == "N":
                    return {"N": str(rng.choice([-3, 0, 2.5, 10, 9, 100]))}
                return {"S": "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))}

            h = DynamoType(value(kinds[0]))
            r = DynamoType(value(kinds[1])) if kinds[1] else None
            item = Item(h, r, {"h": h.to_json(), **({"r": r.to_json()} if r else {})})
            if r is None:
                table.items[h] = item
            else:
                table.items.setdefault(h, {})[r] = item
        flat = [i for v in table.items.values() for i in (v.values() if kinds[1] else [v])]
        assert table.all_items() == _reference_order(flat)
        ordered = table.sorted_items(["h"], ["r"] if kinds[1] else [], list(flat))
        key_attrs = ["h", "r"] if kinds[1] else ["h"]
        assert ordered == sorted(flat, key=lambda x: tuple(x.attrs[k] for k in key_attrs))


def test_plain_conversion_of_a_response_equals_motos_for_every_type():
    moto_convert = utilities.dynamo_to_dict.__wrapped__  # moto's own, which the sandbox answers for
    item = Item(DynamoType({"S": "all-types"}), None, EVERY_TYPE)
    cases = [
        {"Items": [item.to_json()["Attributes"]], "Count": 1, "ScannedCount": 1},
        {"Item": item.attrs, "when": datetime.datetime(2026, 1, 1), "n": 3, "none": None, "flag": True},
        [DynamoType(v) for v in EVERY_TYPE.values()],
        item.attrs,
        "plain",
    ]
    for case in cases:
        assert utilities.dynamo_to_dict(case) == moto_convert(case)


def test_the_size_of_every_value_is_motos():
    moto_size = DynamoType.size.__wrapped__  # moto's own (which sizes a map's members through copies)
    nested = {"M": {"deep": {"M": {k: v for k, v in EVERY_TYPE.items() if k != "id"}}, "l": {"L": [{"M": {}}]}}}
    values = [DynamoType(v) for v in EVERY_TYPE.values()] + [DynamoType(nested), DynamoType({"M": {}})]
    for value in values:
        assert value.size() == moto_size(value)
    assert Item(DynamoType({"S": "x"}), None, EVERY_TYPE).size() == sum(
        len(k) + moto_size(DynamoType(v)) for k, v in EVERY_TYPE.items()
    )


def test_a_plain_item_is_answered_in_the_same_json_bytes_as_member_by_member(client, monkeypatch):
    from moto.core.serialize import BaseJSONSerializer

    ddb = client("dynamodb")
    id_table(ddb, "bytes")
    plain = {k: v for k, v in EVERY_TYPE.items() if k not in ("b", "bs", "l")} | {
        "id": {"S": "plain"},
        "empty": {"S": ""},
        "unicode": {"S": 'é😀\n"q"'},
        "l": {"L": [{"S": "a"}, {"N": "1"}, {"NULL": True}, {"L": []}, {"M": {}}]},
    }
    ddb.put_item(TableName="bytes", Item=plain)
    ddb.put_item(TableName="bytes", Item=EVERY_TYPE)  # binaries: not plain, serialized member by member
    bodies: list[bytes] = []
    ddb.meta.events.register("before-parse.dynamodb.*", lambda response_dict, **_: bodies.append(response_dict["body"]))

    def answers() -> list[bytes]:
        bodies.clear()
        for key in ("plain", "all-types"):
            ddb.get_item(TableName="bytes", Key={"id": {"S": key}})
            ddb.query(TableName="bytes", KeyConditionExpression="id = :i", ExpressionAttributeValues={":i": {"S": key}})
        ddb.scan(TableName="bytes")
        return list(bodies)

    ours = answers()
    with monkeypatch.context() as moto:
        member_by_member = BaseJSONSerializer._serialize_type_structure.__wrapped__  # type: ignore[attr-defined]
        moto.setattr(BaseJSONSerializer, "_serialize_type_structure", member_by_member)
        theirs = answers()
    assert ours == theirs
    assert json.loads(ours[0])["Item"]["unicode"] == {"S": 'é😀\n"q"'}


def test_an_items_copy_and_json_are_motos_and_the_copy_shares_nothing_with_the_item():
    moto_copy = Item.__deepcopy__.__wrapped__  # type: ignore[attr-defined]  # moto's own
    moto_json = DynamoType.to_regular_json.__wrapped__  # type: ignore[attr-defined]
    phases = {"L": [{"M": {"name": {"S": f"phase-{i}"}, "log": {"L": [{"S": "line"}] * 3}}} for i in range(3)]}
    item = Item(DynamoType({"S": "op-1"}), DynamoType({"S": "2026"}), {**EVERY_TYPE, "phases": phases})

    copied = copy.deepcopy(item)
    assert copied.to_json() == moto_copy(item, {}).to_json() == item.to_json()
    assert (copied.hash_key, copied.range_key) == (item.hash_key, item.range_key)
    for value in item.attrs.values():
        assert value.to_regular_json() == moto_json(value)

    mixed = DynamoType({"M": {"n": {"N": "1"}}})  # an update can leave plain JSON inside a value
    mixed.value["raw"] = {"L": [{"S": "x"}, {"M": {"deep": {"BOOL": True}}}]}
    assert mixed.to_regular_json() == moto_json(mixed)
    assert copy.deepcopy(mixed).value["raw"] == mixed.value["raw"]
    assert copy.deepcopy(mixed).value["raw"]["L"] is not mixed.value["raw"]["L"]

    copied.attrs["phases"].value[0].value["log"].value.append(DynamoType({"S": "more"}))
    copied.attrs["ss"].value.append("new")
    assert item.to_json()["Attributes"]["phases"] == phases
    assert "new" not in item.attrs["ss"].value


def test_an_update_leaves_the_old_image_on_the_stream_and_answers_the_old_attributes(client):
    ddb = client("dynamodb")
    id_table(ddb, "streamed")
    ddb.update_table(
        TableName="streamed", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    )
    ddb.put_item(TableName="streamed", Item={"id": {"S": "a"}, "m": {"M": {"l": {"L": [{"N": "1"}]}}}})
    old = ddb.update_item(
        TableName="streamed",
        Key={"id": {"S": "a"}},
        UpdateExpression="SET m.l = list_append(m.l, :x)",
        ExpressionAttributeValues={":x": {"L": [{"N": "2"}]}},
        ReturnValues="ALL_OLD",
    )["Attributes"]
    assert old == {"id": {"S": "a"}, "m": {"M": {"l": {"L": [{"N": "1"}]}}}}
    table = dynamodb_backends["123456789012"]["us-east-1"].get_table("streamed")
    update = table.stream_shard.items[-1].record["dynamodb"]  # the record the stream's Lambda is sent
    assert update["OldImage"]["m"] == {"M": {"l": {"L": [{"N": "1"}]}}}
    assert update["NewImage"]["m"] == {"M": {"l": {"L": [{"N": "1"}, {"N": "2"}]}}}
