"""The sandbox's IAM, end to end: a grant removed with the deny fault makes the flow fail where AWS
would, with IAM's message naming the function, the action and the resource, in the phase a user
reads; clearing the fault and retrying finishes the operation."""

from __future__ import annotations

import contextlib

import pytest

from tests.sandbox.aws.support import wait_until
from tests.sandbox.clusters import their_eks_cluster

pytestmark = [pytest.mark.e2e, pytest.mark.iam_denies]

GPU_GROUP = {"name": "gpu", "instanceType": "ml.p5.48xlarge", "instanceCount": 1}


@pytest.fixture
def deny(sandbox):
    def remove(function: str, action: str) -> None:
        with sandbox.client() as c:
            response = c.post("/api/sandbox/faults", json={"deny": [{"function": function, "action": action}]})
        assert response.status_code == 200, response.text
        assert f"launchpod-{function}:{action.lower()}" in response.json()["removedGrants"]

    yield remove
    with sandbox.client() as c:
        c.post("/api/sandbox/faults", json={"clear": True})


def _clear(sandbox) -> None:
    with sandbox.client() as c:
        assert c.post("/api/sandbox/faults", json={"clear": True}).json()["removedGrants"] == []


def _failed_in(done: dict, phase_name: str) -> dict:
    """The operation failed, in the phase ``phase_name``, which it returns."""
    assert done["status"] == "FAILED", done
    phase = next(p for p in done["phases"] if p["status"] == "FAILED")
    assert phase["name"] == phase_name
    return phase


def _cleared_and_finished(sandbox, operation_id: str) -> None:
    """Once the fault is cleared, retrying the operation finishes it."""
    _clear(sandbox)
    assert _retry(sandbox, operation_id)["status"] == "SUCCEEDED"


def _retry(sandbox, operation_id: str) -> dict:
    with sandbox.client() as c:
        response = c.post(f"/api/operations/{operation_id}/retry")
    assert response.status_code == 202, response.text
    return sandbox.wait_operation(operation_id)


def _last_denial(sandbox) -> dict:
    with sandbox.client() as c:
        return c.get("/api/sandbox/iam").json()["denies"][-1]


def test_the_decision_log_needs_the_admin_token_and_lists_denies_and_unused_grants(sandbox):
    with sandbox.client("viewer") as c:
        assert c.get("/api/sandbox/iam").status_code == 403
    with sandbox.client() as c:
        report = c.get("/api/sandbox/iam").json()
        bad = c.post("/api/sandbox/faults", json={"deny": [{"function": "no-such-fn", "action": "eks:X"}]})
    assert report["enabled"] is True and report["functions"] >= 40
    assert report["totals"]["calls"] == report["totals"]["allowed"] + report["totals"]["denied"]
    assert set(report["unusedGrants"]) <= {f"launchpod-{n}" for n in _registry_names()}
    assert bad.status_code == 422 and "no-such-fn" in bad.json()["message"]


def _registry_names() -> list[str]:
    from launchpod import registry

    return [f.name for f in registry.FUNCTIONS]


def test_an_access_entry_created_with_tags_needs_eks_tag_resource(sandbox, deny):
    their_eks_cluster(sandbox, "iam-tags", "API_AND_CONFIG_MAP")
    deny("ccp-access-entry", "eks:TagResource")
    with sandbox.client() as c:
        op = c.post("/api/clusters/import", json={"name": "iam-tags"}).json()["operation"]["id"]
    phase = _failed_in(sandbox.wait_operation(op), "AccessEntry")
    assert phase["error"] == "AccessDeniedException"
    assert phase["message"].startswith("launchpod-ccp-access-entry may not eks:TagResource on arn:aws:eks:")
    assert "grant it in the function's policy" in phase["message"]
    denial = _last_denial(sandbox)
    assert (denial["function"], denial["action"], denial["reason"]) == (
        "launchpod-ccp-access-entry",
        "eks:TagResource",
        "tag-on-create",
    )
    _cleared_and_finished(sandbox, op)


def test_eks_creates_its_service_linked_role_with_the_callers_permissions(sandbox, deny):
    iam = sandbox.aws("iam")
    with contextlib.suppress(iam.exceptions.NoSuchEntityException):
        iam.delete_role(RoleName="AWSServiceRoleForAmazonEKS")  # an account that never had a cluster
    deny("ccp-create-cluster", "iam:CreateServiceLinkedRole")
    with sandbox.client() as c:
        op = c.post("/api/clusters", json={"name": "iam-slr", "availabilityZones": ["us-east-1a", "us-east-1b"]})
    phase = _failed_in(sandbox.wait_operation(op.json()["operation"]["id"]), "CreateCluster")
    assert (
        "may not iam:CreateServiceLinkedRole on arn:aws:iam::123456789012:role/aws-service-role/eks" in phase["message"]
    )
    _cleared_and_finished(sandbox, op.json()["operation"]["id"])
    assert iam.get_role(RoleName="AWSServiceRoleForAmazonEKS")["Role"]["Path"] == "/aws-service-role/eks.amazonaws.com/"


@pytest.fixture(scope="module")
def control_plane(sandbox):
    sandbox.create_control_plane("iam-deps")
    return "iam-deps"


def test_a_pod_identity_role_is_passed_to_pods_eks(sandbox, control_plane, deny):
    deny("rd-addons", "iam:PassRole")
    with sandbox.client() as c:
        op = c.post(f"/api/clusters/{control_plane}/dependencies", json={}).json()["operation"]["id"]
    phase = _failed_in(sandbox.wait_operation(op), "Addons")
    assert (
        "launchpod-rd-addons may not iam:PassRole on arn:aws:iam::123456789012:role/launchpod-iam-deps-"
        in phase["message"]
    )
    assert _last_denial(sandbox)["reason"] == "PassRole to pods.eks.amazonaws.com"
    _cleared_and_finished(sandbox, op)


def test_hyperpod_makes_access_entries_with_the_callers_permissions(sandbox, control_plane, deny):
    sandbox.install_dependencies(control_plane)
    deny("chp-create-hyperpod", "eks:CreateAccessEntry")
    body = {"availabilityZone": "us-east-1a", "instanceGroups": [GPU_GROUP]}
    with sandbox.client() as c:
        op = c.post(f"/api/clusters/{control_plane}/hyperpod", json=body).json()["operation"]["id"]
    phase = _failed_in(sandbox.wait_operation(op), "CreateHyperPod")
    # CreateAccessEntry acts on the cluster (Service Authorization Reference, Amazon EKS)
    assert "may not eks:CreateAccessEntry on arn:aws:eks:us-east-1:123456789012:cluster/iam-deps" in phase["message"]
    assert _last_denial(sandbox)["reason"] == "on behalf of HyperPod"
    _cleared_and_finished(sandbox, op)


def test_delete_removes_hyperpods_access_entries_and_finds_roles_with_list_roles_on_star(sandbox, control_plane, deny):
    deny("dc-delete-hyperpod", "eks:DeleteAccessEntry")
    with sandbox.client() as c:
        op = c.delete(f"/api/clusters/{control_plane}", params={"confirm": control_plane}).json()["operation"]["id"]
    phase = _failed_in(sandbox.wait_operation(op, timeout=120), "DeleteHyperPod")
    assert (
        "may not eks:DeleteAccessEntry on arn:aws:eks:us-east-1:123456789012:access-entry/iam-deps/" in phase["message"]
    )
    assert _last_denial(sandbox)["reason"] == "on behalf of HyperPod"
    _clear(sandbox)
    deny("dc-delete-identity", "iam:ListRoles")
    phase = _failed_in(_retry(sandbox, op), "DeleteIdentity")
    assert "may not iam:ListRoles on *" in phase["message"]
    _cleared_and_finished(sandbox, op)
    assert [r for r in sandbox.role_names() if "iam-deps" in r] == []


def test_a_role_not_yet_propagated_is_retried_until_eks_can_assume_it(sandbox):
    with sandbox.client() as c:
        # EKS refuses the cluster's new role twice, as it refuses one IAM has not propagated yet. Counted
        # in calls, not in time: however slow the machine is between CreateRole and CreateCluster, the
        # first two CreateCluster calls meet the refusal and the third (CreateCluster's Retry allows six)
        # succeeds.
        fault = {"iamUnassumable": {"role": "iam-young-eks", "attempts": 2}}
        assert c.post("/api/sandbox/faults", json=fault).status_code == 200
        op = c.post("/api/clusters", json={"name": "iam-young", "availabilityZones": ["us-east-1a", "us-east-1b"]})
    op_id = op.json()["operation"]["id"]
    seen: list[str] = []
    try:
        with sandbox.client("viewer") as c:

            def create_ended() -> bool:
                view = c.get(f"/api/operations/{op_id}").json()
                create = next(p for p in view["phases"] if p["name"] == "CreateCluster")
                if create["message"] and create["message"] not in seen:
                    seen.append(create["message"])
                return create["status"] not in ("PENDING", "RUNNING")

            # every 50 ms: the retry's message shows for a moment only
            wait_until(create_ended, 60, interval=0.05, reason=lambda: f"CreateCluster did not end: {seen}")
        done = sandbox.wait_operation(op_id)
        with sandbox.client() as c:
            left = c.get("/api/sandbox/faults").json()["iamUnassumable"]
    finally:
        _clear(sandbox)
    assert done["status"] == "SUCCEEDED", done
    assert next(p for p in done["phases"] if p["name"] == "CreateCluster")["attempts"] == 3
    assert left == {"role": "iam-young-eks", "attempts": 0}
    # the retry is visible while it happens (phase messages are polled, so one of the two may be missed)
    assert any(m.startswith("Retrying: eks:CreateCluster: the IAM role") and "cannot be assumed yet" in m for m in seen)
    with sandbox.client() as c:
        assert c.get("/api/sandbox/faults").json()["iamUnassumable"] == {"role": "", "attempts": 0}


def test_the_unassumable_role_fault_refuses_malformed_specs(sandbox):
    with sandbox.client() as c:
        for bad in (
            {"role": "x"},
            {"role": "", "attempts": 1},
            {"role": "x", "attempts": 21},
            {"role": "x", "attempts": True},
            3,
        ):
            answer = c.post("/api/sandbox/faults", json={"iamUnassumable": bad})
            assert answer.status_code == 422 and "iamUnassumable is" in answer.json()["message"], bad


def test_a_failed_hyperpod_cluster_is_deleted_before_it_is_created_again(sandbox, deny):
    sandbox.create_control_plane("iam-hp")
    sandbox.install_dependencies("iam-hp")
    with sandbox.client() as c:
        c.post("/api/sandbox/faults", json={"failNextHyperPodCreate": "capacity"})
        body = {"availabilityZone": "us-east-1a", "instanceGroups": [GPU_GROUP]}
        op = c.post("/api/clusters/iam-hp/hyperpod", json=body).json()["operation"]["id"]
    assert sandbox.wait_operation(op)["status"] == "FAILED"
    deny("chp-create-hyperpod", "sagemaker:DeleteCluster")
    phase = _failed_in(_retry(sandbox, op), "CreateHyperPod")
    assert "launchpod-chp-create-hyperpod may not sagemaker:DeleteCluster on arn:aws:sagemaker:" in phase["message"]
    _cleared_and_finished(sandbox, op)
