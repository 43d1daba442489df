"""The Kubernetes objects each manifest entry installs: pure builders, validated by the tests
against the Kubernetes schemas (and the vendored KubeRay CRDs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from launchpod.domain.clusters.instance_types import EFA_TYPES, NEURON_TYPES, NVIDIA_GPU_TYPES

MANAGED = {"app.kubernetes.io/managed-by": "launchpod"}
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
# Account that publishes HyperPod's health monitoring agent image (us-east-1; per-region accounts differ).
HMA_REGISTRY = "767398015722.dkr.ecr.{region}.amazonaws.com"
EKS_REGISTRY = "602401143452.dkr.ecr.{region}.amazonaws.com"

Obj = dict[str, Any]


def _labels(name: str, version: str) -> dict[str, str]:
    return {**MANAGED, "app.kubernetes.io/name": name, "app.kubernetes.io/version": version}


def _namespace(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(MANAGED)}}


def _service_account(name: str, namespace: str, version: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": namespace, "labels": _labels(name, version)},
    }


def _rbac(name: str, namespace: str, version: str, rules: list[Obj]) -> list[Obj]:
    labels = _labels(name, version)
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": name, "labels": labels},
            "rules": rules,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": name, "labels": labels},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
        },
    ]


def _only_on(key: str, values: Sequence[str]) -> Obj:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]
            }
        }
    }


def _daemonset(
    name: str,
    namespace: str,
    version: str,
    image: str,
    affinity: Obj,
    *,
    tolerations: list[Obj],
    volumes: list[tuple[str, str]],
    privileged: bool = False,
    host_network: bool = False,
    service_account: str | None = None,
    args: list[str] | None = None,
) -> Obj:
    container: Obj = {
        "name": name,
        "image": image,
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "256Mi"}},
        "volumeMounts": [{"name": v, "mountPath": path} for v, path in volumes],
        "securityContext": {"privileged": True}
        if privileged
        else {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
    }
    if args:
        container["args"] = args
    spec: Obj = {
        "priorityClassName": "system-node-critical",
        "affinity": affinity,
        "tolerations": tolerations,
        "containers": [container],
        "volumes": [{"name": v, "hostPath": {"path": path}} for v, path in volumes],
    }
    if host_network:
        spec["hostNetwork"] = True
    if service_account:
        spec["serviceAccountName"] = service_account
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": namespace, "labels": _labels(name, version)},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {"metadata": {"labels": _labels(name, version)}, "spec": spec},
        },
    }


def health_monitoring_agent(version: str, region: str) -> list[Obj]:
    name, ns = "health-monitoring-agent", "aws-hyperpod"
    rules = [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch", "patch", "update"]},
        {"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["patch", "update"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    ]
    image = f"{HMA_REGISTRY.format(region=region)}/hyperpod-health-monitoring-agent:{version}"
    return [
        _namespace(ns),
        _service_account(name, ns, version),
        *_rbac(name, ns, version, rules),
        _daemonset(
            name,
            ns,
            version,
            image,
            _only_on("sagemaker.amazonaws.com/compute-type", ["hyperpod"]),
            tolerations=[{"operator": "Exists"}],
            volumes=[("log", "/var/log"), ("dev", "/dev")],
            privileged=True,
            service_account=name,
        ),
    ]


def nvidia_device_plugin(version: str, region: str) -> list[Obj]:
    return [
        _daemonset(
            "nvidia-device-plugin",
            "kube-system",
            version,
            f"nvcr.io/nvidia/k8s-device-plugin:{version}",
            _only_on(INSTANCE_TYPE, NVIDIA_GPU_TYPES),
            tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            volumes=[("device-plugin", "/var/lib/kubelet/device-plugins")],
            args=["--fail-on-init-error=false"],
        )
    ]


def neuron_device_plugin(version: str, region: str) -> list[Obj]:
    name = "neuron-device-plugin"
    rules = [
        {"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get", "list", "watch", "patch"]},
        {"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["patch", "update"]},
    ]
    return [
        _service_account(name, "kube-system", version),
        *_rbac(name, "kube-system", version, rules),
        _daemonset(
            name,
            "kube-system",
            version,
            f"public.ecr.aws/neuron/neuron-device-plugin:{version}",
            _only_on(INSTANCE_TYPE, NEURON_TYPES),
            tolerations=[{"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"}],
            volumes=[("device-plugin", "/var/lib/kubelet/device-plugins"), ("infa-map", "/run")],
            service_account=name,
        ),
    ]


def efa_device_plugin(version: str, region: str) -> list[Obj]:
    return [
        _daemonset(
            "efa-device-plugin",
            "kube-system",
            version,
            f"{EKS_REGISTRY.format(region=region)}/eks/aws-efa-k8s-device-plugin:{version}",
            _only_on(INSTANCE_TYPE, EFA_TYPES),
            tolerations=[{"operator": "Exists", "effect": "NoSchedule"}],
            volumes=[("device-plugin", "/var/lib/kubelet/device-plugins"), ("infiniband", "/dev/infiniband")],
            privileged=True,
            host_network=True,
        )
    ]


@lru_cache(maxsize=1)
def ray_crds() -> tuple[Obj, ...]:
    folder = resources.files(__package__).joinpath("crds")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple(yaml.load(folder.joinpath(f).read_text(), Loader=loader) for f in ("RayCluster.yaml", "RayJob.yaml"))


def kuberay_operator(version: str, region: str) -> list[Obj]:
    name, ns = "kuberay-operator", "kuberay-operator"
    rules = [
        {
            "apiGroups": ["ray.io"],
            "resources": [
                "rayclusters",
                "rayjobs",
                "rayservices",
                "rayclusters/status",
                "rayjobs/status",
                "rayservices/status",
                "rayclusters/finalizers",
                "rayjobs/finalizers",
                "rayservices/finalizers",
            ],
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
        },
        {
            "apiGroups": [""],
            "resources": ["pods", "services", "serviceaccounts", "events", "endpoints"],
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
        },
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["create", "delete", "get", "list", "patch", "watch"]},
        {
            "apiGroups": ["rbac.authorization.k8s.io"],
            "resources": ["roles", "rolebindings"],
            "verbs": ["create", "delete", "get", "list", "watch"],
        },
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create", "get", "list", "update"]},
    ]
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "labels": _labels(name, version)},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {
                "metadata": {"labels": _labels(name, version)},
                "spec": {
                    "serviceAccountName": name,
                    "containers": [
                        {
                            "name": name,
                            "image": f"quay.io/kuberay/operator:{version}",
                            "args": ["--feature-gates=RayJobDeletionPolicy=true"],
                            "ports": [{"containerPort": 8080, "name": "http"}],
                            "resources": {
                                "requests": {"cpu": "100m", "memory": "512Mi"},
                                "limits": {"memory": "512Mi"},
                            },
                            "securityContext": {
                                "allowPrivilegeEscalation": False,
                                "runAsNonRoot": True,
                                "capabilities": {"drop": ["ALL"]},
                            },
                        }
                    ],
                },
            },
        },
    }
    return [
        *ray_crds(),
        _namespace(ns),
        _service_account(name, ns, version),
        *_rbac(name, ns, version, rules),
        deployment,
    ]


BUILDERS: dict[str, Callable[[str, str], list[Obj]]] = {
    "health-monitoring-agent": health_monitoring_agent,
    "nvidia-device-plugin": nvidia_device_plugin,
    "neuron-device-plugin": neuron_device_plugin,
    "efa-device-plugin": efa_device_plugin,
    "kuberay-operator": kuberay_operator,
}


def objects_for(name: str, version: str, region: str) -> list[Obj]:
    return BUILDERS[name](version, region)


def workload_of(objects: list[Obj]) -> Obj:
    """The object whose readiness says the entry is installed: its DaemonSet or Deployment."""
    return next(o for o in objects if o["kind"] in ("DaemonSet", "Deployment"))
