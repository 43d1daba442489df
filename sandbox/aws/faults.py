"""Fault injection and call counting for the emulated AWS services.

``FAULTS`` lets the sandbox and the tests make AWS misbehave the way it does in production: a one-shot
capacity error on EKS CreateCluster (``UnsupportedAvailabilityZoneException``), and a fraction of calls
throttled with each service's own throttling error so botocore's retry logic treats them exactly as it
treats AWS's. It also counts every completed call per (service, operation), so a test can assert
"exactly one successful CreateCluster".

The hook sits at the one place both moto modes share: each backend's URL table (``BaseBackend.urls``
for the in-process ``mock_aws`` stubber, ``BaseBackend.url_paths`` for ``ThreadedMotoServer``'s Flask
apps). Every handler in those tables is wrapped in a gate that decides, before moto runs, whether to
answer with an injected error. ThreadedMotoServer builds each service's Flask app lazily on its first
request, so ``install_fault_hook()`` must run before the server serves anything. The sandbox's own
plumbing (Lambda, Step Functions, DynamoDB, API Gateway) is never faulted.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import logging
import random
import re
import threading
import uuid
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs

from sandbox.aws.core import once, patch

log = logging.getLogger("sandbox.aws.faults")

DEFAULT_THROTTLED_SERVICES = ("ec2", "eks", "iam", "sagemaker", "sts", "s3")

#: Services that carry the sandbox itself: faulting them would break the harness, not the code under test.
#: Their calls are still counted.
NEVER_FAULTED = frozenset(
    {
        "lambda",
        "states",
        "stepfunctions",
        "dynamodb",
        "dynamodbstreams",
        "apigateway",
        "apigatewayv2",
        "apigatewaymanagementapi",
        "moto_api",
    }
)

# moto package name -> boto3 client name, where they differ; counters and settings use the latter.
_MOTO_TO_CLIENT_NAME = {
    "awslambda": "lambda",
    "cognitoidp": "cognito-idp",
    "sagemakerruntime": "sagemaker-runtime",
    "servicequotas": "service-quotas",
}

_ZONES = ("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f")
_EKS_UNSUPPORTED_ZONE = "us-east-1e"  # the zone EKS really refuses for control planes in us-east-1

Response = tuple[int, dict[str, Any], Any]


class Faults:
    """Thread-safe fault settings and call counters; use the module-level ``FAULTS``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rng = random.Random()
        self._reset_locked()

    def _reset_locked(self) -> None:
        self._eks_create_armed = False
        self._eks_create_message: str | None = None
        self._throttle_fraction = 0.0
        self._throttle_services: frozenset[str] = frozenset()
        self._completed: collections.Counter[tuple[str, str]] = collections.Counter()
        self._throttled: collections.Counter[tuple[str, str]] = collections.Counter()
        self._injected_eks_failures = 0

    # ------------------------------------------------------------------ settings

    def fail_next_eks_create(self, message: str | None = None) -> None:
        """Make the next EKS CreateCluster fail with UnsupportedAvailabilityZoneException (one-shot).

        Without ``message`` the error names a zone without capacity, worded as AWS words it.
        """
        with self._lock:
            self._eks_create_armed = True
            self._eks_create_message = message

    def throttle(
        self, fraction: float, services: Iterable[str] = DEFAULT_THROTTLED_SERVICES, seed: int | None = None
    ) -> None:
        """Throttle ``fraction`` (0..1) of the calls to ``services`` with each service's throttling error.

        ``fraction=0`` turns throttling off. ``seed`` makes the random choice reproducible.
        """
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"fraction must be within [0, 1], got {fraction!r}")
        chosen = frozenset(services)
        forbidden = chosen & NEVER_FAULTED
        if forbidden:
            raise ValueError(f"{sorted(forbidden)} carry the sandbox itself and are never throttled")
        with self._lock:
            self._throttle_fraction = float(fraction)
            self._throttle_services = chosen if fraction > 0 else frozenset()
            if seed is not None:
                self._rng.seed(seed)

    def clear(self) -> None:
        """Disarm every fault and zero every counter."""
        with self._lock:
            self._reset_locked()

    # ------------------------------------------------------------------ observations

    @property
    def calls(self) -> int:
        """Successful EKS CreateCluster calls (the call tests most often count)."""
        return self.count("eks", "CreateCluster")

    def count(self, service: str, operation: str) -> int:
        """Completed (not fault-injected, HTTP status < 400) calls of ``service``'s ``operation``."""
        with self._lock:
            return self._completed[(service, operation)]

    def describe(self) -> dict[str, Any]:
        """The current settings and counters as a JSON-able dict."""
        with self._lock:
            return {
                "eksCreateFailureArmed": self._eks_create_armed,
                "eksCreateFailureMessage": self._eks_create_message,
                "injectedEksCreateFailures": self._injected_eks_failures,
                "throttle": {
                    "fraction": self._throttle_fraction,
                    "services": sorted(self._throttle_services),
                },
                "throttledCalls": sum(self._throttled.values()),
                "throttledByOperation": {f"{s}:{o}": n for (s, o), n in sorted(self._throttled.items())},
                "completedCalls": {f"{s}:{o}": n for (s, o), n in sorted(self._completed.items())},
            }

    # ------------------------------------------------------------------ used by the gate

    def _decide(self, service: str, operation: str) -> str | None:
        """Return "eks-create", "throttle" or None, consuming one-shot faults atomically."""
        with self._lock:
            if service == "eks" and operation == "CreateCluster" and self._eks_create_armed:
                self._eks_create_armed = False
                self._injected_eks_failures += 1
                return "eks-create"
            if service in self._throttle_services and self._rng.random() < self._throttle_fraction:
                self._throttled[(service, operation)] += 1
                return "throttle"
            return None

    def _eks_create_message_or_default(self) -> str | None:
        with self._lock:
            return self._eks_create_message

    def _record_completed(self, service: str, operation: str) -> None:
        with self._lock:
            self._completed[(service, operation)] += 1


FAULTS = Faults()


# ============================================================================ error documents


def _request_id() -> str:
    return str(uuid.uuid4())


def _json_error(code: str, message: str, status: int, rest: bool, extra: dict[str, Any] | None = None) -> Response:
    body: dict[str, Any] = {"message": message, **(extra or {})}
    if rest:
        content_type = "application/json"
    else:
        body["__type"] = code
        content_type = "application/x-amz-json-1.1"
    headers = {"x-amzn-ErrorType": code, "x-amzn-RequestId": _request_id(), "Content-Type": content_type}
    return status, headers, json.dumps(body)


def _throttle_response(service: str, request: Any) -> Response | None:
    """The throttling error ``service`` really returns, in the wire format of ``request``'s protocol."""
    content_type = (request.headers.get("Content-Type") or "").lower()
    if request.headers.get("smithy-protocol"):
        return None  # RPCv2-CBOR: no encoder at hand; let the call through rather than answer garbage.
    if request.headers.get("X-Amz-Target") or ("json" in content_type and service != "s3"):
        rest = not request.headers.get("X-Amz-Target")
        # JSON RPC services (SageMaker) answer 400; REST-JSON ones (EKS) 429 Too Many Requests.
        return _json_error("ThrottlingException", "Rate exceeded", 429 if rest else 400, rest)
    if content_type.startswith("application/x-www-form-urlencoded") or "Action" in request.args:
        if service == "ec2":
            # EC2's own protocol: <Response><Errors>; AWS sends RequestLimitExceeded with HTTP 503.
            body = (
                "<Response><Errors><Error><Code>RequestLimitExceeded</Code>"
                "<Message>Request limit exceeded.</Message></Error></Errors>"
                f"<RequestID>{_request_id()}</RequestID></Response>"
            )
            return 503, {"Content-Type": "text/xml"}, body
        body = (
            "<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code>"
            f"<Message>Rate exceeded</Message></Error><RequestId>{_request_id()}</RequestId></ErrorResponse>"
        )
        return 400, {"Content-Type": "text/xml"}, body
    if service == "s3":
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
            "<Message>Please reduce your request rate.</Message>"
            f"<RequestId>{_request_id()}</RequestId></Error>"
        )
        return 503, {"Content-Type": "application/xml"}, body
    return _json_error("ThrottlingException", "Rate exceeded", 429, rest=True)


def _subnet_zone(subnet_ids: list[str], region: str) -> str | None:
    """The zone of the first of ``subnet_ids`` that moto's EC2 knows, in any account."""
    from moto.ec2.models import ec2_backends

    for account, subnet_id in itertools.product(list(ec2_backends), subnet_ids):
        with contextlib.suppress(Exception):  # not this account's subnet, or not one moto knows
            return str(ec2_backends[account][region].get_subnet(subnet_id).availability_zone)
    return None


def _eks_capacity_response(request: Any, full_url: str) -> Response:
    try:
        body = json.loads(request.get_data(cache=True) or b"{}")
    except ValueError:
        body = {}
    name = body.get("name", "")
    region_match = re.search(r"eks\.([a-z0-9-]+)\.amazonaws", full_url)
    region = region_match.group(1) if region_match else "us-east-1"
    # EKS names the targeted zone, where one of the request's subnets is ("At least one of your specified cluster
    # subnets is in an Availability Zone that does not support Amazon EKS"; validZones: the zones to choose
    # subnets from: UnsupportedAvailabilityZoneException, https://docs.aws.amazon.com/botocore/latest/reference/
    # services/eks/client/exceptions/UnsupportedAvailabilityZoneException.html), and the way out is the cluster
    # created again in those zones (https://repost.aws/knowledge-center/eks-cluster-creation-errors).
    unsupported = _EKS_UNSUPPORTED_ZONE.replace("us-east-1", region)
    subnets = (body.get("resourcesVpcConfig") or {}).get("subnetIds") or []
    bad_zone = _subnet_zone([str(s) for s in subnets], region) or unsupported
    zones = [z.replace("us-east-1", region) for z in _ZONES]
    zones = [z for z in zones if z not in (bad_zone, unsupported)]
    message = FAULTS._eks_create_message_or_default() or (
        f"Cannot create cluster '{name}' because {bad_zone}, the targeted availability zone, does not "
        "currently have sufficient capacity to support the cluster. Retry and choose from these "
        f"availability zones: {', '.join(zones)}"
    )
    return _json_error(
        "UnsupportedAvailabilityZoneException",
        message,
        400,
        rest=True,
        extra={"clusterName": name, "validZones": zones},
    )


# ============================================================================ the gate


def _operation_name(service: str, request: Any) -> str:
    """The botocore operation name of a raw request, for every protocol moto serves."""
    target = request.headers.get("X-Amz-Target")
    if target:
        return str(target).rsplit(".", 1)[-1]
    action = request.args.get("Action")
    if action:
        return str(action)
    content_type = (request.headers.get("Content-Type") or "").lower()
    if content_type.startswith("application/x-www-form-urlencoded") and not request.headers.get("Content-Encoding"):
        # get_data(cache=True) keeps the body for moto, which reads request.data afterwards.
        values = parse_qs(request.get_data(cache=True, as_text=True))
        if values.get("Action"):
            return str(values["Action"][0])
    try:
        from moto.core.routing import get_service_router

        operation, _ = get_service_router(service).match(request)
        return str(operation.name)
    except Exception:
        return "Unknown"


#: Set on the calls AWS's own services make for the sandbox (Lambda assuming a function's execution role to start
#: its environment): they are not the code under test's calls, and an injected fault must not fail them.
SERVICE_CALL_HEADER = "X-Launchpod-Sandbox-Service"


def _gate(service: str, handler: Callable[..., Response]) -> Callable[..., Response]:
    def gated(request: Any, full_url: str, headers: Any) -> Response:
        operation = _operation_name(service, request)
        fault = None if request.headers.get(SERVICE_CALL_HEADER) else FAULTS._decide(service, operation)
        if fault == "eks-create":
            log.info("injecting UnsupportedAvailabilityZoneException into eks:CreateCluster")
            return _eks_capacity_response(request, full_url)
        if fault == "throttle":
            response = _throttle_response(service, request)
            if response is not None:
                return response
        status, response_headers, body = handler(request, full_url, headers)
        if int(status) < 400:
            FAULTS._record_completed(service, operation)
        return status, response_headers, body

    gated.__name__ = getattr(handler, "__name__", "handler")
    gated.__qualname__ = getattr(handler, "__qualname__", gated.__name__)
    gated.__wrapped__ = handler  # type: ignore[attr-defined]
    if hasattr(handler, "__self__"):
        # moto's server names Flask endpoints "<ResponseClass>.dispatch" from handler.__self__.
        gated.__self__ = handler.__self__  # type: ignore[attr-defined]
    return gated


_gates: dict[tuple[str, Any], Callable[..., Response]] = {}


def _service_of(backend: Any) -> str:
    parts = type(backend).__module__.split(".")
    name = parts[1] if len(parts) > 1 and parts[0] == "moto" else parts[0]
    return _MOTO_TO_CLIENT_NAME.get(name, name)


def _gated_table(backend: Any, table: dict[str, Callable[..., Response]]) -> dict[str, Callable[..., Response]]:
    service = _service_of(backend)
    if service == "moto_api":  # /moto-api/reset and friends are not AWS calls
        return table
    out = {}
    for path, handler in table.items():
        key = (service, handler)
        gate = _gates.get(key)
        if gate is None:
            gate = _gates.setdefault(key, _gate(service, handler))
        out[path] = gate
    return out


@once
def install_fault_hook() -> None:
    """Wrap every moto backend's URL handlers in the fault gate (idempotent)."""
    from moto.core.base_backend import BaseBackend

    original_urls = vars(BaseBackend)["urls"].fget  # properties
    original_url_paths = vars(BaseBackend)["url_paths"].fget

    # In-process mode: BotocoreStubber reads backend.urls on every request.
    patch(BaseBackend, "urls", property(lambda self: _gated_table(self, original_urls(self))))
    # Server mode: create_backend_app reads backend.flask_paths -> url_paths once per service.
    patch(BaseBackend, "url_paths", property(lambda self: _gated_table(self, original_url_paths(self))))
