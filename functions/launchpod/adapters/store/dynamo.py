"""Small helpers shared by the table adapters."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

from launchpod.adapters.aws.errors import aws_call, error_code
from launchpod.domain.errors import InvalidInput

_SER = TypeSerializer()
_DESER = TypeDeserializer()


def plain(value: Any) -> Any:
    """DynamoDB numbers come back as Decimal; contracts want int and float."""
    if type(value) is str:  # most of an item's values: answered before the three checks below
        return value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def to_attr(value: Any) -> dict[str, Any]:
    return dict(_SER.serialize(value))


def item_to_attrs(item: dict[str, Any]) -> dict[str, Any]:
    return {k: to_attr(v) for k, v in item.items() if v is not None}


def attrs_to_item(attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: plain(_DESER.deserialize(v)) for k, v in attrs.items()}


# ---------------------------------------------------------------- conditional writes


def conditional_or_old(write: Callable[[], object]) -> dict[str, Any] | None:
    """Run a conditional write: None when it was made, else the item that failed the condition. A write made with
    ``ReturnValuesOnConditionCheckFailure="ALL_OLD"`` gets that item in the exception's ``Item``
    (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValuesOnConditionCheckFailure),
    so the writer learns why without a second read; one made without it gets {}."""
    try:
        write()
    except ClientError as exc:
        if error_code(exc) == "ConditionalCheckFailedException":
            return attrs_to_item(exc.response.get("Item") or {})
        raise
    return None


def conditional(write: Callable[[], object]) -> bool:
    """Run a conditional write: True when it was made, False when its condition failed
    (ConditionalCheckFailedException, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ConditionalUpdate)."""
    return conditional_or_old(write) is None


def get_versioned(table: Any, key: dict[str, str]) -> tuple[Any, int] | None:
    """A versioned item's JSON body and its version (a consistent read); None when nothing is stored yet."""
    with aws_call("dynamodb:GetItem"):
        item = table.get_item(Key=key, ConsistentRead=True).get("Item")
    return (json.loads(str(item["body"])), int(item["version"])) if item else None


def put_versioned(table: Any, key: dict[str, str], body: Any, version: int) -> bool:
    """Store ``body`` (as JSON) if nobody wrote since ``version`` was read (0: if nobody wrote at all);
    False when someone did: optimistic concurrency on a ``version`` attribute."""
    (key_attr,) = key
    first = version == 0
    values: dict[str, Any] = {":new": version + 1, ":body": json.dumps(body)} | ({} if first else {":old": version})
    with aws_call("dynamodb:UpdateItem"):
        return conditional(
            lambda: table.update_item(
                Key=key,
                UpdateExpression="SET #v = :new, body = :body",
                ConditionExpression="attribute_not_exists(#k)" if first else "#v = :old",
                ExpressionAttributeNames={"#v": "version"} | ({"#k": key_attr} if first else {}),
                ExpressionAttributeValues=values,
            )
        )


# ---------------------------------------------------------------- pages of a Query, with a cursor


def encode_cursor(key: dict[str, Any], scope: list[Any]) -> str:
    """An opaque nextToken: the key to continue after, and the filters it belongs to."""
    raw = json.dumps({"k": plain(key), "s": scope}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(token: str | None, scope: list[Any]) -> dict[str, Any] | None:
    """The key a nextToken continues after; InvalidInput when it is not one this listing returned."""
    if not token:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        key = data["k"]
        if data.get("s") != scope or not isinstance(key, dict):
            raise ValueError("scope")
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(
            "nextToken is not one this listing returned with these filters; "
            "list again without it, or with the filters that gave it.",
            field="query.nextToken",
            rule="cursor",
        ) from exc
    return key


def query_page(
    table: Any, query: dict[str, Any], key_fields: tuple[str, ...], limit: int, start: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Up to ``limit`` items of a Query (a FilterExpression may thin each page) and the key to
    continue after, or None at the end. Never a Scan: a Scan stops at 1 MB and reads every record."""
    items: list[dict[str, Any]] = []
    while True:
        kwargs = {**query, "Limit": limit}
        if start:
            kwargs["ExclusiveStartKey"] = start
        answer = table.query(**kwargs)
        more = answer.get("LastEvaluatedKey")
        page = answer.get("Items", [])
        for index, item in enumerate(page):
            items.append(item)
            if len(items) == limit:
                if index == len(page) - 1 and not more:
                    return items, None
                return items, {f: item[f] for f in key_fields}
        if not more:
            return items, None
        start = more
