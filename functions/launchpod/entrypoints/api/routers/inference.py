"""A cluster's inference endpoints: deploy, scale and delete (the inference workflow), list and read
(straight from the cluster, or from the deploy operation until it applied the objects), invoke (a chat
completion the API sends to the endpoint's own Service, also at the OpenAI-compatible
``.../openai/v1/chat/completions`` and ``.../openai/v1/models``) and a model pool pod's reassignment, both
planned first (``dryRun``). Each route is parse, one use case (launchpod.usecases.inference, or
launchpod.usecases.endpoint_chat for the calls to an endpoint), dump."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from launchpod.contracts.chat import ChatCompletionRequest, ChatCompletionView, OpenAIModelListView
from launchpod.contracts.inference import (
    AssignPodRequest,
    AssignPodView,
    CreateEndpointInput,
    CreateEndpointRequest,
    EndpointListView,
    EndpointView,
    InvokeEndpointRequest,
    InvokeView,
    ScaleEndpointInput,
    ScaleEndpointRequest,
)
from launchpod.contracts.operations import NoopView, OperationAcceptedView
from launchpod.contracts.plans import PlanView
from launchpod.entrypoints.api.routing import (
    ClusterPath,
    DryRunQuery,
    EndpointPath,
    JsonBody,
    Planned,
    answer,
    input_of,
    json_response,
    route,
)
from launchpod.usecases import endpoint_chat
from launchpod.usecases import inference as cases

router = APIGatewayRouter()


@route(router, "create_endpoint")
def create_endpoint(
    name: ClusterPath, body: JsonBody[CreateEndpointRequest], dryRun: DryRunQuery = False
) -> Planned[OperationAcceptedView]:
    request = input_of(CreateEndpointInput, body, name=name)
    return answer(cases.create(request, who=router.context["principal"], ports=cases.real()), dryRun)


@route(router, "list_endpoints")
def list_endpoints(name: ClusterPath) -> EndpointListView:
    return cases.list_all(name, ports=cases.real())


@route(router, "get_endpoint")
def get_endpoint(name: ClusterPath, endpoint: EndpointPath) -> EndpointView:
    return cases.get(name, endpoint, ports=cases.real())


@route(router, "scale_endpoint")
def scale_endpoint(
    name: ClusterPath, endpoint: EndpointPath, body: JsonBody[ScaleEndpointRequest]
) -> Response[OperationAcceptedView | NoopView]:
    request = ScaleEndpointInput(name=name, endpoint=endpoint, replicas=body.replicas)
    return answer(cases.scale(request, who=router.context["principal"], ports=cases.real()), False)


@route(router, "delete_endpoint")
def delete_endpoint(name: ClusterPath, endpoint: EndpointPath) -> Response[OperationAcceptedView | NoopView]:
    return answer(cases.delete(name, endpoint, who=router.context["principal"], ports=cases.real()), False)


@route(router, "invoke_endpoint")
def invoke_endpoint(
    name: ClusterPath, endpoint: EndpointPath, body: JsonBody[InvokeEndpointRequest], dryRun: DryRunQuery = False
) -> Planned[InvokeView]:
    return json_response(endpoint_chat.invoke(name, endpoint, body, dryRun, ports=cases.real()))


@route(router, "create_chat_completion")
def create_chat_completion(
    name: ClusterPath, endpoint: EndpointPath, body: JsonBody[ChatCompletionRequest], dryRun: DryRunQuery = False
) -> Response[ChatCompletionView | NoopView | PlanView | str]:  # str: the text/event-stream body
    result = endpoint_chat.chat_completion(name, endpoint, body, dryRun, ports=cases.real())
    if not body.stream or not isinstance(result, ChatCompletionView):
        return json_response(result)
    # Server-sent events in one buffered response. API Gateway can stream a REST API's Lambda proxy
    # integration (responseTransferMode STREAM, through InvokeWithResponseStream:
    # https://docs.aws.amazon.com/apigateway/latest/developerguide/response-transfer-mode-lambda.html), but
    # Lambda streams a response only from its Node.js runtime or a custom runtime
    # (https://docs.aws.amazon.com/lambda/latest/dg/configuration-response-streaming.html); this Python
    # function returns the whole stream at once, which OpenAI's clients read as they read a live one.
    include_usage = body.stream_options is not None and body.stream_options.include_usage
    return Response(
        status_code=200,
        content_type="text/event-stream",
        body=endpoint_chat.server_sent_events(result, include_usage),
        headers={"Cache-Control": "no-cache"},
    )


@route(router, "list_endpoint_models")
def list_endpoint_models(name: ClusterPath, endpoint: EndpointPath) -> OpenAIModelListView:
    return endpoint_chat.models(name, endpoint, ports=cases.real())


@route(router, "assign_pod")
def assign_pod(
    name: ClusterPath, pool: EndpointPath, body: JsonBody[AssignPodRequest], dryRun: DryRunQuery = False
) -> Planned[AssignPodView]:
    return json_response(cases.assign(name, pool, body, dryRun, ports=cases.real()))
