"""The HyperPod observability add-on on a shared test cluster, as a user installs it from the EKS console's
quick install: an Amazon Managed Prometheus workspace and the add-on with its ampWorkspace configuration
(values as AWS's Terraform sample sets them). Launchpod does not manage this add-on yet; it reads it."""

from __future__ import annotations

import json

from tests.sandbox.aws.support import wait_until

ADDON = "amazon-sagemaker-hyperpod-observability"


def observability_on(sandbox, cluster: str) -> str:
    """The add-on ACTIVE on ``cluster``, writing to a workspace of its own; answers the workspace id."""
    eks = sandbox.aws("eks")
    if ADDON not in eks.list_addons(clusterName=cluster)["addons"]:
        workspace = sandbox.aws("amp").create_workspace(alias=f"{cluster}-observability")
        endpoint = sandbox.aws("amp").describe_workspace(workspaceId=workspace["workspaceId"])["workspace"]
        values = {
            "ampWorkspace": {"prometheusEndpoint": endpoint["prometheusEndpoint"].rstrip("/"), "arn": workspace["arn"]}
        }
        eks.create_addon(clusterName=cluster, addonName=ADDON, configurationValues=json.dumps(values))
    addon = wait_until(
        lambda: (
            (found := eks.describe_addon(clusterName=cluster, addonName=ADDON)["addon"])["status"] == "ACTIVE" and found
        ),
        timeout=60,
        reason=f"{ADDON} ACTIVE on {cluster}",
    )
    return str(json.loads(addon["configurationValues"])["ampWorkspace"]["arn"]).rpartition("/")[2]


def metrics(sandbox, cluster: str, path: str, **params) -> dict:
    with sandbox.client("viewer") as c:
        response = c.get(f"/api/clusters/{cluster}{path}", params=params)
    assert response.status_code == 200, response.text
    return dict(response.json())


def series(view: dict, metric: str) -> list[dict]:
    return [s for s in view["series"] if s["metric"] == metric]
