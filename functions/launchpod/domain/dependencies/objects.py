"""The Kubernetes objects each manifest entry installs: pure builders, validated by the tests
against the Kubernetes schemas (and the vendored KubeRay CRDs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from launchpod.domain import ownership
from launchpod.domain.clusters.instance_types import DevicePlacement

if TYPE_CHECKING:
    from launchpod.domain.dependencies.lbc_tls import Tls

MANAGED = ownership.K8S_LABELS
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
# The ECR account that publishes HyperPod's health monitoring agent in each region, from the official
# chart's region -> account map (aws/sagemaker-hyperpod-cli, helm_chart/HyperPodHelmChart/charts/
# health-monitoring-agent/templates/_helpers.tpl, "health-monitoring-agent.imageUri"). Like that chart, a
# region missing from the map pulls us-east-1's image.
HMA_ACCOUNTS = {
    "us-east-1": "767398015722",
    "us-west-2": "905418368575",
    "us-east-2": "851725546812",
    "us-west-1": "011528288828",
    "eu-central-1": "211125453373",
    "eu-north-1": "654654141839",
    "eu-west-1": "533267293120",
    "eu-west-2": "011528288831",
    "eu-south-2": "626887787726",
    "ap-northeast-1": "533267052152",
    "ap-south-1": "011528288864",
    "ap-southeast-1": "905418428165",
    "ap-southeast-2": "851725636348",
    "ap-southeast-3": "971422672635",
    "ap-southeast-4": "084375568333",
    "ca-central-1": "843976229209",
    "sa-east-1": "025066253954",
}
# EKS's own images (the EFA device plugin among them) are replicated to one registry per region; most
# regions use account 602401143452, these do not ("View Amazon container image registries for Amazon EKS
# add-ons", https://docs.aws.amazon.com/eks/latest/userguide/add-ons-images.html).
EKS_ACCOUNTS = {
    "af-south-1": "877085696533",
    "ap-east-1": "800184023465",
    "ap-south-2": "900889452093",
    "ap-southeast-3": "296578399912",
    "ap-southeast-4": "491585149902",
    "ap-southeast-5": "151610086707",
    "ap-southeast-7": "121268973566",
    "eu-central-2": "900612956339",
    "eu-south-1": "590381155156",
    "eu-south-2": "455263428931",
    "me-central-1": "759879836304",
    "me-south-1": "558608220178",
}
EKS_DEFAULT_ACCOUNT = "602401143452"


def hma_registry(region: str) -> str:
    if region not in HMA_ACCOUNTS:
        region = "us-east-1"
    return f"{HMA_ACCOUNTS[region]}.dkr.ecr.{region}.amazonaws.com"


def eks_registry(region: str) -> str:
    return f"{EKS_ACCOUNTS.get(region, EKS_DEFAULT_ACCOUNT)}.dkr.ecr.{region}.amazonaws.com"


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
    """A ClusterRole and its binding, both named ``name``, for the service account ``name``."""
    account = {"kind": "ServiceAccount", "name": name, "namespace": namespace}
    return _cluster_role(name, version, rules, name, account, binding=name)


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
    env: list[Obj] | None = None,
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
    if env:
        container["env"] = env
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


def role_and_binding(
    role: str, binding: str, rules: list[Obj], subject: Obj, labels: dict[str, str], namespace: str | None = None
) -> list[Obj]:
    """The Role ``role`` of ``namespace`` (without one, the ClusterRole) with ``rules``, and its binding
    ``binding`` to ``subject``."""
    kind, where = ("Role", {"namespace": namespace}) if namespace else ("ClusterRole", {})
    return [
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": kind,
            "metadata": {"name": role, **where, "labels": labels},
            "rules": rules,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": f"{kind}Binding",
            "metadata": {"name": binding, **where, "labels": labels},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role},
            "subjects": [subject],
        },
    ]


def _cluster_role(
    name: str, version: str, rules: list[Obj], role: str, subject: Obj, binding: str | None = None
) -> list[Obj]:
    """The ClusterRole ``role`` and its binding to ``subject`` (named ``binding``; by default ``role``, and
    ``<role>-binding`` for a service account)."""
    if binding is None:
        binding = f"{role}-binding" if subject["kind"] == "ServiceAccount" else role
    return role_and_binding(role, binding, rules, subject, _labels(name, version))


def hyperpod_service_rbac(version: str) -> list[Obj]:
    """What HyperPod itself uses inside the cluster, from the official chart (aws/sagemaker-hyperpod-cli,
    helm_chart/HyperPodHelmChart, both sub-charts enabled by default in its values.yaml):
    - charts/deep-health-check/templates/deep-health-check-rbac.yaml: the deep health checks' pods run as
      aws-hyperpod/deep-health-check-service-account, which reads nodes and reads and patches pods;
    - charts/hyperpod-patching/templates/clusterrole*.yaml: UpdateClusterSoftware drains a node as the
      Kubernetes user hyperpod-service-linked-role, which lists pods and creates pods/eviction."""
    name, ns = "health-monitoring-agent", "aws-hyperpod"
    dhc = "deep-health-check-service-account"
    return [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": dhc, "namespace": ns, "labels": _labels(name, version)},
        },
        *_cluster_role(
            name,
            version,
            [
                {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]},
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "patch"]},
            ],
            f"{dhc}-role",
            {"kind": "ServiceAccount", "name": dhc, "namespace": ns},
        ),
        *_cluster_role(
            name,
            version,
            [
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
                {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
            ],
            "hyperpod-patching",
            {"kind": "User", "name": "hyperpod-service-linked-role", "apiGroup": "rbac.authorization.k8s.io"},
        ),
    ]


HEALTH_AGENT = ("aws-hyperpod", "health-monitoring-agent")  # the official chart's namespace and name


def health_agent_ref() -> Obj:
    """The health-monitoring agent's DaemonSet, to look it up."""
    ns, name = HEALTH_AGENT
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": ns}}


def health_monitoring_agent(version: str, region: str) -> list[Obj]:
    ns, name = HEALTH_AGENT
    rules = [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch", "patch", "update"]},
        {"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["patch", "update"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    ]
    image = f"{hma_registry(region)}/hyperpod-health-monitoring-agent:{version}"
    # The agent reports on the node it runs on; the official chart hands it the node's name and IP through
    # the downward API (https://kubernetes.io/docs/concepts/workloads/pods/downward-api/).
    env = [
        {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "NODE_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}},
    ]
    return [
        _namespace(ns),
        _service_account(name, ns, version),
        *_rbac(name, ns, version, rules),
        *hyperpod_service_rbac(version),
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
            env=env,
        ),
    ]


#: No instance type: objects built only to name their workload (the placement is not looked up).
NOWHERE = DevicePlacement()


def nvidia_device_plugin(version: str, region: str, placement: DevicePlacement = NOWHERE) -> list[Obj]:
    return [
        _daemonset(
            "nvidia-device-plugin",
            "kube-system",
            version,
            f"nvcr.io/nvidia/k8s-device-plugin:{version}",
            _only_on(INSTANCE_TYPE, placement.nvidia),
            tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            volumes=[("device-plugin", "/var/lib/kubelet/device-plugins")],
            args=["--fail-on-init-error=false"],
        )
    ]


def neuron_device_plugin(version: str, region: str, placement: DevicePlacement = NOWHERE) -> list[Obj]:
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
            _only_on(INSTANCE_TYPE, placement.neuron),
            tolerations=[{"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"}],
            volumes=[("device-plugin", "/var/lib/kubelet/device-plugins"), ("infa-map", "/run")],
            service_account=name,
        ),
    ]


def efa_device_plugin(version: str, region: str, placement: DevicePlacement = NOWHERE) -> list[Obj]:
    return [
        _daemonset(
            "efa-device-plugin",
            "kube-system",
            version,
            f"{eks_registry(region)}/eks/aws-efa-k8s-device-plugin:{version}",
            _only_on(INSTANCE_TYPE, placement.efa),
            tolerations=[{"operator": "Exists", "effect": "NoSchedule"}],
            volumes=[("device-plugin", "/var/lib/kubelet/device-plugins"), ("infiniband", "/dev/infiniband")],
            privileged=True,
            host_network=True,
        )
    ]


def _vendored(filename: str) -> Obj:
    import yaml  # ~20 ms at import (its regexes); only this reads YAML, so the API Lambda need not pay it

    text = resources.files(__package__).joinpath("crds", filename).read_text()
    loaded: Obj = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return loaded


# The KubeRay v1.7.0 operator starts the RayCluster, RayJob and RayService controllers unconditionally
# (ray-operator/main.go); each watches its kind, so all three CRDs must exist or the manager's caches
# never sync and it exits. RayCronJob's controller sits behind the RayCronJob feature gate, off by
# default (ray-operator/pkg/features/features.go), so its CRD is not needed.
RAY_CRD_FILES = ("RayCluster.yaml", "RayJob.yaml", "RayService.yaml")


@lru_cache(maxsize=1)
def ray_crds() -> tuple[Obj, ...]:
    return tuple(_vendored(f) for f in RAY_CRD_FILES)


@lru_cache(maxsize=1)
def kuberay_rules() -> tuple[Obj, ...]:
    """The operator's ClusterRole rules as KubeRay v1.7.0 ships them (config/rbac/role.yaml, vendored)."""
    return tuple(_vendored("kuberay-operator-role.yaml")["rules"])


# KubeRay's leader election (on by default, DefaultEnableLeaderElection in apis/config/v1alpha1) uses a
# namespaced Role: ray-operator/config/rbac/leader_election_role.yaml.
KUBERAY_LEADER_ELECTION_RULES = [
    {
        "apiGroups": [""],
        "resources": ["configmaps"],
        "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
    },
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create", "get", "list", "update"]},
]


def _leader_election(name: str, namespace: str, version: str) -> list[Obj]:
    role = f"{name}-leader-election"
    account = {"kind": "ServiceAccount", "name": name, "namespace": namespace}
    return role_and_binding(role, role, KUBERAY_LEADER_ELECTION_RULES, account, _labels(name, version), namespace)


def _kuberay_deployment(version: str) -> Obj:
    name, ns = "kuberay-operator", "kuberay-operator"
    return {
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


def kuberay_operator(version: str, region: str) -> list[Obj]:
    name, ns = "kuberay-operator", "kuberay-operator"
    rules = [dict(r) for r in kuberay_rules()]
    deployment = _kuberay_deployment(version)
    return [
        *ray_crds(),
        _namespace(ns),
        _service_account(name, ns, version),
        *_rbac(name, ns, version, rules),
        *_leader_election(name, ns, version),
        deployment,
    ]


DEVICE_PLUGINS: dict[str, Callable[[str, str, DevicePlacement], list[Obj]]] = {
    "nvidia-device-plugin": nvidia_device_plugin,
    "neuron-device-plugin": neuron_device_plugin,
    "efa-device-plugin": efa_device_plugin,
}
BUILDERS: dict[str, Callable[[str, str], list[Obj]]] = {
    "health-monitoring-agent": health_monitoring_agent,
    "kuberay-operator": kuberay_operator,
}


def objects_for(
    name: str,
    version: str,
    region: str,
    cluster: str = "",
    vpc_id: str = "",
    tls: Tls | None = None,
    placement: DevicePlacement = NOWHERE,
) -> list[Obj]:
    """The entry's objects; the load balancer controller's also name its cluster and VPC (empty: to look it up)
    and carry its webhook certificate (None: without the objects that hold it); a device plugin's run on
    ``placement``'s instance types (empty: the objects only name the workload)."""
    from launchpod.domain.dependencies import lbc

    if name == lbc.NAME:
        return lbc.objects(version, region, cluster, vpc_id, tls)
    if name in DEVICE_PLUGINS:
        return DEVICE_PLUGINS[name](version, region, placement)
    return BUILDERS[name](version, region)


def workload_of(objects: list[Obj]) -> Obj:
    """The object whose readiness says the entry is installed: its DaemonSet or Deployment."""
    return next(o for o in objects if o["kind"] in ("DaemonSet", "Deployment"))


def entry_workload(name: str, version: str, region: str) -> Obj:
    """``workload_of(objects_for(name, version, region))`` without building what only an install needs:
    the KubeRay CRDs are 2.5 MB of vendored YAML, about a second to parse in each new execution
    environment, and the dependencies listing reads only the Deployment."""
    if name == "kuberay-operator":
        return _kuberay_deployment(version)
    return workload_of(objects_for(name, version, region))
