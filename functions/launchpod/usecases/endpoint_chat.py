"""Calls to a deployed endpoint through its own Service: invoke (Launchpod's chat request), the
OpenAI-compatible chat completion (answered whole, or as server-sent events) and the model the endpoint
lists, each after the same checks (an ACTIVE cluster, an endpoint that serves and has a Service) and planned
first for ``dryRun``. The endpoints themselves (deploy, scale, delete, views) are usecases/inference.py's."""

from __future__ import annotations

from typing import Any

from launchpod.contracts.chat import ChatCompletionRequest, ChatCompletionView, OpenAIModelListView
from launchpod.contracts.inference import InvokeEndpointRequest, InvokeView
from launchpod.contracts.operations import NoopView
from launchpod.contracts.plans import PlanView
from launchpod.domain.errors import Conflict, PermanentError
from launchpod.domain.inference import chat, endpoints
from launchpod.domain.inference.endpoints import RealEndpoint
from launchpod.usecases import inference
from launchpod.usecases.inference import InferencePorts
from launchpod.usecases.proposal import at_once


def invoke(
    name: str, endpoint: str, request: InvokeEndpointRequest, dry_run: bool = False, *, ports: InferencePorts
) -> InvokeView | NoopView | PlanView:
    """The chat completion sent to the endpoint's own Service and its answer; a dry run makes the same checks
    (the endpoint serves, it has a Service) and answers the one step, sending nothing."""
    real = _serving(name, endpoint, ports)

    def send() -> InvokeView:
        payload: dict[str, Any] = {"messages": [m.model_dump() for m in request.messages]}
        payload["max_tokens"] = request.limit
        if request.temperature is not None:
            payload["temperature"] = request.temperature
        answer, truncated = ports.endpoints.chat(name, real, payload)
        return endpoints.invoke_view(endpoint, answer, truncated)

    plan = endpoints.invoke_plan(name, real, len(request.messages), request.limit)  # one step: never NOOP
    return at_once(plan, dry_run, "", send)


def _serving(name: str, endpoint: str, ports: InferencePorts) -> RealEndpoint:
    """The endpoint, once it serves (Ready, or Degraded with some replicas) and has a Service to call."""
    inference.active(name, ports)
    real = inference.existing(name, endpoint, ports)
    status, message = endpoints.status_of(real)
    if status not in ("Ready", "Degraded"):
        raise Conflict(
            f"Endpoint {endpoint} is {status}" + (f": {message}" if message else "") + "; invoke it once Ready."
        )
    if real.service is None or real.port is None:
        raise Conflict(f"Endpoint {endpoint} has no Service to send the request to yet; invoke it once it has one.")
    return real


def chat_completion(
    name: str, endpoint: str, request: ChatCompletionRequest, dry_run: bool = False, *, ports: InferencePorts
) -> ChatCompletionView | NoopView | PlanView:
    """The OpenAI-compatible chat completion: the same checks and the same call as ``invoke``, answered in
    OpenAI's chat.completion shape. The server is asked for the whole answer (never ``stream``): the API
    answers a stream from it (domain.inference.chat.chunks_of), as one buffered response in any case."""
    real = _serving(name, endpoint, ports)

    def send() -> ChatCompletionView:
        payload: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.text()} for m in request.messages],
            "max_tokens": request.limit,
            **request.sampling(),
        }
        answer, truncated = ports.endpoints.chat(name, real, payload)
        if truncated:
            raise PermanentError(
                f"The endpoint {endpoint} answered more than Launchpod returns (256 KiB); ask for fewer tokens"
                " (max_completion_tokens)."
            )
        return chat.completion_of(answer, endpoint)

    plan = endpoints.invoke_plan(name, real, len(request.messages), request.limit)
    return at_once(plan, dry_run, "", send)


def server_sent_events(completion: ChatCompletionView, include_usage: bool) -> str:
    """The completion as a text/event-stream body of OpenAI's chunks, ending ``data: [DONE]``."""
    return chat.server_sent_events(chat.chunks_of(completion, include_usage))


def models(name: str, endpoint: str, *, ports: InferencePorts) -> OpenAIModelListView:
    """The model the endpoint serves, as its server lists it (OpenAI's GET /v1/models)."""
    real = _serving(name, endpoint, ports)
    return chat.models_of(ports.endpoints.models(name, real), endpoint)
