"""The AWS Load Balancer Controller (LBC): the objects Launchpod applies to install it, and its IAM policy.

Facts from kubernetes-sigs/aws-load-balancer-controller (commit 225f445, chart 3.5.0 / app v3.5.0):
- helm/aws-load-balancer-controller/templates/rbac.yaml: the leader-election Role and the ClusterRole
  (generated from config/rbac/role.yaml), both bound to the controller's service account;
- templates/deployment.yaml: ``--cluster-name`` (required), ``--aws-region``, ``--aws-vpc-id`` (given, so
  the controller need not read them from IMDS, which HyperPod's nodes may not offer to pods), the webhook
  serving certificate mounted from the Secret ``aws-load-balancer-tls``, 2 replicas,
  ``priorityClassName: system-cluster-critical``;
- the CRDs the controller watches unconditionally: TargetGroupBinding and IngressClassParams
  (config/crd/bases, vendored in crds/); GlobalAccelerator sits behind the GlobalAcceleratorController
  feature gate (off by default, pkg/config/feature_gates.go), ALBTargetControlConfig is only read;
- docs/install/iam_policy.json: the controller's IAM policy, vendored byte-for-byte in iam/.
The image is the regional ECR copy the release notes list (``<account>.dkr.ecr.<region>.amazonaws.com/
amazon/aws-load-balancer-controller:<tag>``, the EKS registry accounts: 602401143452 for most regions),
so nodes without internet egress pull it through ECR's VPC endpoints.

The webhook Service, its Mutating/ValidatingWebhookConfigurations and the serving certificate's Secret come
from lbc_webhook and lbc_tls; the Secret is applied before the Deployment that mounts it (a Pod whose Secret
volume does not exist never starts).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from launchpod.domain.dependencies import lbc_tls, lbc_webhook

NAME = "aws-load-balancer-controller"
NAMESPACE = "kube-system"
LEADER = "aws-load-balancer-controller-leader"
CRD_FILES = ("elbv2.k8s.aws_targetgroupbindings.yaml", "elbv2.k8s.aws_ingressclassparams.yaml")

Obj = dict[str, Any]


@lru_cache(maxsize=1)
def iam_policy() -> Obj:
    """The controller's IAM policy as upstream publishes it (docs/install/iam_policy.json)."""
    text = resources.files(__package__).joinpath("iam", f"{NAME}.json").read_text()
    loaded: Obj = json.loads(text)
    return loaded


@lru_cache(maxsize=1)
def crds() -> tuple[Obj, ...]:
    import yaml  # ~20 ms at import (its regexes); only this reads YAML, so the API Lambda need not pay it

    out = []
    for filename in CRD_FILES:
        text = resources.files(__package__).joinpath("crds", filename).read_text()
        out.append(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    return tuple(out)


def image(version: str, region: str) -> str:
    from launchpod.domain.dependencies.objects import eks_registry

    return f"{eks_registry(region)}/amazon/{NAME}:{version}"


# The chart's ClusterRole (templates/rbac.yaml, clusterSecretsPermissions.allowAllSecrets off).
CLUSTER_RULES: list[Obj] = [
    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create", "delete", "get", "update"]},
    {"apiGroups": [""], "resources": ["endpoints", "namespaces", "nodes", "pods"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    {"apiGroups": [""], "resources": ["pods/status", "services/status"], "verbs": ["patch", "update"]},
    {"apiGroups": [""], "resources": ["services"], "verbs": ["get", "list", "patch", "update", "watch"]},
    {"apiGroups": ["aga.k8s.aws"], "resources": ["globalaccelerators"], "verbs": ["get", "list", "patch", "watch"]},
    {
        "apiGroups": ["aga.k8s.aws"],
        "resources": ["globalaccelerators/finalizers", "globalaccelerators/status"],
        "verbs": ["patch", "update"],
    },
    {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["elbv2.k8s.aws"], "resources": ["albtargetcontrolconfigs"], "verbs": ["get"]},
    {"apiGroups": ["elbv2.k8s.aws"], "resources": ["ingressclassparams"], "verbs": ["get", "list", "watch"]},
    {
        "apiGroups": ["elbv2.k8s.aws"],
        "resources": ["targetgroupbindings"],
        "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
    },
    {"apiGroups": ["elbv2.k8s.aws"], "resources": ["targetgroupbindings/status"], "verbs": ["patch", "update"]},
    {
        "apiGroups": ["extensions", "networking.k8s.io"],
        "resources": ["ingresses"],
        "verbs": ["get", "list", "patch", "update", "watch"],
    },
    {"apiGroups": ["extensions", "networking.k8s.io"], "resources": ["ingresses/status"], "verbs": ["patch", "update"]},
    {"apiGroups": ["networking.k8s.io"], "resources": ["ingressclasses"], "verbs": ["get", "list", "watch"]},
]
LEADER_RULES: list[Obj] = [
    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]},
    {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [LEADER], "verbs": ["get", "patch", "update"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
    {
        "apiGroups": ["coordination.k8s.io"],
        "resources": ["leases"],
        "resourceNames": [LEADER],
        "verbs": ["get", "update", "patch"],
    },
]


def deployment_ref() -> Obj:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": NAME, "namespace": NAMESPACE}}


def objects(version: str, region: str, cluster: str, vpc_id: str, tls: lbc_tls.Tls | None) -> list[Obj]:
    """Everything the controller needs, in apply order: CRDs, service account, RBAC, the certificate's Secret,
    webhook Service and configurations, Deployment. Without ``tls`` (to read which workload it runs) the
    Secret and webhook configurations, which carry the certificate, are left out."""
    from launchpod.domain.dependencies.objects import _labels, role_and_binding

    labels = _labels(NAME, version)
    account = {"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}
    args = [f"--cluster-name={cluster}", f"--aws-region={region}"]
    if vpc_id:
        args.append(f"--aws-vpc-id={vpc_id}")
    container: Obj = {
        "name": NAME,
        "image": image(version, region),
        "args": args,
        "ports": [
            {"name": "webhook-server", "containerPort": 9443, "protocol": "TCP"},
            {"name": "metrics-server", "containerPort": 8080, "protocol": "TCP"},
        ],
        "livenessProbe": {
            "httpGet": {"path": "/healthz", "port": 61779, "scheme": "HTTP"},
            "initialDelaySeconds": 30,
            "timeoutSeconds": 10,
            "failureThreshold": 2,
        },
        "readinessProbe": {
            "httpGet": {"path": "/readyz", "port": 61779, "scheme": "HTTP"},
            "initialDelaySeconds": 10,
            "timeoutSeconds": 10,
            "successThreshold": 1,
            "failureThreshold": 2,
        },
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "512Mi"}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
        },
        # controller-runtime's webhook server reads tls.crt and tls.key from this directory
        "volumeMounts": [{"mountPath": "/tmp/k8s-webhook-server/serving-certs", "name": "cert", "readOnly": True}],
    }
    deployment: Obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app.kubernetes.io/name": NAME}},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "serviceAccountName": NAME,
                    "priorityClassName": "system-cluster-critical",
                    "securityContext": {"fsGroup": 65534},
                    "volumes": [{"name": "cert", "secret": {"defaultMode": 420, "secretName": lbc_tls.SECRET}}],
                    "containers": [container],
                },
            },
        },
    }
    return [
        *crds(),
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": labels},
        },
        *role_and_binding(
            f"{NAME}-leader-election-role",
            f"{NAME}-leader-election-rolebinding",
            LEADER_RULES,
            account,
            labels,
            NAMESPACE,
        ),
        *role_and_binding(f"{NAME}-role", f"{NAME}-rolebinding", CLUSTER_RULES, account, labels),
        *([lbc_tls.secret(tls, labels)] if tls else []),
        lbc_webhook.service(labels),
        *([lbc_webhook.mutating(tls, labels), lbc_webhook.validating(tls, labels)] if tls else []),
        deployment,
    ]


def install_hint(cluster: str) -> str:
    return "install it with the cluster's optional dependencies"


def missing(cluster: str) -> str:
    return (
        f"{cluster} has no AWS Load Balancer Controller ({NAMESPACE}/{NAME}), which gives a loadBalancer "
        f"Service its NLB; {install_hint(cluster)}, or deploy with service clusterIP."
    )


def blocked(cluster: str, deployment: Obj | None) -> str | None:
    """Why no NLB can come (no controller, or none of its replicas ready), or None when it runs."""
    if deployment is None:
        return f"no load balancer controller: {missing(cluster)}"
    status, spec = deployment.get("status") or {}, deployment.get("spec") or {}
    ready = int(status.get("readyReplicas") or 0)
    if ready < 1:
        return (
            f"no load balancer controller ready: {NAMESPACE}/{NAME} has {ready}/{spec.get('replicas', 1)} ready "
            "replicas; check its pods (the cluster's dependencies show it)"
        )
    return None
