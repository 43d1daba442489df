"""Operators that fail to start as they do on a real cluster: a Deployment whose image is a known
operator gets a Pod whose container crash-loops while a CRD the operator watches is missing or its
service account lacks a list/watch its informers need, and runs once both are there.

What each operator needs comes from its source at the version Launchpod pins, not from Launchpod:

* KubeRay v1.7.0 (ray-project/kuberay, ray-operator/main.go) always starts the RayCluster, RayJob and
  RayService controllers. Their ``For``/``Owns`` watches (``SetupWithManager`` in
  ray-operator/controllers/ray/raycluster_controller.go, rayjob_controller.go, rayservice_controller.go)
  open cluster-wide informers on RayCluster, RayJob, RayService, Pod, Service, Secret,
  PersistentVolumeClaim and batch Job; leader election (on by default) takes a Lease in its namespace.

How a controller-runtime v0.24 manager fails without them: ``source.Kind`` logs "if kind is a CRD, it
should be installed before calling Start" for a kind the API server does not serve, client-go's
reflector logs "Failed to watch ... is forbidden" for a list RBAC denies, and after the controller's
CacheSyncTimeout (2 minutes by default, controller.Options) ``mgr.Start`` returns "failed to wait for
<controller> caches to sync ..." and KubeRay exits 1 ("problem running manager"). The kubelet then
restarts the container with an exponential back-off of 10 s, 20 s, 40 s ... capped at 5 minutes
(https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-restarts), showing
``waiting: CrashLoopBackOff`` with "back-off <d> restarting failed container=<c> pod=<pod>" in between.
While the process runs its container is Running (and Ready, the probes answer): a crash-looping
operator is Ready for part of every cycle, as on a real cluster.

RBAC is evaluated as the API server's RBAC authorizer does
(https://kubernetes.io/docs/reference/access-authn-authz/rbac/): a cluster-scope list or watch is
allowed only by a ClusterRole bound with a ClusterRoleBinding; ``*`` matches any group, resource or verb.
A namespaced Lease is also allowed by a Role or ClusterRole bound with a RoleBinding in that namespace.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from sandbox.aws import clock
from sandbox.controllers.common import timestamp
from sandbox.state import STATE

CACHE_SYNC_TIMEOUT = 120.0  # controller-runtime's default CacheSyncTimeout, simulated seconds
BACKOFF_START, BACKOFF_CAP = 10.0, 300.0  # kubelet's container restart back-off


@dataclass(frozen=True)
class Watch:
    group: str
    version: str
    kind: str
    plural: str
    controller: str  # the controller whose cache waits for it

    @property
    def go_type(self) -> str:
        return f"*{self.version}.{self.kind}"

    @property
    def group_label(self) -> str:
        return self.group or '""'


@dataclass(frozen=True)
class Operator:
    image: str  # repository, without the tag
    crd_kinds: tuple[Watch, ...]  # custom kinds: served only once their CRD exists
    informers: tuple[Watch, ...]  # everything watched cluster-wide (custom kinds included)
    leases: bool  # leader election in its own namespace


_RAY = [Watch("ray.io", "v1", k, k.lower() + "s", k.lower()) for k in ("RayCluster", "RayJob", "RayService")]
KUBERAY = Operator(
    image="quay.io/kuberay/operator",
    crd_kinds=tuple(_RAY),
    informers=(
        *_RAY,
        Watch("", "v1", "Pod", "pods", "raycluster"),
        Watch("", "v1", "Service", "services", "raycluster"),
        Watch("", "v1", "Secret", "secrets", "raycluster"),
        Watch("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "raycluster"),
        Watch("batch", "v1", "Job", "jobs", "rayjob"),
    ),
    leases=True,
)
OPERATORS = (KUBERAY,)


def operator_of(deployment: dict[str, Any]) -> Operator | None:
    containers = ((deployment.get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []
    for container in containers:
        repository = str(container.get("image", "")).split("@")[0].rsplit(":", 1)[0]
        for operator in OPERATORS:
            if repository == operator.image:
                return operator
    return None


def _rule_allows(rule: dict[str, Any], group: str, resource: str, verb: str) -> bool:
    return (
        any(g in ("*", group) for g in rule.get("apiGroups") or [])
        and any(r in ("*", resource) for r in rule.get("resources") or [])
        and any(v in ("*", verb) for v in rule.get("verbs") or [])
    )


def _bound_to(binding: dict[str, Any], namespace: str, account: str) -> bool:
    return any(
        s.get("kind") == "ServiceAccount" and s.get("name") == account and s.get("namespace", namespace) == namespace
        for s in binding.get("subjects") or []
    )


def _rules(emulator: Any, namespace: str, account: str, scope: str | None) -> list[dict[str, Any]]:
    """Rules granted to the service account cluster-wide (scope None) or in namespace ``scope``."""
    cluster_roles = {
        r["metadata"]["name"]: r
        for r in emulator.list_objects("rbac.authorization.k8s.io/v1/clusterroles", copied=False)
    }
    rules: list[dict[str, Any]] = []
    for binding in emulator.list_objects("rbac.authorization.k8s.io/v1/clusterrolebindings", copied=False):
        if _bound_to(binding, namespace, account):
            rules += (cluster_roles.get(binding["roleRef"]["name"]) or {}).get("rules") or []
    if scope is not None:
        roles = {
            r["metadata"]["name"]: r
            for r in emulator.list_objects("rbac.authorization.k8s.io/v1/roles", scope, copied=False)
        }
        for binding in emulator.list_objects("rbac.authorization.k8s.io/v1/rolebindings", scope, copied=False):
            if _bound_to(binding, namespace, account):
                ref = binding["roleRef"]
                role = (cluster_roles if ref["kind"] == "ClusterRole" else roles).get(ref["name"]) or {}
                rules += role.get("rules") or []
    return rules


def _line(level: str, logger: str, msg: str, **fields: str) -> str:
    return json.dumps({"level": level, "logger": logger, "msg": msg, **fields}) + "\n"


def failure(emulator: Any, operator: Operator, deployment: dict[str, Any]) -> str | None:
    """The log of one failed start (ending in the manager's exit), or None when it would start."""
    namespace = deployment["metadata"]["namespace"]
    spec = deployment["spec"]["template"].get("spec") or {}
    account = spec.get("serviceAccountName") or "default"
    user = f"system:serviceaccount:{namespace}:{account}"
    wanted = {f"{w.plural}.{w.group}" for w in (*operator.crd_kinds, *operator.informers)}
    crds = {n for n in wanted if emulator.exists("apiextensions.k8s.io/v1/customresourcedefinitions", None, n)}
    log, first = "", None
    for w in operator.crd_kinds:
        if f"{w.plural}.{w.group}" not in crds:
            log += _line(
                "error",
                "controller-runtime.source.Kind",
                "if kind is a CRD, it should be installed before calling Start",
                kind=f"{w.kind}.{w.group}",
                error=f'no matches for kind "{w.kind}" in version "{w.group}/{w.version}"',
            )
            first = first or w
    cluster_rules = _rules(emulator, namespace, account, None)
    for w in operator.informers:
        if w in operator.crd_kinds and f"{w.plural}.{w.group}" not in crds:
            continue
        for verb in ("list", "watch"):
            if not any(_rule_allows(r, w.group, w.plural, verb) for r in cluster_rules):
                log += _line(
                    "error",
                    "UnhandledError",
                    "Failed to watch",
                    reflector="pkg/mod/k8s.io/client-go@v0.36.0/tools/cache/reflector.go",
                    type=w.go_type,
                    error=f'failed to {verb} {w.go_type}: {w.plural} is forbidden: User "{user}" cannot {verb} '
                    f'resource "{w.plural}" in API group "{w.group}" at the cluster scope',
                )
                first = first or w
                break
    if operator.leases:
        lease_rules = _rules(emulator, namespace, account, namespace)
        for verb in ("get", "create", "update"):
            if not any(_rule_allows(r, "coordination.k8s.io", "leases", verb) for r in lease_rules):
                return log + _line(
                    "error",
                    "leaderelection",
                    "error retrieving resource lock",
                    error=f'leases.coordination.k8s.io "ray-operator-leader" is forbidden: User "{user}" cannot '
                    f'{verb} resource "leases" in API group "coordination.k8s.io" in the namespace "{namespace}"',
                )
    if first is None:
        return None
    return log + _line(
        "error",
        "setup",
        "problem running manager",
        error=f"failed to wait for {first.controller} caches to sync kind source: {first.go_type}: timed out "
        f"waiting for cache to be synced for Kind {first.go_type}",
    )


@dataclass
class _Life:
    started: float  # time.monotonic() when the pod's first container started
    started_at: str  # the same moment as the API shows it
    healthy_from: float | None = None  # simulated seconds since start when the process stays up


@dataclass
class OperatorState:
    """Each operator Pod's life (by Deployment uid and Pod name)."""

    lives: dict[str, _Life] = field(default_factory=dict)


def cycle(elapsed: float, runs_for: float = CACHE_SYNC_TIMEOUT) -> tuple[int, bool, float, float]:
    """(restarts so far, running now, back-off of the current or next wait, when the current run or wait
    ends) after ``elapsed`` simulated seconds of a container that exits ``runs_for`` after each start."""
    t, restarts, backoff = 0.0, 0, BACKOFF_START
    while True:
        if elapsed < t + runs_for:
            return restarts, True, backoff, t + runs_for
        t += runs_for
        if elapsed < t + backoff:
            return restarts, False, backoff, t + backoff
        t += backoff
        restarts += 1
        backoff = min(backoff * 2, BACKOFF_CAP)


def fmt(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs}s" if minutes else f"{secs}s"


def restart_state(
    running: bool, started_at: str, backoff: float, container: str, pod: str, namespace: str
) -> dict[str, Any]:
    """The ``state`` the kubelet reports for a container it keeps restarting: running since its last start,
    or waiting out the back-off (``CrashLoopBackOff``) before the next."""
    if running:
        return {"running": {"startedAt": started_at}}
    message = f"back-off {fmt(backoff)} restarting failed container={container} pod={pod}_{namespace}"
    return {"waiting": {"reason": "CrashLoopBackOff", "message": message}}


def container_status(emulator: Any, operator: Operator, deployment: dict[str, Any], pod: str) -> dict[str, Any]:
    """The operator container's status in Pod ``pod`` (bound to a node) as the kubelet would report it now."""
    meta, template = deployment["metadata"], deployment["spec"]["template"]
    key = f"{meta.get('uid')}/{pod}"  # a Deployment created again starts a new Pod
    life = STATE.part(OperatorState).lives.setdefault(key, _Life(time.monotonic(), timestamp()))
    elapsed = clock.sim_seconds_elapsed(life.started)
    restarts, running, backoff, phase_ends = cycle(elapsed)
    broken = failure(emulator, operator, deployment)
    container = template["spec"]["containers"][0]["name"]
    if broken is None and life.healthy_from is None:
        # A CRD or grant that appears while the process waits is picked up (source.Kind polls every 10 s,
        # the reflector retries); one that appears during a back-off waits for the next start.
        life.healthy_from = elapsed if running else phase_ends
    elif broken is not None:
        life.healthy_from = None
    if life.healthy_from is not None and elapsed >= life.healthy_from:
        restarts = cycle(life.healthy_from)[0]
        running, broken = True, None
    if broken and not emulator.pod_logs.get((meta["namespace"], pod, container)):
        emulator.append_log(meta["namespace"], pod, broken, container)
    state = restart_state(running, life.started_at, backoff, container, pod, meta["namespace"])
    status: dict[str, Any] = {
        "name": container,
        "image": template["spec"]["containers"][0]["image"],
        "imageID": "",  # required by the API; the digest a registry would give is not modelled
        "ready": running,
        "started": running,
        "restartCount": restarts,
        "state": state,
    }
    if restarts or not running:
        status["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error"}}
    return status
