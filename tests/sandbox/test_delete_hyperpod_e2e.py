"""Only the HyperPod cluster deleted (DELETE /api/clusters/{name}/hyperpod): a HyperPod creation that failed for
capacity is given up while the EKS control plane, which took the longest to make, stays; its dry run says
what fails and what goes, the name must be typed back, and HyperPod can then be created again. The creation
diagnosis suggests both, and each suggestion is followed here as a user would (no dead end)."""

from __future__ import annotations

NAME = "e2e-hp-only"
GROUP = {"name": "gpu", "instanceType": "ml.g5.8xlarge", "instanceCount": 1}


def test_a_failed_hyperpod_cluster_alone_is_deleted_and_created_again(sandbox):
    sandbox.create_control_plane(NAME)
    sandbox.install_dependencies(NAME)
    sandbox.faults(failNextHyperPodCreate="capacity")
    body = {"availabilityZone": "us-east-1a", "instanceGroups": [GROUP]}
    with sandbox.client() as c:
        asked = c.post(f"/api/clusters/{NAME}/hyperpod", json=body)
    assert sandbox.wait_operation(asked.json()["operation"]["id"])["status"] == "FAILED"
    assert sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)["ClusterStatus"] == "Failed"

    with sandbox.client("viewer") as c:
        diagnosis = c.get(f"/api/clusters/{NAME}/diagnosis/creation").json()
    suggested = {s["tool"]: s for s in diagnosis["suggestions"]}
    assert {"create_hyperpod", "delete_hyperpod", "retry_operation"} <= set(suggested), diagnosis["suggestions"]
    elsewhere = suggested["create_hyperpod"]
    assert elsewhere["arguments"]["availabilityZone"] == "us-east-1b"
    assert elsewhere["rest"] == f"POST /api/clusters/{NAME}/hyperpod"
    assert suggested["delete_hyperpod"]["rest"] == f"DELETE /api/clusters/{NAME}/hyperpod?confirm={NAME}"

    url = f"/api/clusters/{NAME}/hyperpod"
    with sandbox.client("operator") as c:
        assert c.delete(url, params={"confirm": NAME}).status_code == 403
    with sandbox.client() as c:
        wrong = c.delete(url, params={"confirm": "other"})
        plan = c.delete(url, params={"confirm": NAME, "dryRun": "true"})
    assert wrong.status_code == 422 and NAME in wrong.json()["message"]
    assert plan.status_code == 200, plan.text
    (step,) = plan.json()["steps"]
    assert step["action"] == "delete" and step["target"] == f"HyperPod cluster {NAME} (Failed)"
    assert "capacity" in step["reason"].lower(), step
    assert sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)["ClusterStatus"] == "Failed"  # dry run

    method, path = suggested["delete_hyperpod"]["rest"].split(" ", 1)
    with sandbox.client() as c:
        deleted = c.request(method, path)
    assert deleted.status_code == 202, deleted.text
    done = sandbox.wait_operation(deleted.json()["operation"]["id"])
    assert done["status"] == "SUCCEEDED" and done["kind"] == "delete-hyperpod", done
    assert [p["name"] for p in done["phases"]] == ["DeleteHyperPod"]
    assert NAME not in [s["ClusterName"] for s in sandbox.aws("sagemaker").list_clusters()["ClusterSummaries"]]
    assert sandbox.aws("eks").describe_cluster(name=NAME)["cluster"]["status"] == "ACTIVE"
    with sandbox.client() as c:
        assert c.delete(url, params={"confirm": NAME}).status_code == 404
        # the diagnosis's other suggestion, as it said: its arguments are create_hyperpod's body
        again = c.post(url, json={k: v for k, v in elsewhere["arguments"].items() if k != "cluster"})
    assert sandbox.wait_operation(again.json()["operation"]["id"])["status"] == "SUCCEEDED"
    assert sandbox.aws("sagemaker").describe_cluster(ClusterName=NAME)["ClusterStatus"] == "InService"
