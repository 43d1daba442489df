"""Small helpers shared by the table adapters."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

_SER = TypeSerializer()
_DESER = TypeDeserializer()


def plain(value: Any) -> Any:
    """DynamoDB numbers come back as Decimal; contracts want int and float."""
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
