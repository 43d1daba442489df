"""What the end-to-end tests do with an inference endpoint on any of their clusters: ask it through its
OpenAI-compatible path, and delete it until every Deployment it made is gone."""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s
from openai import OpenAI

from tests.sandbox.aws.support import wait_until


def chat(sandbox: Any, cluster: str, endpoint: str, model: str, text: str, max_tokens: int) -> str | None:
    """The endpoint's answer to one user message, through the `openai` SDK on
    /api/clusters/<cluster>/endpoints/<endpoint>/openai/v1 as the operator."""
    client = OpenAI(
        base_url=f"{sandbox.url}/api/clusters/{cluster}/endpoints/{endpoint}/openai/v1",
        api_key=sandbox.tokens["operator"],
        max_retries=0,
        timeout=60,
    )
    answer = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": text}], max_tokens=max_tokens
    )
    return answer.choices[0].message.content


def delete_endpoint(sandbox: Any, cluster: str, endpoint: str, reason: str) -> None:
    """Delete the endpoint as the operator: the operation succeeds, then no Deployment named after it is left
    (``reason`` says which ones the test expects gone)."""
    with sandbox.client("operator") as c:
        deleted = c.delete(f"/api/clusters/{cluster}/endpoints/{endpoint}")
    assert deleted.status_code == 202, deleted.text
    assert sandbox.wait_operation(deleted.json()["operation"]["id"], timeout=60)["status"] == "SUCCEEDED"
    apps = k8s.AppsV1Api(sandbox.kube(cluster))
    wait_until(
        lambda: (
            not [d for d in apps.list_namespaced_deployment("default").items if d.metadata.name.startswith(endpoint)]
        ),
        timeout=30,
        interval=0.2,
        reason=reason,
    )
