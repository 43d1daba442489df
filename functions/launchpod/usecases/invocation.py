"""The Lambda invocation being served, kept for the use cases that need its context (the idempotency records
bound by its remaining time). A leaf: the API's handler records every invocation, and the import must cost
its cold start nothing."""

from __future__ import annotations

from typing import Any

_current: list[Any] = [None]


def remember(context: Any) -> None:
    _current[0] = context


def current() -> Any:
    """The context of the invocation being served, or None outside Lambda."""
    return _current[0]
