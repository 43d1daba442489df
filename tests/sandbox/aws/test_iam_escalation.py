"""Each function's deployed policy, tried call by call: no function can widen its own or another
Launchpod role (every function that holds IAM writes is tried at the escalations issue 9 names), and
every grant AWS checks beyond the call's own action is held, and is what denies the call once removed."""

from __future__ import annotations

import json

import pytest
from launchpod import policies, registry

from sandbox.aws.iam import authz
from sandbox.aws.iam.gate import FunctionIdentity, IamGate

ACCOUNT, REGION = "123456789012", "us-east-1"
DEPLOYMENT = policies.Deployment(
    partition="aws",
    region=REGION,
    account=ACCOUNT,
    prefix="launchpod",
    bucket="sagemaker-launchpod-123456789012-us-east-1",
    table_arns={t.key: f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/launchpod-{t.key}" for t in registry.TABLES},
    table_stream_arns={"operations": f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/launchpod-operations/stream/1"},
    kube_role_arn=f"arn:aws:iam::{ACCOUNT}:role/launchpod-kube-access",
    websocket_stage_arn=f"arn:aws:execute-api:{REGION}:{ACCOUNT}:lpsandbox/prod",
    tables=registry.TABLES,
    state_machines=tuple(m.name for m in registry.STATE_MACHINES),
)
ADMIN = "arn:aws:iam::aws:policy/AdministratorAccess"
WRITES = ("iam:CreateRole", "iam:PutRolePolicy", "iam:AttachRolePolicy", "iam:DeleteRole")
WRITERS = [s for s in registry.FUNCTIONS if set(s.actions) & set(WRITES)]


class Account(authz.Lookup):
    """The kube-access role and the functions' roles have no boundary; a role Launchpod made has it."""

    def role_boundary(self, role_name):
        return DEPLOYMENT.boundary_arn if role_name == "launchpod-c1-eks" else None

    def role_exists(self, role_name):
        return True


@pytest.fixture(scope="module")
def gate() -> IamGate:
    gate = IamGate()
    gate.configure(
        {
            registry.function_name(s.name): FunctionIdentity(
                registry.function_name(s.name),
                policies.role_name(s.name),
                f"arn:aws:iam::{ACCOUNT}:role/{policies.role_name(s.name)}",
                policies.function_statements(s, DEPLOYMENT),
            )
            for s in registry.FUNCTIONS
        },
        ACCOUNT,
        REGION,
    )
    return gate


def _attempt(gate, spec, operation, **params):
    call = authz.Call(prefix="iam", operation=operation, params=params, region=REGION, account=ACCOUNT)
    return gate.authorize(registry.function_name(spec.name), call, Account())


def test_the_functions_that_write_iam_are_the_ones_that_create_roles_and_delete_identity():
    # A new IAM writer must be added here on purpose; the tests below then hold it to the boundary.
    assert {s.name for s in WRITERS} == {
        "ccp-cluster-role",  # the EKS cluster role
        "chp-execution-role",  # HyperPod's instance-group execution role
        "rd-addons",  # the add-ons' pod identity roles
        "dc-delete-identity",  # deletes what the others created
        "as-cluster-role",  # HyperPod-managed Karpenter's cluster role (issue 12)
        "cf-training-operator",  # the training operator's pod identity role (issue 13)
        "cf-checkpoint-identity",  # the tiered-checkpointing IRSA role (issue 13)
        "cf-inference-operator",  # the inference operator's IRSA execution role and the FSx CSI driver's (issue 15)
        "cf-observability",  # Container Insights' pod identity role, AWS managed policies only (issue 13)
        "rd-manifests",  # the AWS Load Balancer Controller's pod identity role (issue 15)
        "mlf-server-role",  # the MLflow tracking server's role (issue 14); the API itself writes no IAM
    }


@pytest.mark.parametrize("spec", WRITERS, ids=lambda s: s.name)
def test_no_function_can_attach_administrator_access_or_write_policies_on_roles_it_did_not_create(gate, spec):
    own = policies.role_name(spec.name)
    for role in ("launchpod-kube-access", own, "launchpod-c1-eks"):
        denial = _attempt(gate, spec, "AttachRolePolicy", RoleName=role, PolicyArn=ADMIN)
        assert denial is not None and denial.action == "iam:AttachRolePolicy", (spec.name, role)
    for role in ("launchpod-kube-access", own):
        document = json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
        )
        denial = _attempt(gate, spec, "PutRolePolicy", RoleName=role, PolicyName="x", PolicyDocument=document)
        assert denial is not None, (spec.name, role)
        assert _attempt(gate, spec, "DeleteRole", RoleName=role) is not None, (spec.name, role)


@pytest.mark.parametrize("spec", WRITERS, ids=lambda s: s.name)
def test_a_role_can_only_be_created_with_launchpods_permissions_boundary(gate, spec):
    trust = json.dumps({"Version": "2012-10-17", "Statement": []})
    without = _attempt(gate, spec, "CreateRole", RoleName="launchpod-x", AssumeRolePolicyDocument=trust)
    elsewhere = _attempt(
        gate,
        spec,
        "CreateRole",
        RoleName="launchpod-x",
        AssumeRolePolicyDocument=trust,
        PermissionsBoundary=ADMIN,
    )
    bounded = _attempt(
        gate,
        spec,
        "CreateRole",
        RoleName="launchpod-x",
        AssumeRolePolicyDocument=trust,
        PermissionsBoundary=DEPLOYMENT.boundary_arn,
    )
    assert without is not None and elsewhere is not None
    assert (bounded is None) == ("iam:CreateRole" in spec.actions)


def test_the_eks_cluster_policy_is_the_only_managed_policy_a_created_role_can_get(gate):
    spec = registry.FUNCTIONS_BY_NAME["ccp-cluster-role"]
    eks_policy = "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"
    assert _attempt(gate, spec, "AttachRolePolicy", RoleName="launchpod-c1-eks", PolicyArn=eks_policy) is None
    assert _attempt(gate, spec, "AttachRolePolicy", RoleName="launchpod-c1-eks", PolicyArn=ADMIN) is not None


class FreshAccount(Account):
    """An account that never had an EKS or HyperPod cluster: no service-linked roles yet."""

    def role_exists(self, role_name):
        return not role_name.startswith("AWSServiceRoleFor")

    def hyperpod_eks_cluster(self, name):
        return f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1"


EKS = f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c1"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/launchpod-c1-x"
TAGS = {"launchpod:cluster": "c1"}
# Each grant issue 9 names, with the call of the function that needs it.
NEEDED = [
    (
        "ccp-access-entry",
        "eks:TagResource",
        "eks",
        "CreateAccessEntry",
        {"clusterName": "c1", "principalArn": ROLE, "tags": TAGS},
    ),
    (
        "chp-hyperpod-access",
        "eks:TagResource",
        "eks",
        "CreateAccessEntry",
        {"clusterName": "c1", "principalArn": ROLE, "type": "HYPERPOD_LINUX", "tags": TAGS},
    ),
    (
        "ccp-core-addons",
        "eks:TagResource",
        "eks",
        "CreateAddon",
        {"clusterName": "c1", "addonName": "coredns", "tags": TAGS},
    ),
    (
        "rd-addons",
        "eks:TagResource",
        "eks",
        "CreateAddon",
        {"clusterName": "c1", "addonName": "cert-manager", "tags": TAGS},
    ),
    (
        "rd-addons",
        "iam:PassRole",
        "eks",
        "CreateAddon",
        {
            "clusterName": "c1",
            "addonName": "aws-mountpoint-s3-csi-driver",
            "podIdentityAssociations": [{"serviceAccount": "s3-csi", "roleArn": ROLE}],
        },
    ),
    ("dc-delete-identity", "iam:ListRoles", "iam", "ListRoles", {}),
    (
        "ccp-create-cluster",
        "iam:CreateServiceLinkedRole",
        "eks",
        "CreateCluster",
        {"name": "c1", "roleArn": ROLE, "resourcesVpcConfig": {}},
    ),
    (
        "ccp-create-cluster",
        "eks:CreateCluster",
        "eks",
        "CreateCluster",
        {"name": "c1", "roleArn": ROLE, "resourcesVpcConfig": {}},
    ),
    (
        "chp-create-hyperpod",
        "iam:CreateServiceLinkedRole",
        "sagemaker",
        "CreateCluster",
        {"ClusterName": "c1", "Orchestrator": {"Eks": {"ClusterArn": EKS}}, "InstanceGroups": []},
    ),
    (
        "chp-create-hyperpod",
        "eks:CreateAccessEntry",
        "sagemaker",
        "CreateCluster",
        {"ClusterName": "c1", "Orchestrator": {"Eks": {"ClusterArn": EKS}}, "InstanceGroups": []},
    ),
    ("chp-create-hyperpod", "sagemaker:DeleteCluster", "sagemaker", "DeleteCluster", {"ClusterName": "c1"}),
    ("dc-delete-hyperpod", "eks:DeleteAccessEntry", "sagemaker", "DeleteCluster", {"ClusterName": "c1"}),
]


@pytest.mark.parametrize("function,action,prefix,operation,params", NEEDED, ids=lambda v: str(v)[:40])
def test_each_grant_aws_checks_is_held_and_its_removal_is_what_denies_the_call(
    function, action, prefix, operation, params
):
    gate = IamGate()
    spec = registry.FUNCTIONS_BY_NAME[function]
    name = registry.function_name(function)
    gate.configure(
        {
            name: FunctionIdentity(
                name,
                policies.role_name(function),
                f"arn:aws:iam::{ACCOUNT}:role/x",
                policies.function_statements(spec, DEPLOYMENT),
            )
        },
        ACCOUNT,
        REGION,
    )
    call = authz.Call(prefix=prefix, operation=operation, params=params, region=REGION, account=ACCOUNT)
    lookup = FreshAccount()
    lookup.create_service_linked_role = lambda service: None
    assert gate.authorize(name, call, lookup) is None
    gate.deny(function, action)
    denial = gate.authorize(name, call, lookup)
    assert denial is not None and denial.action == action
