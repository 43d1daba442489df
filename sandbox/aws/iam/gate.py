"""Per-function identity and the IAM gate every in-process AWS call passes.

Each Lambda handler runs as its own role: ``CALLER`` names the function while its handler runs (set
by the in-process Lambda shim), and every boto3 call made meanwhile is authorized, before moto serves
it, against that function's statements from ``launchpod.policies`` (the statements CDK deploys).
Calls made outside a handler (the sandbox itself, tests, AWS services acting) are not evaluated.

A denied call raises the ClientError the service returns on AWS, with IAM's message naming the
principal, action and resource. Every decision is counted, so ``report()`` gives totals, the denies
and, per function, the granted actions never used. ``deny(function, action)`` removes one grant
until ``clear_denies()``.
"""

from __future__ import annotations

import collections
import contextvars
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from launchpod import policies

from sandbox.aws.core import once, patch
from sandbox.aws.iam import authz, propagation
from sandbox.aws.iam.policy import AuthzRequest, evaluate, glob_match
from sandbox.aws.state import STATE
from sandbox.lambda_env.runtime import refused_error

#: The function (its deployed name, e.g. "launchpod-ccp-access-entry") whose handler is running.
CALLER: contextvars.ContextVar[str | None] = contextvars.ContextVar("launchpod_caller", default=None)

# How each protocol's service answers a denied call: (error code, HTTP status).
_DENIAL_BY_PROTOCOL = {
    "query": ("AccessDenied", 403),
    "rest-xml": ("AccessDenied", 403),
    "ec2": ("UnauthorizedOperation", 403),
}
_JSON_DENIAL = ("AccessDeniedException", 400)  # SageMaker, DynamoDB, Step Functions (awsJson)
_REST_JSON_DENIAL = ("AccessDeniedException", 403)  # EKS, Lambda, API Gateway management


@dataclass
class FunctionIdentity:
    name: str  # deployed function name
    role_name: str
    role_arn: str
    statements: list[dict[str, Any]]

    @property
    def principal(self) -> str:
        # Lambda's session name is the function name (Lambda developer guide, "Lambda execution role").
        account = self.role_arn.split(":")[4]
        return f"arn:aws:sts::{account}:assumed-role/{self.role_name}/{self.name}"


@dataclass(frozen=True)
class Denial:
    function: str
    action: str
    resource: str
    reason: str
    decision: str
    message: str
    operation: str


@dataclass
class _State:
    identities: dict[str, FunctionIdentity] = field(default_factory=dict)
    denied_grants: set[tuple[str, str]] = field(default_factory=set)
    decisions: collections.Counter[tuple[str, str, str, str]] = field(default_factory=collections.Counter)
    denials: collections.deque[Denial] = field(default_factory=lambda: collections.deque(maxlen=500))
    enabled: bool = True
    seconds: float = 0.0  # time spent authorizing (for the benchmark's overhead figure)
    authorized: int = 0
    account: str = "123456789012"
    region: str = "us-east-1"
    prefix: str = "launchpod"


class IamGate:
    """The sandbox's IAM: who each function is, what it may do, and what it did."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = _State()

    # ------------------------------------------------------------------ configuration
    def configure(
        self, identities: dict[str, FunctionIdentity], account: str, region: str, prefix: str = "launchpod"
    ) -> None:
        with self._lock:
            self._state = _State(identities=dict(identities), account=account, region=region, prefix=prefix)

    def set_enabled(self, enabled: bool) -> None:
        with self._lock:
            self._state.enabled = enabled

    @property
    def enabled(self) -> bool:
        return self._state.enabled

    def deny(self, function: str, action: str) -> None:
        """Remove ``action`` from ``function``'s grants (registry name or deployed name)."""
        name = self._deployed(function)
        if name not in self._state.identities:
            raise KeyError(f"no function {function!r}; names are the registry's (e.g. ccp-access-entry)")
        if ":" not in action:
            raise ValueError(f"actions are 'service:Action', got {action!r}")
        with self._lock:
            self._state.denied_grants.add((name, action.lower()))

    def clear_denies(self) -> None:
        with self._lock:
            self._state.denied_grants.clear()

    def reset_log(self) -> None:
        with self._lock:
            self._state.decisions.clear()
            self._state.denials.clear()

    def _deployed(self, function: str) -> str:
        if function in self._state.identities:
            return function
        return f"{self._state.prefix}-{function}"

    # ------------------------------------------------------------------ decisions
    def authorize(self, function: str, call: authz.Call, lookup: authz.Lookup | None = None) -> Denial | None:
        """None when every check passes, else the first denial (recorded). ``lookup`` reads the
        account's state (the emulated account's by default)."""
        state = self._state
        identity = state.identities.get(function)
        if identity is None or not state.enabled or (call.prefix, call.operation) in authz.UNAUTHORIZED_CALLS:
            return None
        started = time.perf_counter()
        try:
            # the account's state in the Region the call went to (a cluster's resources live in its own Region)
            return self._authorize(function, identity, call, lookup or _MotoLookup(state.account, call.region))
        finally:
            with self._lock:
                state.seconds += time.perf_counter() - started
                state.authorized += 1

    def _authorize(
        self, function: str, identity: FunctionIdentity, call: authz.Call, lookup: authz.Lookup
    ) -> Denial | None:
        state = self._state
        for check in authz.checks(call, lookup):
            decision = self._decide(identity, check.request)
            if decision == "Allow" and check.request.action == "sts:AssumeRole":
                decision = lookup.trusts(check.request.resource, identity.role_arn)  # type: ignore[attr-defined]
            with self._lock:
                state.decisions[(function, check.request.action, check.request.resource, decision)] += 1
            if decision != "Allow":
                denial = Denial(
                    function=function,
                    action=check.request.action,
                    resource=check.request.resource,
                    reason=check.reason,
                    decision=decision,
                    message=_message(identity, check.request, decision),
                    operation=f"{call.prefix}:{call.operation}",
                )
                with self._lock:
                    state.denials.append(denial)
                return denial
            if check.on_allow:
                check.on_allow()
        return None

    def _decide(self, identity: FunctionIdentity, request: AuthzRequest) -> str:
        if (identity.name, request.action.lower()) in self._state.denied_grants:
            return "ImplicitDeny"
        return evaluate(identity.statements, request)

    # ------------------------------------------------------------------ report
    def report(self) -> dict[str, Any]:
        with self._lock:
            decisions = dict(self._state.decisions)
            denials = list(self._state.denials)
            identities = dict(self._state.identities)
        used: dict[str, set[str]] = collections.defaultdict(set)
        totals: collections.Counter[str] = collections.Counter()
        for (function, action, _resource, decision), count in decisions.items():
            totals[decision] += count
            if decision == "Allow":
                used[function].add(action.lower())
        unused = {}
        for name, identity in identities.items():
            granted = {a for s in identity.statements if s.get("Effect") == "Allow" for a in _actions(s)}
            never = sorted(
                a
                for a in granted - policies.RUNTIME_ACTIONS
                if not any(glob_match(a, u, ignore_case=True) for u in used.get(name, ()))
            )
            if never:
                unused[name] = never
        calls: collections.Counter[tuple[str, str]] = collections.Counter()
        for (function, action, _resource, _decision), count in decisions.items():
            calls[(function, action)] += count
        return {
            "enabled": self._state.enabled,
            # every call evaluated so far, by function and action (how the read-only tests see what ran)
            "calls": [{"function": f, "action": a, "count": n} for (f, a), n in sorted(calls.items())],
            "totals": {
                "calls": sum(totals.values()),
                "allowed": totals["Allow"],
                "denied": totals["ImplicitDeny"] + totals["ExplicitDeny"],
            },
            "denies": [d.__dict__ for d in denials],
            "removedGrants": sorted(f"{f}:{a}" for f, a in self._state.denied_grants),
            "unusedGrants": unused,
            "functions": len(identities),
            "cost": {
                "calls": self._state.authorized,
                "seconds": self._state.seconds,
                "microsecondsPerCall": 1e6 * self._state.seconds / max(self._state.authorized, 1),
            },
        }


def _actions(statement: dict[str, Any]) -> list[str]:
    value = statement.get("Action", [])
    return [value] if isinstance(value, str) else list(value)


def _message(identity: FunctionIdentity, request: AuthzRequest, decision: str) -> str:
    # IAM's wording since 2021 (IAM User Guide, "Troubleshoot access denied error messages").
    why = (
        "with an explicit deny in an identity-based policy"
        if decision == "ExplicitDeny"
        else f"because no identity-based policy allows the {request.action} action"
    )
    if request.action == "sts:AssumeRole" and decision == "NotTrusted":
        why = "because the role's trust policy does not allow this principal"
    return (
        f"User: {identity.principal} is not authorized to perform: {request.action} "
        f"on resource: {request.resource} {why}"
    )


class _MotoLookup(authz.Lookup):
    """Reads the emulated account's IAM and SageMaker state for the condition context."""

    def __init__(self, account: str, region: str) -> None:
        self.account, self.region = account, region

    def _iam(self) -> Any:
        from moto.iam.models import iam_backends

        return iam_backends[self.account]["global"]

    def _role(self, name: str) -> Any:
        try:
            return self._iam().get_role(name)
        except Exception:
            return None

    def role_boundary(self, role_name: str) -> str | None:
        role = self._role(role_name)
        return getattr(role, "permissions_boundary_arn", None) or None if role else None

    def role_exists(self, role_name: str) -> bool:
        return self._role(role_name) is not None

    def create_service_linked_role(self, service: str) -> None:
        name = next(n for s, n in policies.SERVICE_LINKED_ROLES.values() if s == service)
        if self.role_exists(name):
            return
        trust = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": [service]}, "Action": ["sts:AssumeRole"]}],
        }
        self._iam().create_role(
            name,
            json.dumps(trust),
            f"/aws-service-role/{service}/",
            None,
            f"Service-linked role for {service}",
            [],
            "3600",
            linked_service=service,
        )

    def hyperpod_eks_cluster(self, name: str) -> str | None:
        from moto.sagemaker.models import sagemaker_backends

        backend = sagemaker_backends[self.account][self.region]
        for cluster in backend.clusters.values():
            if name in (getattr(cluster, "cluster_name", None), getattr(cluster, "arn", None)):
                return ((getattr(cluster, "orchestrator", None) or {}).get("Eks") or {}).get("ClusterArn")
        return None

    def resource_tags(self, arn: str) -> dict[str, str]:
        if ":ec2:" not in arn:
            return {}
        from moto.ec2.models import ec2_backends

        region = arn.split(":")[3] or self.region  # the resource's own Region, as its ARN names it
        return dict(ec2_backends[self.account][region].tags.get(arn.rsplit("/", 1)[-1], {}))

    def trusts(self, role_arn: str, principal_role_arn: str) -> str:
        """AssumeRole also needs the target role's trust policy to allow the caller (IAM User Guide,
        "Granting a user permissions to switch roles")."""
        role = self._role(role_arn.rsplit("/", 1)[-1])
        if role is None:
            return "ImplicitDeny"
        document = role.assume_role_policy_document
        document = json.loads(document) if isinstance(document, str) else document
        for statement in document.get("Statement", []):
            principals = (statement.get("Principal") or {}).get("AWS", [])
            principals = [principals] if isinstance(principals, str) else principals
            if statement.get("Effect") == "Allow" and (
                principal_role_arn in principals or f"arn:aws:iam::{self.account}:root" in principals
            ):
                return "Allow"
        return "NotTrusted"


GATE = IamGate()


# ----------------------------------------------------------------------------- the botocore hook


def denial_code(protocol: str) -> tuple[str, int]:
    if protocol in _DENIAL_BY_PROTOCOL:
        return _DENIAL_BY_PROTOCOL[protocol]
    return _REST_JSON_DENIAL if protocol == "rest-json" else _JSON_DENIAL


# ------------------------------------------------------------------ the call log of mutations

_READS = ("Describe", "List", "Get", "Head", "Search", "Query", "Scan", "BatchGet", "Lookup", "Select")
_TARGET_PARAMS = ("name", "clusterName", "ClusterName", "RoleName", "roleName", "addonName", "TableName")


@dataclass
class MutationsState:
    """The mutating calls the gate let through."""

    mutations: collections.Counter[tuple[str, str]] = field(
        default_factory=collections.Counter
    )  # (action, target) -> mutating calls


def _state() -> MutationsState:
    return STATE.of(MutationsState)


_mutations_lock = threading.Lock()


def _target(params: dict[str, Any]) -> str:
    """What a call acts on, for counting: the cluster (or role, table) it names."""
    for key in _TARGET_PARAMS:
        if isinstance(params.get(key), str):
            return str(params[key])
    return ""


def record_mutation(action: str, target: str) -> None:
    with _mutations_lock:
        _state().mutations[(action, target)] += 1


def mutations(action: str | None = None) -> list[dict[str, Any]]:
    """Every successful mutating AWS call a Launchpod function made: action, target and count."""
    with _mutations_lock:
        items = sorted(_state().mutations.items())
    return [
        {"action": a, "target": t, "count": n} for (a, t), n in items if action is None or a.lower() == action.lower()
    ]


def refusal(
    function: str, prefix: str, operation: str, params: dict[str, Any], region: str | None, endpoint: str, protocol: str
) -> tuple[str, int, str] | None:
    """(error code, HTTP status, message) when the function's call is refused, as the service answers
    it: an IAM denial, or a refusal while IAM changes propagate; None when it may proceed."""
    call = authz.Call(
        prefix=prefix,
        operation=operation,
        params=params,
        region=region or GATE._state.region,
        account=GATE._state.account,
        endpoint=endpoint,
    )
    denial = GATE.authorize(function, call)
    if denial is not None:
        code, status = denial_code(protocol)
        return code, status, denial.message
    if GATE.enabled:
        refused = propagation.refusal(call)
        if refused is not None:
            code, message, status = refused
            return code, status, message
    return None


def succeeded(function: str, prefix: str, operation: str, params: dict[str, Any]) -> None:
    """Count a function's successful call among the mutations when it is one."""
    if not operation.startswith(_READS):
        record_mutation(f"{prefix}:{operation}", _target(params))


class EnvironmentAuthorizer:
    """What the Lambda execution environments (sandbox.lambda_env) ask before and after each call."""

    def authorize(self, function: str, request: dict[str, Any]) -> tuple[str, int, str] | None:
        return refusal(
            function,
            request["prefix"],
            request["operation"],
            request["params"],
            request.get("region"),
            request.get("endpoint", ""),
            request.get("protocol", ""),
        )

    def succeeded(self, function: str, request: dict[str, Any]) -> None:
        succeeded(function, request["prefix"], request["operation"], request["params"])


@once
def install() -> None:
    """Authorize every boto3 call made while an in-process handler runs (idempotent). The hook is on
    the client class, so clients created before it (cached ones included) are covered too. Handlers in
    execution environments of their own ask the same questions through ``EnvironmentAuthorizer``."""
    from botocore.client import BaseClient

    original = BaseClient._make_api_call

    def _make_api_call(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        function = CALLER.get()
        model = self.meta.service_model
        prefix = model.signing_name or model.endpoint_prefix
        if function is not None:
            refused = refusal(
                function,
                prefix,
                operation_name,
                api_params,
                self.meta.region_name,
                str(self.meta.endpoint_url or ""),
                model.metadata.get("protocol", ""),
            )
            if refused is not None:
                raise refused_error(self, operation_name, *refused)
        answer = original(self, operation_name, api_params)
        if function is not None:
            succeeded(function, prefix, operation_name, api_params)
        return answer

    patch(BaseClient, "_make_api_call", _make_api_call)
