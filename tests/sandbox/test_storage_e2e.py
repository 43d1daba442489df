"""Storage through the sandbox: Mountpoint for S3 on the shared bucket and FSx for Lustre, each a
PersistentVolumeClaim Bound on the cluster; listed, browsed and deleted over REST."""

from __future__ import annotations

import time

import pytest
from kubernetes import client as k8s

pytestmark = pytest.mark.e2e
NAME = "e2e-store"
BUCKET = "sagemaker-launchpod-123456789012-us-east-1"
DEPENDENCIES: dict = {}  # the reconcile-dependencies operation, as its fixture saw it finish


@pytest.fixture(scope="module")
def control_plane(sandbox):
    sandbox.create_control_plane(NAME)
    return NAME


@pytest.fixture(scope="module")
def with_dependencies(sandbox, control_plane):
    with sandbox.client() as c:
        op = c.post(f"/api/clusters/{control_plane}/dependencies", json={"includeOptional": True}).json()
    DEPENDENCIES.update(sandbox.wait_operation(op["operation"]["id"]))
    assert DEPENDENCIES["status"] == "SUCCEEDED"
    return control_plane


def _core(sandbox, cluster: str) -> k8s.CoreV1Api:
    return k8s.CoreV1Api(sandbox.kube(cluster))


def _configure(sandbox, cluster: str, body: dict) -> dict:
    with sandbox.client() as c:
        response = c.post(f"/api/clusters/{cluster}/storage", json=body)
    assert response.status_code == 202, response.text
    return sandbox.wait_operation(response.json()["operation"]["id"])


def test_storage_before_dependencies_fails_naming_the_dependencies_route(sandbox, control_plane):
    done = _configure(sandbox, control_plane, {"kind": "s3", "storageName": "early"})
    assert done["status"] == "FAILED"
    assert "Install the cluster's dependencies first" in done["message"]
    assert "aws-mountpoint-s3-csi-driver" in done["message"]
    assert done["phases"][0]["status"] == "FAILED"


def test_s3_storage_is_bound_listed_browsed_and_deleted(sandbox, with_dependencies):
    cluster = with_dependencies
    s3 = sandbox.aws("s3")
    s3.put_object(Bucket=BUCKET, Key="datasets/mnist/train.csv", Body=b"a,b\n1,2\n")
    s3.put_object(Bucket=BUCKET, Key="datasets/mnist/parts/p0", Body=b"x")
    s3.put_object(Bucket=BUCKET, Key="elsewhere/secret.txt", Body=b"no")

    done = _configure(
        sandbox, cluster, {"kind": "s3", "storageName": "mnist", "namespace": "default", "prefix": "datasets/mnist"}
    )
    assert done["status"] == "SUCCEEDED", done
    assert [p["status"] for p in done["phases"]] == ["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]

    core = _core(sandbox, cluster)
    claim = core.read_namespaced_persistent_volume_claim("mnist", "default")
    volume = core.read_persistent_volume("mnist")
    assert claim.status.phase == "Bound" and volume.status.phase == "Bound"
    assert volume.spec.csi.driver == "s3.csi.aws.com"
    assert volume.spec.csi.volume_attributes == {"bucketName": BUCKET}
    assert "prefix datasets/mnist/" in volume.spec.mount_options

    with sandbox.client("viewer") as c:
        listed = c.get(f"/api/clusters/{cluster}/storage").json()["items"]
        row = next(i for i in listed if i["storageName"] == "mnist")
        assert row == {
            "storageName": "mnist",
            "namespace": "default",
            "kind": "s3",
            "source": f"s3://{BUCKET}/datasets/mnist/",
            "status": "Bound",
        }
        browsed = c.get(f"/api/clusters/{cluster}/storage/mnist/objects").json()
        assert [o["key"] for o in browsed["objects"]] == ["train.csv"]
        assert browsed["objects"][0]["size"] == 8 and browsed["prefixes"] == ["parts/"]
        deeper = c.get(f"/api/clusters/{cluster}/storage/mnist/objects", params={"prefix": "parts"}).json()
        assert [o["key"] for o in deeper["objects"]] == ["parts/p0"]
        assert c.delete(f"/api/clusters/{cluster}/storage/mnist").status_code == 403

    with sandbox.client() as c:
        deleted = c.delete(f"/api/clusters/{cluster}/storage/mnist")
        assert deleted.status_code == 200, deleted.text
        assert deleted.json()["deleted"] == ["PersistentVolumeClaim/default/mnist", "PersistentVolume/mnist"]
        assert all(i["storageName"] != "mnist" for i in c.get(f"/api/clusters/{cluster}/storage").json()["items"])
        again = c.delete(f"/api/clusters/{cluster}/storage/mnist")
        assert again.status_code == 200 and again.json()["status"] == "NOOP", again.text
        assert again.json()["message"].startswith(f"{cluster} has no storage mnist; nothing to delete"), again.text
    with pytest.raises(k8s.ApiException) as gone:
        core.read_persistent_volume("mnist")
    assert gone.value.status == 404


def test_fsx_lustre_is_attached_and_cannot_be_browsed(sandbox, with_dependencies):
    cluster = with_dependencies
    fs = sandbox.lustre_file_system()
    mount_name = fs["LustreConfiguration"]["MountName"]

    done = _configure(sandbox, cluster, {"kind": "fsx", "storageName": "scratch", "fileSystemId": fs["FileSystemId"]})
    assert done["status"] == "SUCCEEDED", done
    volume = _core(sandbox, cluster).read_persistent_volume("scratch")
    assert volume.spec.csi.driver == "fsx.csi.aws.com" and volume.spec.csi.volume_handle == fs["FileSystemId"]
    assert volume.spec.csi.volume_attributes == {"dnsname": fs["DNSName"], "mountname": mount_name}
    with sandbox.client("viewer") as c:
        row = next(
            i for i in c.get(f"/api/clusters/{cluster}/storage").json()["items"] if i["storageName"] == "scratch"
        )
        assert row["kind"] == "fsx" and row["status"] == "Bound" and fs["FileSystemId"] in row["source"]
        assert c.get(f"/api/clusters/{cluster}/storage/scratch/objects").status_code == 422


def test_unknown_fsx_file_system_fails_with_aws_words(sandbox, with_dependencies):
    done = _configure(
        sandbox, with_dependencies, {"kind": "fsx", "storageName": "ghost", "fileSystemId": "fs-0123456789abcdef0"}
    )
    assert done["status"] == "FAILED" and "fs-0123456789abcdef0" in done["message"]


def test_kuberay_on_a_cluster_without_nodes_is_applied_and_waits_for_them(sandbox, with_dependencies):
    time.sleep(400 * 0.005)  # simulated minutes pass; with no node to run on, nothing changes
    pods = _core(sandbox, with_dependencies).list_namespaced_pod("kuberay-operator").items
    assert len(pods) == 1 and pods[0].status.phase == "Pending"
    scheduled = pods[0].status.conditions[0]
    assert (scheduled.type, scheduled.status, scheduled.reason) == ("PodScheduled", "False", "Unschedulable")
    assert scheduled.message == "no nodes available to schedule pods"
    events = _core(sandbox, with_dependencies).list_namespaced_event("kuberay-operator").items
    assert [e.reason for e in events] == ["FailedScheduling"]
    manifests = next(p for p in DEPENDENCIES["phases"] if p["name"] == "Manifests")
    assert "kuberay-operator, aws-load-balancer-controller applied; waits for nodes" in manifests["message"]
