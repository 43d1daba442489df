"""The one error envelope, used by REST and MCP alike."""

from __future__ import annotations

from pydantic import Field

from launchpod.contracts.common import Contract


class ErrorDetail(Contract):
    """One broken rule: which field (a dotted path), which rule, and what to do about it."""

    field: str | None = Field(default=None, examples=["body.name"])
    rule: str = Field(examples=["string_pattern_mismatch"])
    message: str


class ErrorView(Contract):
    code: str = Field(examples=["NOT_FOUND"])
    message: str
    details: list[ErrorDetail] = Field(default_factory=list)
    requestId: str | None = None
