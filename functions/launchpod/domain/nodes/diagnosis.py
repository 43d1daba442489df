"""Read-only diagnoses: findings with their evidence, the likely cause, and the commands a person or an
agent may run after approval (never run here). Pure functions over what the routes read."""

from __future__ import annotations

import re
from typing import Any

from launchpod.domain.clusters import hyperpod
from launchpod.domain.clusters.hyperpod_cluster import HyperPodCluster
from launchpod.domain.jobs.manifests import JOB_LABEL
from launchpod.domain.nodes import ladder, views

EFA = "vpc.amazonaws.com/efa"
_ASKS = {"UnschedulablePendingReboot": "a reboot", "UnschedulablePendingReplacement": "a replacement"}
_NCCL_ERROR = re.compile(r"(NCCL (WARN|ERROR)|ncclSystemError|ncclInternalError|unhandled system error|Timeout)", re.I)


def _finding(severity: str, title: str, *evidence: str) -> dict[str, Any]:
    return {"severity": severity, "title": title, "evidence": [e for e in evidence if e]}


def _events_finding(errors: list[dict[str, Any]], levels: str) -> dict[str, Any]:
    """HyperPod's events at ``levels`` (ListClusterEvents), the first five as evidence."""
    return _finding(
        "error",
        f"{len(errors)} HyperPod events at {levels}",
        *[
            f"{e.get('time')}: {e.get('description')}"
            + (f" ({e['failureMessage']})" if e.get("failureMessage") else "")
            for e in errors[:5]
        ],
    )


def _suggest(cmd: ladder.Command) -> dict[str, Any]:
    return {"tool": cmd["tool"], "arguments": cmd["arguments"], "rest": cmd["rest"], "why": cmd["why"], "mutates": True}


def node(
    cluster: str,
    node_id: str,
    view: dict[str, Any],
    conditions: list[dict[str, Any]],
    kube_events: list[dict[str, Any]],
    hyperpod_events: list[dict[str, Any]],
    incident: dict[str, Any] | None,
) -> dict[str, Any]:
    findings, cause = [], None
    status, message = view["instanceStatus"], view.get("instanceMessage")
    if status != "Running":
        findings.append(
            _finding("error" if status == "Failure" else "warning", f"HyperPod reports {status}", message or "")
        )
        cause = cause or (f"HyperPod reports the instance {status}: {message}" if message else None)
    ready = next((c for c in conditions if c["type"] == "Ready"), None)
    if view.get("kubernetesNode") is None:
        findings.append(
            _finding("warning", "The instance has no Kubernetes Node", "It has not joined the EKS cluster.")
        )
    elif ready and ready["status"] != "True":
        findings.append(
            _finding(
                "error", f"Kubernetes says Ready={ready['status']}", f"{ready.get('reason')}: {ready.get('message')}"
            )
        )
    health = view.get("healthStatus")
    if health and health != "Schedulable":
        labels = ", ".join(f"{k}={v}" for k, v in sorted(view.get("healthLabels", {}).items()))
        findings.append(_finding("error", f"The health agent marks the node {health}", labels))
        types = ", ".join(view.get("faultTypes") or []) or "a fault"
        reason = view["healthLabels"].get("sagemaker.amazonaws.com/fault-reason")
        cause = (
            f"The HyperPod health agent detected {types}"
            + (f" ({reason})" if reason else "")
            + f"; it asks for {_ASKS.get(health, health)}."
        )
    taints = [f"{t['key']}={t.get('value')}:{t['effect']}" for t in view.get("taints", [])]
    if taints:
        findings.append(_finding("warning", "The node is tainted: new pods without a toleration stay off it", *taints))
    errors = [e for e in hyperpod_events if e.get("level") in ("Error", "Warn")]
    if errors:
        findings.append(_events_finding(errors, "Warn or Error for this node"))
    warnings = [e for e in kube_events if e.get("type") == "Warning"]
    if warnings:
        findings.append(
            _finding(
                "warning",
                "Kubernetes warnings about the node",
                *[f"{e.get('reason')}: {e.get('message')}" for e in warnings[:5]],
            )
        )
    busy = [p for p in view.get("pods", []) if p.get("phase") not in ("Succeeded", "Failed")]
    if busy:
        findings.append(
            _finding(
                "info",
                f"{len(busy)} pods run on the node (a reboot or replace interrupts them)",
                *[f"{p['namespace']}/{p['name']}" for p in busy[:10]],
            )
        )
    suggestions = []
    if incident is not None:
        steps = "; ".join(f"{s['action']} {s['mode']}" for s in incident["steps"])
        findings.append(
            _finding(
                "info",
                f"Incident {incident['id']} is {incident['state']}",
                f"{incident['events']} events ({incident['duplicates']} duplicates); steps: {steps}",
            )
        )
        if incident.get("nextStep") and incident["nextStep"].get("tool") not in (None, "diagnose_node"):
            suggestions.append(_suggest(incident["nextStep"]))
    elif health in ("UnschedulablePendingReboot", "UnschedulablePendingReplacement") or (
        ready and ready["status"] != "True"
    ):
        # No incident yet (no event received): the ladder's first rung.
        suggestions.append(
            _suggest(ladder.command(cluster, "reboot", node_id, "Reboot first: the lower rung of the ladder."))
        )
    if not findings:
        findings.append(_finding("info", "Nothing wrong found", f"{status}, Ready, {health or 'no health label'}"))
    return {
        "subject": f"node {node_id} of {cluster}",
        "cause": cause,
        "findings": findings,
        "suggestions": suggestions,
        "limitations": [],
    }


def creation(
    cluster: str,
    described: HyperPodCluster | None,
    operations: list[dict[str, Any]],
    events: list[dict[str, Any]],
    offered: dict[str, list[str]],
    zones: list[str],
    quotas: dict[str, tuple[float, int, int]] | None = None,
) -> dict[str, Any]:
    """``quotas``: per instance type, (the cluster-usage quota, instances the account's other clusters
    ask for, instances this cluster asks for); None when Service Quotas could not be read."""
    findings, cause, suggestions = [], None, []
    if described is None:
        findings.append(
            _finding("warning", "There is no HyperPod cluster", f"DescribeCluster found no cluster {cluster}.")
        )
    else:
        status = described.status
        failure = described.failure_message
        findings.append(
            _finding("error" if status == "Failed" else "info", f"HyperPod cluster is {status}", failure or "")
        )
        if failure:
            cause = hyperpod.failure_hint(failure)
        for group in described.instance_groups:
            if group.status in ("Failed", "Degraded"):
                findings.append(
                    _finding(
                        "error",
                        f"Instance group {group.name} is {group.status}",
                        f"{group.current_count} of {group.target_count} instances up",
                    )
                )
        cluster_id = described.arn.rpartition("/")[2]
        groups = [g.name for g in described.instance_groups]
        findings.append(
            _finding(
                "info",
                "Lifecycle scripts log to CloudWatch",
                f"log group /aws/sagemaker/Clusters/{cluster}/{cluster_id}",
                *[f"log stream LifecycleConfig/{g}/<instance id>" for g in groups],
            )
        )
    failed_ops = [o for o in operations if o["status"] == "FAILED"]
    for op in failed_ops[:2]:
        phase = next((p for p in op["phases"] if p["status"] == "FAILED"), None)
        findings.append(
            _finding(
                "error",
                f"Operation {op['id']} ({op['kind']}) failed" + (f" in {phase['name']}" if phase else ""),
                (phase or {}).get("message") or op.get("message") or "",
            )
        )
        cause = cause or ((phase or {}).get("message") and hyperpod.failure_hint(phase["message"]))  # type: ignore[index]
    errors = [e for e in events if e.get("level") == "Error"]
    if errors:
        findings.append(_events_finding(errors, "Error"))
    for instance_type, where in sorted(offered.items()):
        missing = [z for z in zones if z not in where]
        if not where:
            findings.append(_finding("error", f"{instance_type} is offered in no zone of the region", ""))
        elif missing:
            findings.append(
                _finding(
                    "warning",
                    f"{instance_type} is not offered in {', '.join(missing)}",
                    f"offered in {', '.join(where)}",
                )
            )
        else:
            findings.append(_finding("info", f"{instance_type} is offered in {', '.join(where)}", ""))
    for instance_type, (value, others, own) in sorted((quotas or {}).items()):
        title = f"'{instance_type} for cluster usage' is {value:g}"
        usage = f"the account's other clusters ask for {others}, this one for {own}"
        if others + own > value:
            raise_to = f"raise it to at least {others + own} in Service Quotas (service sagemaker)"
            findings.append(_finding("error", f"{title}: {others + own - value:g} short", usage, raise_to))
            cause = cause or f"The Service Quotas quota '{instance_type} for cluster usage' is too low; {raise_to}."
        else:
            findings.append(_finding("info", title, usage))
    if failed_ops:
        op = failed_ops[0]
        if described is not None and described.status == "Failed":
            suggestions.extend(_after_failed_hyperpod(cluster, op, described, offered, zones))
        suggestions.append(
            {
                "tool": "retry_operation",
                "arguments": {"operationId": op["id"]},
                "rest": f"POST /api/operations/{op['id']}/retry",
                "why": "Once the cause is fixed outside Launchpod (a quota increase, a corrected lifecycle script),"
                " resume from the failed phase with the same request.",
                "mutates": True,
            }
        )
    limitations = (
        []
        if quotas is not None
        else ["Service Quotas could not be read: check 'ml.<type> for cluster usage' in the Service Quotas console."]
    )
    return {
        "subject": f"creation of {cluster}",
        "cause": cause,
        "findings": findings,
        "suggestions": suggestions,
        "limitations": limitations,
    }


def _after_failed_hyperpod(
    cluster: str, op: dict[str, Any], described: HyperPodCluster, offered: dict[str, list[str]], zones: list[str]
) -> list[dict[str, Any]]:
    """What a failed HyperPod cluster allows: asked again in a zone that offers every type of the failed
    request, when its failure names capacity (create_hyperpod deletes the failed one first), and given up
    alone, the EKS control plane kept (delete_hyperpod)."""
    found = []
    request = op.get("request") or {}
    asked = request.get("hyperpod") if op.get("kind") == "provision-cluster" else request
    failure = (described.failure_message or "").lower()
    if isinstance(asked, dict) and "capacity" in failure:
        zone = asked.get("availabilityZone")
        types = {g.get("instanceType") for g in asked.get("instanceGroups") or []}
        others = [z for z in zones if z != zone and all(z in offered.get(str(t), []) for t in types)]
        if others:
            body = {k: v for k, v in asked.items() if k != "name"} | {"availabilityZone": others[0]}
            found.append(
                {
                    "tool": "create_hyperpod",
                    "arguments": {"cluster": cluster, **body},
                    "rest": f"POST /api/clusters/{cluster}/hyperpod",
                    "why": f"{zone} had no capacity; {others[0]} offers {', '.join(sorted(map(str, types)))}. The"
                    " failed HyperPod cluster is deleted first; the EKS control plane stays. Dry-run it first.",
                    "mutates": True,
                }
            )
    found.append(
        {
            "tool": "delete_hyperpod",
            "arguments": {"cluster": cluster, "confirm": cluster},
            "rest": f"DELETE /api/clusters/{cluster}/hyperpod?confirm={cluster}",
            "why": "Give up the failed HyperPod cluster alone and keep the EKS control plane, to create HyperPod"
            " again later.",
            "mutates": True,
        }
    )
    return found


def job_pods(pods: list[dict[str, Any]], job: str) -> list[dict[str, Any]]:
    """The pods of ``job``: those Launchpod's job label names (every job Launchpod submits carries it), or,
    for a job submitted some other way, pods labelled ``job-name`` or named ``<job>-*``."""
    labelled = [p for p in pods if (p["metadata"].get("labels") or {}).get(JOB_LABEL) == job]
    if labelled:
        return labelled
    return [
        p
        for p in pods
        if p["metadata"]["name"].startswith(f"{job}-") or (p["metadata"].get("labels") or {}).get("job-name") == job
    ]


def nccl(
    cluster: str,
    job: str | None,
    nodes: list[dict[str, Any]],
    kube_nodes: dict[str, dict[str, Any]],
    pods: list[dict[str, Any]],
    logs: dict[str, str],
    incidents: list[dict[str, Any]],
) -> dict[str, Any]:
    findings: list[dict[str, Any]] = []
    limitations = ["NCCL and EFA settings are read from the pods' environment, not from inside the running processes."]
    by_name = {n.get("kubernetesNode"): n for n in nodes if n.get("kubernetesNode")}
    used = sorted({str(n) for p in pods if (n := (p.get("spec") or {}).get("nodeName"))})
    scope = [by_name[n] for n in used if n in by_name] if pods else nodes
    if job and not pods:
        findings.append(
            _finding(
                "warning",
                f"No pods of job {job} were found",
                f"Looked for pods labelled {JOB_LABEL}={job}, labelled job-name={job} or named {job}-*",
            )
        )
    zones = sorted({str(n["availabilityZone"]) for n in scope if n.get("availabilityZone")})
    if len(zones) > 1:
        findings.append(
            _finding(
                "warning",
                "The nodes span several availability zones",
                "NCCL over EFA needs every rank in one zone: " + ", ".join(zones),
            )
        )
    elif zones:
        findings.append(_finding("info", f"All {len(scope)} nodes are in {zones[0]}", ""))
    for n in scope:
        allocatable = ((kube_nodes.get(n["nodeId"]) or {}).get("status") or {}).get("allocatable") or {}
        if not views._quantity(allocatable.get(EFA, 0)):
            findings.append(
                _finding("warning", f"{n['nodeId']} has no EFA device allocatable", f"{n['instanceType']}: {EFA}=0")
            )
    for pod in pods:
        name = pod["metadata"]["name"]
        containers = (pod.get("spec") or {}).get("containers") or []
        env = {e["name"]: e.get("value") for c in containers for e in c.get("env") or [] if "name" in e}
        asks_efa = any(EFA in ((c.get("resources") or {}).get("requests") or {}) for c in containers)
        nccl_env = {k: v for k, v in env.items() if k.startswith(("NCCL_", "FI_"))}
        findings.append(
            _finding(
                "info" if asks_efa and env.get("FI_PROVIDER") == "efa" else "warning",
                f"Pod {name}: EFA {'requested' if asks_efa else 'not requested'}, FI_PROVIDER={env.get('FI_PROVIDER')}",
                *[f"{k}={v}" for k, v in sorted(nccl_env.items())],
            )
        )
        errors = [line for line in logs.get(name, "").splitlines() if _NCCL_ERROR.search(line)]
        if errors:
            findings.append(_finding("error", f"NCCL errors in the log of {name}", *errors[:5]))
    earlier = [i for i in incidents if set(i["nodes"]) & {n["nodeId"] for n in scope}]
    for incident in earlier[:5]:
        findings.append(
            _finding(
                "warning",
                f"Node {incident['nodeId']} had incident {incident['id']} ({incident['state']})",
                incident.get("reason") or "",
            )
        )
    cause = None
    if any(f["title"].startswith("NCCL errors") for f in findings) and earlier:
        cause = "NCCL errors on nodes that had health incidents: start from diagnose_node on those nodes."
    elif len(zones) > 1:
        cause = "The job's nodes are spread over several zones."
    return {
        "subject": f"NCCL on {cluster}" + (f" for job {job}" if job else ""),
        "cause": cause,
        "findings": findings,
        "suggestions": [],
        "limitations": limitations,
    }
