"""What a service does with the caller's permissions after a call (``caller.CALLER_PERMISSIONS``), tried
with each function's deployed policy: every function that makes such a call holds what the service then
does as it, and removing that grant is what denies the call, as on AWS."""

from __future__ import annotations

import pytest
from launchpod import policies, registry

from sandbox.aws.iam import authz, caller
from sandbox.aws.iam.gate import FunctionIdentity, IamGate
from tests.sandbox.aws.test_iam_escalation import DEPLOYMENT

ACCOUNT, REGION = "123456789012", "us-east-1"
EKS = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1"
HP = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/hp"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/launchpod-c1-x"
PLAN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-plan/p5-week"
GROUP = {"InstanceGroupName": "g", "InstanceType": "ml.p5.48xlarge", "InstanceCount": 1, "ExecutionRole": ROLE}
PIA = [{"serviceAccount": "sa", "roleArn": ROLE}]

# The requests Launchpod's functions send for each call in the table: (function, prefix, operation, params).
REQUESTS = [
    ("ccp-create-cluster", "eks", "CreateCluster", {"name": "c1", "roleArn": ROLE, "resourcesVpcConfig": {}}),
    (
        "chp-create-hyperpod",
        "sagemaker",
        "CreateCluster",
        {"ClusterName": "hp", "Orchestrator": {"Eks": {"ClusterArn": EKS}}, "InstanceGroups": [GROUP]},
    ),
    ("chp-create-hyperpod", "sagemaker", "DeleteCluster", {"ClusterName": "hp"}),
    ("dc-delete-hyperpod", "sagemaker", "DeleteCluster", {"ClusterName": "hp"}),
    # a group added on a training plan, and a group removed
    (
        "ig-update-cluster",
        "sagemaker",
        "UpdateCluster",
        {"ClusterName": "hp", "InstanceGroups": [{**GROUP, "TrainingPlanArn": PLAN}]},
    ),
    ("ig-update-cluster", "sagemaker", "UpdateCluster", {"ClusterName": "hp", "InstanceGroupsToDelete": ["g"]}),
    (
        "as-update-autoscaling",
        "sagemaker",
        "UpdateCluster",
        {"ClusterName": "hp", "AutoScaling": {"Mode": "Enable"}, "ClusterRole": ROLE},
    ),
    (
        "cf-tiered-storage",
        "sagemaker",
        "UpdateCluster",
        {"ClusterName": "hp", "TieredStorageConfig": {"Mode": "Enable"}},
    ),
    ("us-start-update", "sagemaker", "UpdateClusterSoftware", {"ClusterName": "hp"}),
    *[
        ("na-start-action", "sagemaker", op, {"ClusterName": "hp", "NodeIds": ["i-0123456789abcdef0"]})
        for op in ("BatchDeleteClusterNodes", "BatchRebootClusterNodes", "BatchReplaceClusterNodes")
    ],
    ("api", "sagemaker", "CreateComputeQuota", {"Name": "q", "ClusterArn": HP, "ComputeQuotaConfig": {}}),
    ("api", "sagemaker", "CreateClusterSchedulerConfig", {"Name": "p", "ClusterArn": HP, "SchedulerConfig": {}}),
    *[
        (name, "eks", "CreateAddon", {"clusterName": "c1", "addonName": "a", "podIdentityAssociations": PIA})
        for name in (
            "rd-addons",
            "cf-training-operator",
            "cf-inference-operator",
            "cf-observability",
            "cf-hyperpod-observability",
        )
    ],
    *[
        (name, "eks", "CreateAddon", {"clusterName": "c1", "addonName": "a"})
        for name in ("ccp-core-addons", "cf-cert-manager", "cf-task-governance")
    ],
    ("rd-addons", "eks", "UpdateAddon", {"clusterName": "c1", "addonName": "a", "podIdentityAssociations": PIA}),
    ("rd-manifests", "eks", "CreatePodIdentityAssociation", {"clusterName": "c1", "roleArn": ROLE}),
    ("mlf-tracking-server", "sagemaker", "CreateMlflowTrackingServer", {"TrackingServerName": "m", "RoleArn": ROLE}),
    (
        "cf-hyperpod-observability",
        "grafana",
        "CreateWorkspace",
        {
            "accountAccessType": "CURRENT_ACCOUNT",
            "permissionType": "CUSTOMER_MANAGED",
            "authenticationProviders": ["SAML"],
            "workspaceRoleArn": ROLE,
            "tags": {"launchpod:cluster": "c1"},
        },
    ),
]


class FreshAccount(authz.Lookup):
    """No service-linked roles yet; HyperPod cluster hp runs on EKS cluster c1."""

    def role_exists(self, role_name):
        return not role_name.startswith("AWSServiceRoleFor")

    def hyperpod_eks_cluster(self, name):
        return EKS if name in ("hp", HP) else None

    def create_service_linked_role(self, service):
        return None


def _gate(function: str) -> IamGate:
    gate = IamGate()
    name = registry.function_name(function)
    statements = policies.function_statements(registry.FUNCTIONS_BY_NAME[function], DEPLOYMENT)
    role = policies.role_name(function)
    gate.configure(
        {name: FunctionIdentity(name, role, f"arn:aws:iam::{ACCOUNT}:role/{role}", statements)}, ACCOUNT, REGION
    )
    return gate


def _authorize(gate: IamGate, function: str, prefix: str, operation: str, params: dict) -> object:
    call = authz.Call(prefix=prefix, operation=operation, params=params, region=REGION, account=ACCOUNT)
    return gate.authorize(registry.function_name(function), call, FreshAccount())


def _applies(row: caller.Row, params: dict) -> bool:
    if row.target == "passed-role" or row.when:
        return bool(caller.values(params, row.when))
    return True


def test_every_function_that_makes_a_call_in_the_table_is_tried_with_it():
    tried = {(f, f"{p}:{o}") for f, p, o, _ in REQUESTS}
    makes = {(s.name, r.call) for r in caller.CALLER_PERMISSIONS for s in registry.FUNCTIONS if r.call in s.actions}
    assert makes - tried == set()


@pytest.mark.parametrize("function,prefix,operation,params", REQUESTS, ids=lambda v: str(v)[:40])
def test_each_function_holds_what_the_service_does_with_its_permissions(function, prefix, operation, params):
    denial = _authorize(_gate(function), function, prefix, operation, params)
    assert denial is None, denial and denial.message


ENFORCED = [
    (function, prefix, operation, params, row.action)
    for function, prefix, operation, params in REQUESTS
    for row in caller.rows(f"{prefix}:{operation}")
    if _applies(row, params)
]


@pytest.mark.parametrize("function,prefix,operation,params,action", ENFORCED, ids=lambda v: str(v)[:40])
def test_removing_what_the_service_uses_denies_the_call(function, prefix, operation, params, action):
    gate = _gate(function)
    gate.deny(function, action)
    denial = _authorize(gate, function, prefix, operation, params)
    assert denial is not None and denial.action == action
