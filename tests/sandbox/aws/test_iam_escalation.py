"""No Launchpod function can widen its own or another Launchpod role: every function that holds IAM
writes is tried, with its deployed policy, at the escalations issue 9 names."""

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


def test_the_functions_that_write_iam_are_the_three_that_create_roles_and_delete_identity():
    assert {s.name for s in WRITERS} == {"ccp-cluster-role", "chp-execution-role", "rd-addons", "dc-delete-identity"}


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
