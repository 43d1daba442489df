"""Container Insights' Fluent Bit, emulated: container lines shipped to CloudWatch Logs (moto's backend).

The Amazon CloudWatch Observability add-on runs Fluent Bit as a DaemonSet that tails every container's
log file on its node and sends the lines to ``/aws/containerinsights/<cluster>/application``
(aws-observability/helm-charts, charts/amazon-cloudwatch-observability; the group and stream names are
pinned and cited in launchpod's dependency manifest). The sandbox ships a line when a container writes it,
and only if, at that moment:

* EKS reports the add-on ACTIVE (its health follows its workloads, so a cluster without a node that can
  host its Deployment has it DEGRADED, as for every add-on: sandbox.aws.eks), and the pod is on a node;
* Fluent Bit's service account ``amazon-cloudwatch/cloudwatch-agent`` gets credentials (its pod identity
  association, or IRSA) and the role may call logs:CreateLogGroup (when the group is missing, as
  ``auto_create_group true`` does), logs:CreateLogStream (a new stream) and logs:PutLogEvents, evaluated with
  the policies of the role (sandbox.aws.iam.pods). A refusal ships nothing; Fluent Bit retries with the
  next chunk and, as here, never sends what it could not (its retries are not modelled).

Lines written before then are not shipped later: Fluent Bit reads from the files' tail (READ_FROM_HEAD Off).
Each event is the JSON record Fluent Bit sends: ``log``, ``stream``, ``time`` and the kubernetes filter's
``kubernetes`` block (pod_name, namespace_name, pod_id, host, container_name, docker_id, container_image).
Not modelled: the CloudWatch agent's metrics (performance log events), dataplane and host log groups,
Fluent Bit's batching (5 s flush) and its own pods (the add-on's DaemonSets are not created in the emulated
Kubernetes; a Fluent Bit is assumed on every node, as its chart tolerates every taint).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import time
from typing import Any

from sandbox.kube.emulator import log_sinks

log = logging.getLogger("sandbox.controllers.container_insights")

ADDON = "amazon-cloudwatch-observability"
NAMESPACE, SERVICE_ACCOUNT = "amazon-cloudwatch", "cloudwatch-agent"


def log_group(cluster: str) -> str:
    return f"/aws/containerinsights/{cluster}/application"


def container_id(pod: dict[str, Any], container: str) -> str:
    """The runtime's 64-hex container id (the sandbox's pods report none): stable per pod uid and container."""
    uid = (pod.get("metadata") or {}).get("uid") or (pod.get("metadata") or {}).get("name", "")
    return hashlib.sha256(f"{uid}/{container}".encode()).hexdigest()


def stream_name(node: str, pod: str, namespace: str, container: str, cid: str) -> str:
    """``log_stream_prefix ${HOST_NAME}-`` plus the tail input's tag, ``application.`` and the file's path
    with dots: /var/log/containers/<pod>_<namespace>_<container>-<container id>.log."""
    return f"{node}-application.var.log.containers.{pod}_{namespace}_{container}-{cid}.log"


def _backend(account: str, region: str) -> Any:
    from moto.logs.models import logs_backends

    return logs_backends[account][region]


def _refused(
    cluster: str, identity: Any, account: str, region: str, calls: list[tuple[str, dict[str, Any]]]
) -> str | None:
    from sandbox.aws.iam import authz, pods

    for operation, params in calls:
        call = authz.Call(prefix="logs", operation=operation, params=params, region=region, account=account)
        refused: str | None = pods.authorize(identity, call)
        if refused:
            return refused
    return None


def ship(emulator: Any, namespace: str, pod_name: str, container: str | None, text: str) -> None:
    """A LogSink: ship ``text`` (one or more lines) of ``pod_name`` if Fluent Bit would, else nothing."""
    from sandbox.aws.eks import find_cluster
    from sandbox.aws.iam import pods

    cluster = emulator.cluster_name
    found = find_cluster(cluster)
    addon = found.addons.get(ADDON) if found is not None else None
    if addon is None or addon.health(emulator.list_objects("v1/nodes", copied=False))[0] != "ACTIVE":
        return
    pod = emulator.get_object("v1/pods", namespace, pod_name)
    node = ((pod or {}).get("spec") or {}).get("nodeName")
    if pod is None or not node:
        return
    containers = pod["spec"].get("containers") or [{}]
    spec = next((c for c in containers if c.get("name") == container), containers[0])
    container = spec.get("name") or container or ""
    _, _, _, region, account, _ = found.arn.split(":", 5)
    try:
        identity = pods.identity_of(
            found,
            account,
            emulator.get_object("v1/serviceaccounts", NAMESPACE, SERVICE_ACCOUNT),
            NAMESPACE,
            SERVICE_ACCOUNT,
        )
    except pods.NoCredentials as exc:
        log.debug("Fluent Bit on %s has no credentials: %s", cluster, exc)
        return
    cid = container_id(pod, container)
    group, stream = log_group(cluster), stream_name(node, pod_name, namespace, container, cid)
    backend = _backend(account, region)
    calls: list[tuple[str, dict[str, Any]]] = []
    if group not in backend.groups:
        calls.append(("CreateLogGroup", {"logGroupName": group}))
    if group not in backend.groups or stream not in backend.groups[group].streams:
        calls.append(("CreateLogStream", {"logGroupName": group, "logStreamName": stream}))
    calls.append(("PutLogEvents", {"logGroupName": group, "logStreamName": stream}))
    refused = _refused(cluster, identity, account, region, calls)
    if refused:
        log.debug("Fluent Bit on %s could not ship %s/%s: %s", cluster, namespace, pod_name, refused)
        return
    if group not in backend.groups:
        backend.create_log_group(group, {})
    if stream not in backend.groups[group].streams:
        backend.create_log_stream(group, stream)
    now = time.time()
    meta = {
        "pod_name": pod_name,
        "namespace_name": namespace,
        "pod_id": pod["metadata"].get("uid", ""),
        "host": node,
        "container_name": container,
        "docker_id": cid,
        "container_image": spec.get("image", ""),
    }
    stamp = datetime.datetime.fromtimestamp(now, datetime.UTC).isoformat().replace("+00:00", "Z")
    events = [
        {
            "timestamp": int(now * 1000),
            "message": json.dumps({"time": stamp, "stream": "stdout", "_p": "F", "log": line, "kubernetes": meta}),
        }
        for line in text.splitlines()
    ]
    if events:
        backend.put_log_events(group, stream, events)


def install() -> None:
    sinks = log_sinks()
    if ship not in sinks:
        sinks.append(ship)
