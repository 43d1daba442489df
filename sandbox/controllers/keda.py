"""KEDA, installed with the HyperPod inference add-on, as a simulated controller; and the ScaledObject the
inference operator makes from an InferenceEndpointConfig's or JumpStartModel's ``autoScalingSpec``.

The operator turns autoScalingSpec into a KEDA ScaledObject on the model's Deployment
(https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-model-deployment-autoscaling.html): a
cloudWatchTrigger becomes an ``aws-cloudwatch`` trigger read as the operator's identity (identityOwner
operator), a prometheusTrigger a ``prometheus`` trigger on its AMP workspace. The ScaledObject's name
(``<resource>-scaled-object``) is this emulation's choice; the operator's is not documented, so Launchpod
finds it by its scaleTargetRef.

KEDA feeds the HPA an AverageValue target: the Deployment gets ceil(value / target) replicas within
min..max; at value 0 KEDA deactivates to minReplicaCount
(https://keda.sh/docs/2.17/concepts/scaling-deployments/). Each ScaledObject is polled every
``pollingInterval`` simulated seconds. A trigger's value:

* prometheus: what ``/api/sandbox/metrics`` set for that cluster and query (0 until set), once the
  serverAddress resolves: an in-cluster name must be a Service of the cluster (prometheus_value);
* aws-cloudwatch: cloudwatch:GetMetricData on moto's CloudWatch, as KEDA's scaler queries it: one MetricStat
  (namespace, metricName, dimensionName/dimensionValue split on ';', metricStat, metricStatPeriod) from now
  minus metricCollectionTime to now minus metricEndTimeOffset, ScanBy TimestampDescending, the newest
  datapoint, or minMetricValue when there is none (https://keda.sh/docs/2.17/scalers/aws-cloudwatch/). The
  call is authorized as the pod identity of the inference add-on's service account (the role Launchpod's
  inference feature creates; the add-on's own KEDA service account is not documented, so the emulation
  takes the add-on's association), with its permissions boundary (sandbox.aws.iam.pods).

A trigger that fails (no credentials, AccessDenied) scales nothing: the replicas stay, the ScaledObject's
Ready condition is False with reason TriggerError and Active False (kedacore/keda#2603, #6895), and a
Warning event KEDAScalerFailed carries the scaler's error. Not modelled: cooldown and stabilization
windows, fallback, multiple triggers (the first one counts), metricType Value.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import time
import urllib.parse
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from sandbox.aws import clock
from sandbox.controllers.common import timestamp
from sandbox.state import STATE

SCALED_OBJECTS = "keda.sh/v1alpha1/scaledobjects"


@dataclass
class KedaState:
    """The Prometheus query results the sandbox serves, by (cluster, query), set through
    /api/sandbox/metrics; and each ScaledObject's last poll (uid -> time.monotonic())."""

    metrics: dict[tuple[str, str], float] = field(default_factory=dict)
    last_poll: dict[str, float] = field(default_factory=dict)


def keda_state() -> KedaState:
    return STATE.part(KedaState)


class ScalerError(Exception):
    """The scaler could not read its metric (the message is the error KEDA reports)."""


def desired_replicas(value: float, threshold: float, low: int, high: int) -> int:
    """ceil(value / threshold) replicas within min..max; at value 0 KEDA deactivates to minReplicaCount
    (0 allowed) (https://keda.sh/docs/2.17/concepts/scaling-deployments/, .../scalers/prometheus/)."""
    if value <= 0:
        return low
    return max(max(low, 1), min(high, math.ceil(value / threshold)))


def _number(value: Any) -> str:
    return f"{float(value):g}"


def operator_trigger(auto: dict[str, Any], region: str) -> dict[str, Any] | None:
    """The KEDA trigger the operator writes for an autoScalingSpec (its list forms take the first item)."""
    cw = auto.get("cloudWatchTrigger") or next(iter(auto.get("cloudWatchTriggerList") or []), None)
    if cw:
        dims = cw.get("dimensions") or []
        meta = {
            "namespace": str(cw.get("namespace", "")),
            "metricName": str(cw.get("metricName", "")),
            "targetMetricValue": _number(cw.get("targetValue", 1)),
            "minMetricValue": _number(cw.get("minValue", 0)),
            "activationTargetMetricValue": _number(cw.get("activationTargetValue", 0)),
            "metricStat": str(cw.get("metricStat", "Average")),
            "metricStatPeriod": str(int(cw.get("metricCollectionPeriod", 300))),
            "metricCollectionTime": str(int(cw.get("metricCollectionStartTime", 300))),
            "awsRegion": region,
            "identityOwner": "operator",
        }
        if dims:
            meta["dimensionName"] = ";".join(str(d["name"]) for d in dims)
            meta["dimensionValue"] = ";".join(str(d["value"]) for d in dims)
        kind = "Value" if cw.get("metricType") == "Value" else "AverageValue"
        return {"type": "aws-cloudwatch", "metricType": kind, "metadata": meta}
    prom = auto.get("prometheusTrigger") or next(iter(auto.get("prometheusTriggerList") or []), None)
    if prom:
        meta = {
            "serverAddress": str(prom.get("serverAddress", "")),
            "query": str(prom.get("query", "")),
            "threshold": _number(prom.get("targetValue", 1)),
            "activationThreshold": _number(prom.get("activationTargetValue", 0)),
        }
        kind = "Value" if prom.get("metricType") == "Value" else "AverageValue"
        return {"type": "prometheus", "metricType": kind, "metadata": meta}
    return None


def operator_scaled_object(
    resource: dict[str, Any], kind: str, group_version: str, region: str
) -> dict[str, Any] | None:
    """The ScaledObject the inference operator makes for its Deployment (same name as the resource), owned by
    the resource so it goes with it; None when autoScalingSpec has no trigger."""
    meta, spec = resource["metadata"], resource.get("spec") or {}
    auto = spec.get("autoScalingSpec") or {}
    trigger = operator_trigger(auto, region)
    if trigger is None:
        return None
    owner = [{"apiVersion": group_version, "kind": kind, "name": meta["name"], "uid": meta.get("uid", "")}]
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {
            "name": f"{meta['name']}-scaled-object",
            "namespace": meta["namespace"],
            "labels": {"sagemaker.amazonaws.com/inference-endpoint": meta["name"]},
            "ownerReferences": owner,
        },
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": meta["name"]},
            "minReplicaCount": int(auto.get("minReplicaCount", 1)),
            "maxReplicaCount": int(auto.get("maxReplicaCount", 5)),
            "pollingInterval": int(auto.get("pollingInterval", 30)),
            "cooldownPeriod": int(auto.get("cooldownPeriod", 300)),
            "initialCooldownPeriod": int(auto.get("initialCooldownPeriod", 300)),
            "triggers": [trigger],
        },
    }


@lru_cache(maxsize=8)
def _cloudwatch(region: str) -> Any:
    import boto3

    return boto3.client("cloudwatch", region_name=region)


def _keda_irsa_role(addon: Any) -> str | None:
    """The role the add-on's configuration gives KEDA (keda.auth.aws.irsa.roleArn), if any."""
    try:
        values = json.loads(addon.configuration_values or "{}")
    except ValueError:
        return None
    irsa = (((values.get("keda") or {}).get("auth") or {}).get("aws") or {}).get("irsa") or {}
    # KEDA's chart annotates its service account only with podIdentity.aws.irsa.enabled set (its default is
    # off), so a role named without it gives KEDA nothing.
    return str(irsa["roleArn"]) if irsa.get("enabled") is True and irsa.get("roleArn") else None


def _operator_identity(emulator: Any, cluster: str, addon_name: str) -> tuple[Any, str]:
    """(the KEDA operator's identity, account), or ScalerError as the SDK's credential chain fails. KEDA runs as
    its keda-operator service account in the add-on's namespace, annotated with the IRSA role the add-on's
    configuration names (keda.auth.aws.irsa.roleArn; KEDA's chart annotates its service account with it,
    https://keda.sh/docs/2.13/authentication-providers/aws/); without one, as the pod identity association the
    add-on owns."""
    from sandbox.aws.eks import find_cluster
    from sandbox.aws.iam import pods

    found = find_cluster(cluster)
    addon = (found.addons if found is not None else {}).get(addon_name)
    if found is None or addon is None:
        raise ScalerError("no EKS cluster or inference add-on")
    account = found.arn.split(":")[4]
    role = _keda_irsa_role(addon)
    if role is not None:
        from sandbox.aws.eks.catalog import ADDON_CATALOG

        namespace, name = ADDON_CATALOG[addon_name]["namespace"], "keda-operator"
        annotated = {"metadata": {"annotations": {pods.ROLE_ANNOTATION: role}}}
        try:
            return pods.identity_of(found, account, annotated, namespace, name), account
        except pods.NoCredentials as exc:
            raise ScalerError(f"failed to retrieve credentials: {exc}") from exc
    owned = [a for a in found.pod_identity_associations.values() if a.owner_arn == addon.arn]
    if not owned:
        raise ScalerError(
            "failed to retrieve credentials: the inference add-on gives KEDA no IAM role (keda.auth.aws.irsa) and"
            " its service account has no pod identity association"
        )
    association = owned[0]
    account_object = emulator.get_object("v1/serviceaccounts", association.namespace, association.service_account)
    try:
        identity = pods.identity_of(found, account, account_object, association.namespace, association.service_account)
    except pods.NoCredentials as exc:
        raise ScalerError(f"failed to retrieve credentials: {exc}") from exc
    return identity, account


def cloudwatch_value(emulator: Any, cluster: str, addon_name: str, meta: dict[str, Any]) -> float:
    """The newest datapoint GetMetricData answers for the trigger, as the operator's identity."""
    from sandbox.aws.iam import authz, pods

    identity, account = _operator_identity(emulator, cluster, addon_name)
    region = str(meta.get("awsRegion") or "us-east-1")
    names = [n for n in str(meta.get("dimensionName") or "").split(";") if n]
    values = [v for v in str(meta.get("dimensionValue") or "").split(";") if v]
    metric: dict[str, Any] = {"Namespace": meta.get("namespace", ""), "MetricName": meta.get("metricName", "")}
    if names:
        metric["Dimensions"] = [{"Name": n, "Value": v} for n, v in zip(names, values, strict=False)]
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    params = {
        "MetricDataQueries": [
            {
                "Id": "c1",
                "MetricStat": {
                    "Metric": metric,
                    "Period": int(meta.get("metricStatPeriod") or 300),
                    "Stat": str(meta.get("metricStat") or "Average"),
                },
                "ReturnData": True,
            }
        ],
        "StartTime": now - datetime.timedelta(seconds=int(meta.get("metricCollectionTime") or 300)),
        "EndTime": now - datetime.timedelta(seconds=int(meta.get("metricEndTimeOffset") or 0)),
        "ScanBy": "TimestampDescending",
        "MaxDatapoints": 1,
    }
    call = authz.Call(prefix="cloudwatch", operation="GetMetricData", params=params, region=region, account=account)
    refused = pods.authorize(identity, call)
    if refused:
        raise ScalerError(
            "error getting metric data: operation error CloudWatch: GetMetricData, https response error "
            f"StatusCode: 403, api error AccessDenied: {refused}"
        )
    answer = _cloudwatch(region).get_metric_data(**params)
    found = (answer.get("MetricDataResults") or [{}])[0].get("Values") or []
    return float(found[0]) if found else float(meta.get("minMetricValue") or 0)


async def _event(emulator: Any, scaled: dict[str, Any], message: str) -> None:
    meta = scaled["metadata"]
    name = f"{meta['name']}.keda-scaler-failed"
    old = emulator.get_object("v1/events", meta["namespace"], name)
    if old is not None and old.get("message") == message:
        return
    now = timestamp()
    await emulator.put_object(
        "v1/events",
        {
            **(old or {}),
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {**((old or {}).get("metadata") or {}), "name": name, "namespace": meta["namespace"]},
            "involvedObject": {"kind": "ScaledObject", "namespace": meta["namespace"], "name": meta["name"]},
            "reason": "KEDAScalerFailed",
            "message": message,
            "type": "Warning",
            "source": {"component": "keda-operator"},
            "lastTimestamp": now,
        },
    )


def _due(scaled: dict[str, Any]) -> bool:
    uid = str(scaled["metadata"].get("uid") or scaled["metadata"]["name"])
    interval = clock.real_seconds(float((scaled.get("spec") or {}).get("pollingInterval", 30)))
    polls = keda_state().last_poll
    last = polls.get(uid)
    if last is not None and time.monotonic() - last < interval:
        return False
    polls[uid] = time.monotonic()
    return True


# A Service's cluster DNS name: <service>.<namespace>.svc[.<cluster domain>]
# (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#services).
_IN_CLUSTER = re.compile(r"^(?P<svc>[a-z0-9-]+)\.(?P<ns>[a-z0-9-]+)\.svc(\.cluster\.local)?$")
# EKS's kube-dns Service address in a VPC whose CIDR is 10.x (the cluster's service IPv4 range 10.100.0.0/16).
CLUSTER_DNS = "10.100.0.10:53"


def prometheus_value(emulator: Any, cluster: str, meta: dict[str, Any]) -> float:
    """The query's value from the Prometheus at serverAddress (https://keda.sh/docs/2.17/scalers/prometheus/:
    serverAddress, the address of the Prometheus server KEDA's operator queries). A cluster-DNS name
    resolves only to a Service of the cluster: a name with no Service behind it fails the query as KEDA's
    HTTP client does ("error executing prometheus query: Get ...: dial tcp: lookup ...: no such host",
    kedacore/keda#3272). Addresses outside the cluster (an AMP workspace the operator names) are not
    resolved here. The value itself is what /api/sandbox/metrics set (0 until set); not modelled: a
    Service without the port or without ready Prometheus pods (a timeout or a refused connection)."""
    address = str(meta.get("serverAddress", ""))
    host = urllib.parse.urlsplit(address).hostname or ""
    found = _IN_CLUSTER.match(host)
    if found and emulator.get_object("v1/services", found["ns"], found["svc"]) is None:
        query = urllib.parse.urlencode({"query": str(meta.get("query", ""))})
        raise ScalerError(
            f'error executing prometheus query: Get "{address.rstrip("/")}/api/v1/query?{query}": '
            f"dial tcp: lookup {host} on {CLUSTER_DNS}: no such host"
        )
    return keda_state().metrics.get((cluster, str(meta.get("query", ""))), 0.0)


def _value(emulator: Any, cluster: str, addon_name: str, trigger: dict[str, Any]) -> float:
    meta = trigger.get("metadata") or {}
    if trigger.get("type") == "aws-cloudwatch":
        return cloudwatch_value(emulator, cluster, addon_name, meta)
    return prometheus_value(emulator, cluster, meta)


async def reconcile(emulator: Any, cluster: str, addon_name: str) -> None:
    for scaled in emulator.list_objects(SCALED_OBJECTS):
        meta, spec = scaled["metadata"], scaled.get("spec") or {}
        target = emulator.get_object(
            "apps/v1/deployments", meta["namespace"], (spec.get("scaleTargetRef") or {}).get("name", "")
        )
        trigger = (spec.get("triggers") or [{}])[0]
        if target is None or trigger.get("type") not in ("prometheus", "aws-cloudwatch") or not _due(scaled):
            continue
        status: dict[str, Any] = {
            "scaleTargetKind": "apps/v1.Deployment",
            "hpaName": f"keda-hpa-{meta['name']}",
            "originalReplicaCount": int((target.get("spec") or {}).get("replicas", 1)),
            "externalMetricNames": [f"s0-{trigger['type']}"],
        }
        try:
            value = _value(emulator, cluster, addon_name, trigger)
        except ScalerError as exc:
            status["conditions"] = [
                {
                    "type": "Ready",
                    "status": "False",
                    "reason": "TriggerError",
                    "message": "Triggers defined in ScaledObject are not working correctly",
                },
                {
                    "type": "Active",
                    "status": "False",
                    "reason": "ScalerNotActive",
                    "message": "Scaling is not performed because triggers are not active",
                },
            ]
            await _event(emulator, scaled, str(exc))
        else:
            threshold = float((trigger.get("metadata") or {}).get("threshold") or 0) or float(
                (trigger.get("metadata") or {}).get("targetMetricValue") or 1
            )
            low, high = int(spec.get("minReplicaCount", 0)), int(spec.get("maxReplicaCount", 100))
            wanted = desired_replicas(value, threshold, low, high)
            if (target.get("spec") or {}).get("replicas") != wanted:
                target["spec"]["replicas"] = wanted
                target["metadata"]["generation"] = int(target["metadata"].get("generation", 1)) + 1
                await emulator.put_object("apps/v1/deployments", target)
            status["conditions"] = [
                {"type": "Ready", "status": "True", "reason": "ScaledObjectReady"},
                {"type": "Active", "status": "True" if value > 0 else "False"},
            ]
        if scaled.get("status") != status:
            await emulator.put_object(SCALED_OBJECTS, {**scaled, "status": status})
