"""Importing an EKS cluster Launchpod did not create: it is checked, reached, recorded, and on
delete left in place (Launchpod deletes only what it created)."""

from __future__ import annotations

import pytest

from tests.sandbox.clusters import their_eks_cluster

pytestmark = pytest.mark.e2e


def test_an_existing_cluster_is_imported_and_survives_delete(sandbox):
    their_eks_cluster(sandbox, "theirs", "API_AND_CONFIG_MAP")
    with sandbox.client() as c:
        op = c.post("/api/clusters/import", json={"name": "theirs"}).json()["operation"]["id"]
    done = sandbox.wait_operation(op)
    assert done["status"] == "SUCCEEDED", done
    assert [p["name"] for p in done["phases"]] == ["AccessEntry", "VerifyAccess", "Register"]
    with sandbox.client("viewer") as c:
        view = c.get("/api/clusters/theirs").json()
    assert view["source"] == "imported" and view["eks"]["status"] == "ACTIVE"
    with sandbox.client() as c:
        again = c.post("/api/clusters/import", json={"name": "theirs"})
        op = c.delete("/api/clusters/theirs", params={"confirm": "theirs"}).json()["operation"]["id"]
    assert again.status_code == 200 and again.json()["status"] == "NOOP"
    done = sandbox.wait_operation(op)
    assert done["status"] == "SUCCEEDED", done
    control = next(p for p in done["phases"] if p["name"] == "DeleteControlPlane")
    assert control["status"] == "SKIPPED" and "not created by Launchpod" in control["message"]
    assert sandbox.aws("eks").describe_cluster(name="theirs")["cluster"]["status"] == "ACTIVE"


def test_a_config_map_only_cluster_is_refused_with_what_to_change(sandbox):
    their_eks_cluster(sandbox, "legacy", "CONFIG_MAP")
    with sandbox.client() as c:
        refused = c.post("/api/clusters/import", json={"name": "legacy"})
        missing = c.post("/api/clusters/import", json={"name": "nowhere"})
    assert refused.status_code == 409 and "API_AND_CONFIG_MAP" in refused.json()["message"]
    assert missing.status_code == 409 and "no cluster named nowhere" in missing.json()["message"]


def test_a_foreign_cluster_tagged_as_launchpods_is_not_deleted(sandbox):
    # Anyone allowed eks:TagResource can put Launchpod's ownership tags on a cluster; delete-cluster
    # also needs the registry's record that Launchpod's create phase made it (launchpod.domain.ownership).
    their_eks_cluster(sandbox, "forged", "API_AND_CONFIG_MAP")
    eks = sandbox.aws("eks")
    arn = eks.describe_cluster(name="forged")["cluster"]["arn"]
    eks.tag_resource(resourceArn=arn, tags={"launchpod:cluster": "forged", "launchpod:managed-by": "launchpod"})
    with sandbox.client() as c:
        op = c.delete("/api/clusters/forged", params={"confirm": "forged"}).json()["operation"]["id"]
    done = sandbox.wait_operation(op)
    assert done["status"] == "SUCCEEDED", done
    control = next(p for p in done["phases"] if p["name"] == "DeleteControlPlane")
    assert control["status"] == "SKIPPED" and "not created by Launchpod" in control["message"]
    assert eks.describe_cluster(name="forged")["cluster"]["status"] == "ACTIVE"
