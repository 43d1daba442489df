"""The one error envelope, used by REST and MCP alike."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from launchpod.contracts.common import Contract


class ErrorCode(StrEnum):
    """Every error code REST and MCP answer with: one list, so both paths say the same thing."""

    VALIDATION_FAILED = "VALIDATION_FAILED"  # the request breaks a rule; details name the field
    BAD_REQUEST = "BAD_REQUEST"  # the request cannot be read (not JSON, wrong content type)
    UNAUTHORIZED = "UNAUTHORIZED"  # no token, or one that cannot be verified
    FORBIDDEN = "FORBIDDEN"  # the caller's role may not do this
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"  # a body that is not application/json
    CONFLICT = "CONFLICT"  # the cluster is busy, or in a state that does not allow this
    FAILED = "FAILED"  # trying again as is will fail again; the message says what to change
    RETRYABLE = "RETRYABLE"  # worth trying again as is
    INTERNAL = "INTERNAL"
    # Raised by the MCP gateway itself, between the agent and the REST API.
    UPSTREAM_TIMEOUT = "UPSTREAM_TIMEOUT"
    UPSTREAM_UNAVAILABLE = "UPSTREAM_UNAVAILABLE"
    UPSTREAM_NOT_JSON = "UPSTREAM_NOT_JSON"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"


class ErrorDetail(Contract):
    """One broken rule: which field (a dotted path), which rule, and what to do about it."""

    field: str | None = Field(default=None, examples=["body.name"])
    rule: str = Field(examples=["string_pattern_mismatch"])
    message: str


class ErrorView(Contract):
    code: ErrorCode = Field(examples=["NOT_FOUND"])
    message: str
    details: list[ErrorDetail] = Field(default_factory=list)
    requestId: str | None = None
