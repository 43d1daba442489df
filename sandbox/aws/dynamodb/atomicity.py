"""DynamoDB calls made atomic, as DynamoDB is."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from sandbox.aws.core import once, patch

_DYNAMODB_ITEM_CALLS = (
    "get_item",
    "put_item",
    "update_item",
    "delete_item",
    "query",
    "scan",
    "batch_get_item",
    "batch_write_item",
    "transact_get_items",
    "transact_write_items",
)


@once
def install_dynamodb_atomicity() -> None:
    """Make each DynamoDB call atomic, as DynamoDB is.

    moto applies an UpdateExpression's actions to the stored item one at a time, so a GetItem in
    another thread can see an operation already FAILED but without its message yet. One re-entrant
    lock around the item calls gives readers whole items (the stream's Lambda runs inside the write,
    in the same thread, so the lock must be re-entrant). The lock also spans the response: moto's
    GetItem hands the stored item itself to its serializer, which walked a map another thread's
    UpdateItem was changing ("dictionary changed size during iteration", a 502 in a full CI run).
    """
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.responses import DynamoHandler

    lock = threading.RLock()

    def guarded(original: Callable[..., Any]) -> Callable[..., Any]:
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            with lock:
                return original(self, *args, **kwargs)

        return call

    for name in _DYNAMODB_ITEM_CALLS:
        setattr(DynamoDBBackend, name, guarded(getattr(DynamoDBBackend, name)))
    patch(DynamoHandler, "call_action", guarded(DynamoHandler.call_action))
