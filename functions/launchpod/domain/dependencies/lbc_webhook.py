"""The AWS Load Balancer Controller's admission webhooks: their Service, their configurations and the serving
certificate's Secret (lbc_tls makes the certificate).

Facts from kubernetes-sigs/aws-load-balancer-controller (commit 225f445, chart 3.5.0): templates/service.yaml
(the ``aws-load-balancer-webhook-service`` Service, port 443 to the ``webhook-server`` container port) and
templates/webhook.yaml with the chart's default values.yaml: every webhook with its ``failurePolicy``,
selectors and rules as rendered, the caBundle the CA. One value differs from the defaults:
``enableServiceMutatorWebhook`` is false, so ``mservice.elbv2.k8s.aws`` is not registered. With the chart's
default that webhook (failurePolicy Fail, no namespace selector) sees the CREATE of every Service in the
cluster, so while the controller has no ready pod (before HyperPod's nodes join) no Service anywhere could
be created; all it does is default ``spec.loadBalancerClass`` of LoadBalancer Services, and the Services
Launchpod makes name their class (domain/inference/manifests.py). The other Fail webhooks see only Pods that
opt in by label, the controller's own kinds, and Ingresses (which Launchpod does not create).
"""

from __future__ import annotations

from typing import Any

from launchpod.domain.dependencies.lbc_tls import NAMESPACE, SERVICE, Tls, ca_bundle

NAME = "aws-load-balancer-webhook"
APP = "aws-load-balancer-controller"
Obj = dict[str, Any]

NOT_THE_CONTROLLER: Obj = {"key": "app.kubernetes.io/name", "operator": "NotIn", "values": [APP]}


def service(labels: dict[str, str]) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": SERVICE,
            "namespace": NAMESPACE,
            "labels": {**labels, "app.kubernetes.io/component": "webhook", "prometheus.io/service-monitor": "false"},
        },
        "spec": {
            "ports": [{"port": 443, "name": "webhook-server", "targetPort": "webhook-server"}],
            "selector": {"app.kubernetes.io/name": APP},
        },
    }


def _hook(tls: Tls, name: str, path: str, policy: str, rules: tuple[str, str, str, list[str]], **selectors: Any) -> Obj:
    group, version, resource, operations = rules
    return {
        "clientConfig": {
            "caBundle": ca_bundle(tls),
            "service": {"name": SERVICE, "namespace": NAMESPACE, "path": path},
        },
        "failurePolicy": policy,
        "name": name,
        "admissionReviewVersions": ["v1"],
        **selectors,
        "rules": [{"apiGroups": [group], "apiVersions": [version], "operations": operations, "resources": [resource]}],
        "sideEffects": "None",
    }


def _labelled(key: str, operator: str, *values: str) -> Obj:
    return {"key": key, "operator": operator, **({"values": list(values)} if values else {})}


def _pod_hook(tls: Tls, name: str, path: str, policy: str, namespaces: Obj, *objects: Obj) -> Obj:
    """A webhook on the CREATE of Pods in the namespaces ``namespaces`` selects, never the controller's own."""
    return _hook(
        tls,
        name,
        path,
        policy,
        ("", "v1", "pods", ["CREATE"]),
        namespaceSelector={"matchExpressions": [namespaces]},
        objectSelector={"matchExpressions": [NOT_THE_CONTROLLER, *objects]},
    )


def mutating(tls: Tls, labels: dict[str, str]) -> Obj:
    tgb = ("elbv2.k8s.aws", "v1beta1", "targetgroupbindings", ["CREATE", "UPDATE"])
    agent = "elbv2.k8s.aws/alb-target-control-agent-injection"
    inject = "elbv2.k8s.aws/alb-target-control-agent-inject"
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": NAME, "labels": labels},
        "webhooks": [
            _pod_hook(
                tls,
                "mpod.elbv2.k8s.aws",
                "/mutate-v1-pod",
                "Ignore",
                _labelled("elbv2.k8s.aws/pod-readiness-gate-inject", "In", "enabled"),
            ),
            _pod_hook(
                tls,
                "quicid.elbv2.k8s.aws",
                "/mutate-v1-pod-server-id",
                "Fail",
                _labelled("elbv2.k8s.aws/quic-server-id-inject", "In", "enabled"),
            ),
            _pod_hook(
                tls,
                "alb-target-control.namespace.elbv2.k8s.aws",
                "/mutate-alb-target-control-namespace-v1-pod",
                "Fail",
                _labelled(agent, "In", "enabled"),
                _labelled(inject, "NotIn", "false"),
            ),
            _pod_hook(
                tls,
                "alb-target-control.object.elbv2.k8s.aws",
                "/mutate-alb-target-control-object-v1-pod",
                "Fail",
                _labelled(agent, "DoesNotExist"),
                _labelled(inject, "In", "true"),
            ),
            _hook(
                tls,
                "mtargetgroupbinding.elbv2.k8s.aws",
                "/mutate-elbv2-k8s-aws-v1beta1-targetgroupbinding",
                "Fail",
                tgb,
            ),
        ],
    }


def validating(tls: Tls, labels: dict[str, str]) -> Obj:
    tgb = ("elbv2.k8s.aws", "v1beta1", "targetgroupbindings", ["CREATE", "UPDATE"])
    icp = ("elbv2.k8s.aws", "v1beta1", "ingressclassparams", ["CREATE", "UPDATE"])
    ingress = _hook(
        tls,
        "vingress.elbv2.k8s.aws",
        "/validate-networking-v1-ingress",
        "Fail",
        ("networking.k8s.io", "v1", "ingresses", ["CREATE", "UPDATE"]),
        matchPolicy="Equivalent",
    )
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": NAME, "labels": labels},
        "webhooks": [
            _hook(
                tls,
                "vingressclassparams.elbv2.k8s.aws",
                "/validate-elbv2-k8s-aws-v1beta1-ingressclassparams",
                "Fail",
                icp,
                objectSelector={"matchExpressions": [NOT_THE_CONTROLLER]},
            ),
            _hook(
                tls,
                "vtargetgroupbinding.elbv2.k8s.aws",
                "/validate-elbv2-k8s-aws-v1beta1-targetgroupbinding",
                "Fail",
                tgb,
            ),
            ingress,
        ],
    }
