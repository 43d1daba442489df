"""Each function's deployed policy, tried call by call: no function can widen its own or another
Launchpod role (every function that holds IAM writes is tried at the known escalations:
attaching a policy, putting an inline one, creating a role without the boundary), and
every grant AWS checks beyond the call's own action is held, and is what denies the call once removed."""

from __future__ import annotations

import itertools
import json

import pytest
from launchpod import policies, registry

from sandbox.aws.iam import authz
from sandbox.aws.iam.gate import FunctionIdentity, IamGate
from sandbox.aws.iam.policy import AuthzRequest, evaluate

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
    gate.configure(_identities(), ACCOUNT, REGION)
    return gate


def _identities() -> dict[str, FunctionIdentity]:
    """Every function's identity as the stack deploys it: its role and its statements."""
    return {
        registry.function_name(s.name): FunctionIdentity(
            registry.function_name(s.name),
            policies.role_name(s.name),
            f"arn:aws:iam::{ACCOUNT}:role/{policies.role_name(s.name)}",
            policies.function_statements(s, DEPLOYMENT),
        )
        for s in registry.FUNCTIONS
    }


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
        "as-cluster-role",  # HyperPod-managed Karpenter's cluster role
        "cf-training-operator",  # the training operator's pod identity role
        "cf-checkpoint-identity",  # the tiered-checkpointing IRSA role
        "cf-inference-operator",  # the inference operator's IRSA execution role and the FSx CSI driver's
        "cf-observability",  # Container Insights' pod identity role, AWS managed policies only
        "cf-hyperpod-observability",  # the HyperPod observability collector's pod identity role (AMP remote write)
        "rd-manifests",  # the AWS Load Balancer Controller's pod identity role
        "mlf-server-role",  # the MLflow tracking server's role; the API itself writes no IAM
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
# Each grant AWS checks beyond a call's own action, with the call of the function that needs it.
NEEDED = [
    (
        "ccp-access-entry",
        "eks:TagResource",
        "eks",
        "CreateAccessEntry",
        {"clusterName": "c1", "principalArn": DEPLOYMENT.kube_role_arn, "tags": TAGS},
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


# ---------------------------------------------------------------- over-reach
KUBE = DEPLOYMENT.kube_role_arn
FOREIGN = "arn:aws:iam::999999999999:role/attacker"
CLUSTER_ADMIN = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


def _call(gate, spec, prefix, operation, lookup=None, **params):
    call = authz.Call(prefix=prefix, operation=operation, params=params, region=REGION, account=ACCOUNT)
    return gate.authorize(registry.function_name(spec.name), call, lookup or Account())


def _holding(*actions):
    return [s for s in registry.FUNCTIONS if set(s.actions) & set(actions)]


@pytest.mark.parametrize("spec", _holding("eks:CreateAccessEntry"), ids=lambda s: s.name)
def test_no_function_can_give_a_principal_outside_launchpod_an_access_entry(gate, spec):
    for principal, kind in ((FOREIGN, "STANDARD"), (ROLE, "STANDARD"), (FOREIGN, "HYPERPOD_LINUX")):
        denial = _call(gate, spec, "eks", "CreateAccessEntry", clusterName="any", principalArn=principal, type=kind)
        assert denial is not None and denial.action == "eks:CreateAccessEntry", (spec.name, principal, kind)
    # Kubernetes groups could be bound to cluster-admin by RBAC: none, even for Launchpod's own role.
    groups = _call(
        gate, spec, "eks", "CreateAccessEntry", clusterName="any", principalArn=KUBE, kubernetesGroups=["admins"]
    )
    assert groups is not None


def test_the_access_entries_launchpod_makes_are_allowed():
    gate = IamGate()
    gate.configure(
        {
            registry.function_name(s.name): FunctionIdentity(
                registry.function_name(s.name),
                "r",
                f"arn:aws:iam::{ACCOUNT}:role/r",
                policies.function_statements(s, DEPLOYMENT),
            )
            for s in registry.FUNCTIONS
        },
        ACCOUNT,
        REGION,
    )
    own = registry.FUNCTIONS_BY_NAME["ccp-access-entry"]
    nodes = registry.FUNCTIONS_BY_NAME["chp-hyperpod-access"]
    assert _call(gate, own, "eks", "CreateAccessEntry", clusterName="any", principalArn=KUBE, type="STANDARD") is None
    assert (
        _call(gate, nodes, "eks", "CreateAccessEntry", clusterName="c1", principalArn=ROLE, type="HYPERPOD_LINUX")
        is None
    )
    scope = {"type": "cluster"}
    assert (
        _call(
            gate,
            own,
            "eks",
            "AssociateAccessPolicy",
            clusterName="any",
            principalArn=KUBE,
            policyArn=CLUSTER_ADMIN,
            accessScope=scope,
        )
        is None
    )


@pytest.mark.parametrize("spec", _holding("eks:AssociateAccessPolicy"), ids=lambda s: s.name)
def test_cluster_admin_goes_to_launchpods_kube_access_role_only(gate, spec):
    cluster = {"type": "cluster"}
    other = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminPolicy"
    namespaced = {"type": "namespace", "namespaces": ["default"]}
    refused = [
        (principal, CLUSTER_ADMIN, cluster) for principal in (FOREIGN, f"arn:aws:iam::{ACCOUNT}:role/someone", ROLE)
    ]
    refused += [(KUBE, other, cluster), (KUBE, CLUSTER_ADMIN, namespaced)]
    for principal, policy, scope in refused:
        denial = _call(
            gate,
            spec,
            "eks",
            "AssociateAccessPolicy",
            clusterName="any",
            principalArn=principal,
            policyArn=policy,
            accessScope=scope,
        )
        assert denial is not None and denial.action == "eks:AssociateAccessPolicy", (
            spec.name,
            principal,
            policy,
            scope,
        )


@pytest.mark.parametrize("spec", _holding("sagemaker:AddTags"), ids=lambda s: s.name)
def test_no_function_can_put_launchpods_ownership_tags_on_an_existing_sagemaker_resource(gate, spec):
    tags = [{"Key": "launchpod:cluster", "Value": "theirs"}, {"Key": "launchpod:managed-by", "Value": "launchpod"}]
    for kind in ("cluster/abc123def456", "mlflow-tracking-server/theirs", "compute-quota/q1"):
        arn = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:{kind}"
        denial = _call(gate, spec, "sagemaker", "AddTags", ResourceArn=arn, Tags=tags)
        assert denial is not None and denial.action == "sagemaker:AddTags", (spec.name, kind)


OURS = {"launchpod:cluster": "c1", "launchpod:managed-by": "launchpod"}


class TaggedAccount(Account):
    """EC2 resources whose ID ends in "ours" carry Launchpod's tags; every other one is someone else's."""

    def resource_tags(self, arn):
        return dict(OURS) if arn.endswith("ours") else {}


# (action, request) for each EC2 write on an existing resource, named by its ID
EC2_EXISTING = [
    ("ModifyVpcAttribute", {"VpcId": "vpc-{}", "EnableDnsSupport": {"Value": True}}),
    ("ModifySubnetAttribute", {"SubnetId": "subnet-{}", "MapPublicIpOnLaunch": {"Value": True}}),
    ("AttachInternetGateway", {"InternetGatewayId": "igw-{}", "VpcId": "vpc-{}"}),
    ("CreateRoute", {"RouteTableId": "rtb-{}", "DestinationCidrBlock": "0.0.0.0/0", "GatewayId": "igw-x"}),
    ("AuthorizeSecurityGroupIngress", {"GroupId": "sg-{}", "IpPermissions": []}),
    ("AuthorizeSecurityGroupEgress", {"GroupId": "sg-{}", "IpPermissions": []}),
    ("DeleteNatGateway", {"NatGatewayId": "nat-{}"}),
    ("ReleaseAddress", {"AllocationId": "eipalloc-{}"}),
    ("DeleteSecurityGroup", {"GroupId": "sg-{}"}),
    ("DeleteRouteTable", {"RouteTableId": "rtb-{}"}),
    ("DeleteSubnet", {"SubnetId": "subnet-{}"}),
    ("DetachInternetGateway", {"InternetGatewayId": "igw-{}", "VpcId": "vpc-{}"}),
    ("DeleteInternetGateway", {"InternetGatewayId": "igw-{}"}),
    ("DeleteVpc", {"VpcId": "vpc-{}"}),
]


def _ids(params, owner):
    return {k: (v.format(owner) if isinstance(v, str) else v) for k, v in params.items()}


@pytest.mark.parametrize("operation,params", EC2_EXISTING, ids=lambda v: v if isinstance(v, str) else "")
def test_ec2_writes_and_deletes_reach_only_resources_tagged_as_launchpods(gate, operation, params):
    holders = _holding(f"ec2:{operation}")
    assert holders, operation
    for spec in holders:
        theirs = _call(gate, spec, "ec2", operation, TaggedAccount(), **_ids(params, "theirs"))
        assert theirs is not None and theirs.action == f"ec2:{operation}", (spec.name, operation)
        assert _call(gate, spec, "ec2", operation, TaggedAccount(), **_ids(params, "ours")) is None, (
            spec.name,
            operation,
        )


def test_the_eks_cluster_security_group_of_an_imported_cluster_takes_hyperpods_self_rules(gate):
    spec = registry.FUNCTIONS_BY_NAME["chp-security-group"]

    class Eks(Account):
        def resource_tags(self, arn):
            return {"aws:eks:cluster-name": "theirs"} if arn.endswith("sg-eks") else {}

    assert _call(gate, spec, "ec2", "AuthorizeSecurityGroupIngress", Eks(), GroupId="sg-eks", IpPermissions=[]) is None
    assert _call(gate, spec, "ec2", "AuthorizeSecurityGroupIngress", Eks(), GroupId="sg-other", IpPermissions=[])


@pytest.mark.parametrize(
    "spec", _holding("ec2:CreateVpc", "ec2:CreateSubnet", "ec2:CreateSecurityGroup"), ids=lambda s: s.name
)
def test_ec2_creates_must_tag_what_they_make_as_launchpods(gate, spec):
    for operation, kind, params in (
        ("CreateVpc", "vpc", {"CidrBlock": "10.0.0.0/16"}),
        ("CreateSubnet", "subnet", {"VpcId": "vpc-theirs", "CidrBlock": "10.0.0.0/20"}),
        ("CreateSecurityGroup", "security-group", {"VpcId": "vpc-theirs", "GroupName": "g", "Description": "d"}),
    ):
        if f"ec2:{operation}" not in spec.actions:
            continue
        untagged = _call(gate, spec, "ec2", operation, TaggedAccount(), **params)
        assert untagged is not None and untagged.action == f"ec2:{operation}", (spec.name, operation)
        specs = [{"ResourceType": kind, "Tags": [{"Key": k, "Value": v} for k, v in OURS.items()]}]
        # made inside a VPC that may be the user's (reused): allowed, the new resource tagged as Launchpod's
        assert _call(gate, spec, "ec2", operation, TaggedAccount(), TagSpecifications=specs, **params) is None


def _listed(value) -> list:
    return [value] if isinstance(value, str) else list(value or [])


def test_a_remembered_decision_is_the_policy_evaluations_for_every_function_and_context():
    # the gate remembers decisions; each must equal evaluating the statements afresh, whatever the context
    gate = IamGate()
    identities = _identities()
    gate.configure(identities, ACCOUNT, REGION)
    contexts = [
        {},
        {"aws:requesttag/launchpod:managed-by": ("launchpod",), "aws:tagkeys": ("launchpod:managed-by",)},
        {"aws:requesttag/launchpod:managed-by": ("theirs",), "aws:tagkeys": ("launchpod:managed-by",)},
        {"iam:permissionsboundary": (DEPLOYMENT.boundary_arn,)},
        {"iam:passedtoservice": ("eks.amazonaws.com",)},
        {"iam:passedtoservice": ("sagemaker.amazonaws.com",)},
    ]
    decided = 0
    for identity in identities.values():
        actions = {a for st in identity.statements for a in _listed(st.get("Action"))}
        granted = {r for st in identity.statements for r in _listed(st.get("Resource", "*"))}
        resources = {r.replace("*", "x") for r in granted} | {"*", f"arn:aws:s3:::elsewhere/{identity.name}"}
        for action, resource, context in itertools.product(sorted(actions)[:12], sorted(resources)[:8], contexts):
            request = AuthzRequest(action.replace("*", "Get"), resource, context)
            expected = evaluate(identity.statements, request)
            assert gate._decide(identity, request) == expected == gate._decide(identity, request), request
            decided += 1
    assert decided > 1000 and "Allow" in gate._state.decided.values() and "ImplicitDeny" in gate._state.decided.values()
    allowed = next(k for k, v in gate._state.decided.items() if v == "Allow")
    function, request = identities[allowed[0]], AuthzRequest(allowed[1], allowed[2], dict(allowed[3]))
    gate.deny(function.name, allowed[1])  # a removed grant denies what was remembered as allowed
    assert gate._decide(function, request) == "ImplicitDeny"
    gate.clear_denies()
    assert gate._decide(function, request) == "Allow"
