"""The HyperPod observability feature on a shared test cluster, turned on as a user does from the console or an
agent: PATCH features {"hyperpodObservability": {"enabled": true}} (Launchpod makes the Amazon Managed Prometheus
workspace, the collector's role and the add-on), and the metrics routes read back."""

from __future__ import annotations

import json

from tests.sandbox.aws.support import wait_until

ADDON = "amazon-sagemaker-hyperpod-observability"


def observability_on(sandbox, cluster: str) -> str:
    """The feature on for ``cluster`` (a NOOP when it already is); answers the id of the workspace it writes to."""
    with sandbox.client() as c:
        response = c.patch(f"/api/clusters/{cluster}/features", json={"hyperpodObservability": {"enabled": True}})
    if response.status_code == 202:
        operation = sandbox.wait_operation(response.json()["operation"]["id"], timeout=120)
        assert operation["status"] == "SUCCEEDED", operation
    else:
        assert response.status_code == 200 and response.json()["status"] == "NOOP", response.text
    eks = sandbox.aws("eks")
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
