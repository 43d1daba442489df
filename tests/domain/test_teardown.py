"""Which Kubernetes objects hold load balancers that must go before the cluster's network can."""

from __future__ import annotations

from typing import Any

from launchpod.domain.clusters import teardown


def _meta(name: str, namespace: str = "default", **annotations: str) -> dict[str, Any]:
    return {"name": name, "namespace": namespace, **({"annotations": annotations} if annotations else {})}


SERVICES = [
    {"metadata": _meta("chat"), "spec": {"type": "LoadBalancer", "loadBalancerClass": "service.k8s.aws/nlb"}},
    {"metadata": _meta("legacy-clb"), "spec": {"type": "LoadBalancer"}},
    {"metadata": _meta("kube-dns", "kube-system"), "spec": {"type": "ClusterIP"}},
    {"metadata": _meta("ports"), "spec": {"type": "NodePort"}},
]
CLASSES = [
    {"metadata": {"name": "alb"}, "spec": {"controller": "ingress.k8s.aws/alb"}},
    {"metadata": {"name": "nginx"}, "spec": {"controller": "k8s.io/ingress-nginx"}},
]


def test_every_load_balancer_service_goes_and_no_other_service() -> None:
    found = teardown.load_balanced(SERVICES, [], CLASSES)
    assert [(o["kind"], o["metadata"]["name"]) for o in found] == [("Service", "chat"), ("Service", "legacy-clb")]
    assert found[0]["apiVersion"] == "v1"


def test_only_ingresses_the_load_balancer_controller_serves_go() -> None:
    ingresses = [
        {"metadata": _meta("by-class"), "spec": {"ingressClassName": "alb"}},
        {"metadata": _meta("by-annotation", **{"kubernetes.io/ingress.class": "alb"}), "spec": {}},
        {"metadata": _meta("nginx"), "spec": {"ingressClassName": "nginx"}},
        {"metadata": _meta("classless"), "spec": {}},
    ]
    found = teardown.load_balanced([], ingresses, CLASSES)
    assert [o["metadata"]["name"] for o in found] == ["by-class", "by-annotation"]
    assert {o["apiVersion"] for o in found} == {"networking.k8s.io/v1"}
    default = [{**CLASSES[0], "metadata": {"name": "alb", "annotations": {teardown.DEFAULT_CLASS: "true"}}}]
    assert "classless" in [o["metadata"]["name"] for o in teardown.load_balanced([], ingresses, default)]


def test_deleting_a_cluster_removes_load_balancers_before_the_nodes_that_run_their_controller() -> None:
    names = [name for name, _ in teardown.PHASES]
    assert names.index("DeleteLoadBalancers") < names.index("DeleteHyperPod") < names.index("DeleteNetwork")
