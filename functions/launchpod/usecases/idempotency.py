"""The Idempotency-Key header, on powertools' idempotency utility.

The key is scoped to the caller; reusing it with a different request is refused (422) rather
than silently answered with the first request's result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyValidationError,
)

from launchpod.contracts.operations import OperationAcceptedView, OperationView
from launchpod.domain.errors import Conflict, InvalidInput
from launchpod.runtime import wiring
from launchpod.usecases import invocation
from launchpod.usecases.proposal import Proposal

_CONFIG = IdempotencyConfig(
    event_key_jmespath="[key, subject]",
    payload_validation_jmespath="request",
    expires_after_seconds=24 * 3600,
)


def _bound_by_invocation() -> None:
    """Bound a request's in-progress record by this invocation's remaining time: an invocation that times out or
    whose environment dies never marks its record done, and without the bound a resend with the same key is
    refused as still in progress until the record expires, a day later (powertools, "Idempotency: Handling
    Lambda timeouts", https://docs.powertools.aws.dev/lambda/python/latest/utilities/idempotency/#handling-lambda-timeouts)."""
    context = invocation.current()
    if context is not None:
        _CONFIG.register_lambda_context(context)


def once(key: str | None, subject: str, request: dict[str, Any], run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``run`` once per (Idempotency-Key, caller); later calls get the first result back."""
    if not key:
        return run()
    _bound_by_invocation()

    # powertools' idempotent_function is not annotated
    @idempotent_function(  # type: ignore[untyped-decorator]
        data_keyword_argument="data", persistence_store=wiring.idempotency_store(), config=_CONFIG
    )
    def mutate(data: dict[str, Any]) -> dict[str, Any]:
        return run()

    try:
        return dict(mutate(data={"key": key, "subject": subject, "request": request}))
    except IdempotencyValidationError as exc:
        raise InvalidInput(
            "This Idempotency-Key was used with a different request; use a new key for a new request.",
            field="header.Idempotency-Key",
            rule="idempotency_key_reused",
        ) from exc
    except IdempotencyAlreadyInProgressError as exc:
        raise Conflict("A request with this Idempotency-Key is still being processed; retry in a moment.") from exc


def guarded(proposal: Proposal, key: str | None, subject: str, request: dict[str, Any]) -> Proposal:
    """``proposal`` whose start runs once per (Idempotency-Key, caller): a repeat gets the first operation."""

    def start() -> OperationView:
        def run() -> dict[str, Any]:
            operation = proposal.start()
            return OperationAcceptedView(operation=operation, statusUrl=operation.statusUrl).model_dump(mode="json")

        return OperationAcceptedView.model_validate(once(key, subject, request, run)).operation

    return replace(proposal, start=start)
