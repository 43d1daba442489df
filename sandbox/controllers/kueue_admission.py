"""Kueue's admission, emulated for the sandbox: a job submitted to a team's LocalQueue becomes a Workload that
waits until its ClusterQueue has quota for all its pods, borrows idle quota of the cohort within its limits,
and is preempted when a lender reclaims what it lent.

The rules, each from Kueue's documentation (v1beta1, the API the task governance add-on serves):

* A job labelled ``kueue.x-k8s.io/queue-name`` is represented by a Workload in its namespace, with one PodSet
  per replica spec (count, the pods' requests) and the priority of its ``kueue.x-k8s.io/priority-class``
  WorkloadPriorityClass, 0 without one ("Workload", https://kueue.sigs.k8s.io/docs/concepts/workload/;
  "Workload Priority Class", https://kueue.sigs.k8s.io/docs/concepts/workload_priority_class/). The job does
  not start (its pods are not created) until the Workload is admitted.
* Pending Workloads are tried by priority, then by creation time (StrictFIFO/BestEffortFIFO queueing,
  https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#queueing-strategy).
* A Workload is admitted whole: quota for every pod of every PodSet is reserved at once, or none is ("all or
  nothing", https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/), in the first flavor of
  the ClusterQueue whose nodeLabels select the nodes the pods can run on.
* It fits when the ClusterQueue's usage stays within nominalQuota + borrowingLimit, and the cohort's within
  what its ClusterQueues lend: each lends its unused nominal quota, up to its lendingLimit ("Cohort",
  "Borrowing limit", "Lending limit", https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/).
* A Workload that does not fit says why in its QuotaReserved condition, as Kueue words it: "couldn't assign
  flavors to pod set <name>: insufficient unused quota for <resource> in flavor <flavor>, <n> more needed".
* Preemption ("Preemption", https://kueue.sigs.k8s.io/docs/concepts/preemption/): a Workload that fits within
  its own ClusterQueue's nominal quota may take it back from ClusterQueues of the cohort that borrow
  (``reclaimWithinCohort: Any``), and with ``withinClusterQueue: LowerPriority`` may evict lower-priority
  Workloads of its own queue; the most recently admitted go first. An evicted Workload has condition Evicted
  (reason Preempted), its job's pods are removed, and it waits again in its queue.
* A serving Deployment's pods are queued one by one (Kueue's pod integration: sandbox.controllers.kueue_pods);
  a preempted pod is deleted and its replacement queued again.
* Topology-aware scheduling (https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/, and
  HyperPod's "Topology-aware scheduling" page): a PodSet annotated ``kueue.x-k8s.io/podset-required-topology:
  <node label>`` is admitted only when all its pods fit on the nodes of one value of that label;
  ``podset-preferred-topology`` tries one domain and otherwise admits across domains. The message of one that
  cannot fit: "topology ... allows to fit only <n> out of <m> pod(s)".
* The ClusterQueue's ``status.flavorsUsage`` ({name, resources: [{name, total, borrowed}]}),
  ``admittedWorkloads`` and ``pendingWorkloads`` report what is admitted.

Not modelled: fair sharing's ordering between ClusterQueues (first come, first served), borrowWithinCohort,
waitForPodsReady's timeout and requeueing (a Workload admitted stays admitted until preempted or finished),
and MultiKueue. Names: the Workload is ``<kind>-<job>-<uid prefix>`` (Kueue's adds a hash).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from sandbox.controllers import kueue_pods, scheduling
from sandbox.controllers.common import timestamp

log = logging.getLogger("sandbox.controllers.kueue_admission")

GROUP_VERSION = "kueue.x-k8s.io/v1beta1"
WORKLOADS = f"{GROUP_VERSION}/workloads"
CLUSTER_QUEUES = f"{GROUP_VERSION}/clusterqueues"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
PYTORCH = "sagemaker.amazonaws.com/v1/hyperpodpytorchjobs"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
Usage = dict[str, dict[str, dict[str, float]]]  # cluster queue -> flavor -> resource -> amount


def workload_name(job: dict[str, Any]) -> str:
    return f"{job['kind'].lower()}-{job['metadata']['name']}-{job['metadata']['uid'][:5]}"[:63]


def queued(job: dict[str, Any]) -> bool:
    return bool((job["metadata"].get("labels") or {}).get(QUEUE_LABEL))


def workload_of(emulator: Any, job: dict[str, Any]) -> dict[str, Any] | None:
    found: dict[str, Any] | None = emulator.get_object(WORKLOADS, job["metadata"]["namespace"], workload_name(job))
    return found


def admitted(workload: dict[str, Any] | None) -> bool:
    return _condition(workload, "Admitted") == "True"


def _condition(workload: dict[str, Any] | None, kind: str) -> str | None:
    for c in ((workload or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == kind:
            return str(c.get("status"))
    return None


def _set(workload: dict[str, Any], kind: str, status: str, reason: str, message: str) -> bool:
    """Set a condition; True when it changed."""
    conditions = workload.setdefault("status", {}).setdefault("conditions", [])
    found = next((c for c in conditions if c.get("type") == kind), None)
    if found and (found.get("status"), found.get("reason"), found.get("message")) == (status, reason, message):
        return False
    entry = {"type": kind, "status": status, "reason": reason, "message": message, "lastTransitionTime": timestamp()}
    if found:
        found.update(entry)
    else:
        conditions.append(entry)
    return True


# ---------------------------------------------------------------------------- Workloads for jobs


def _pod_sets(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"name": spec["name"], "count": int(spec.get("replicas") or 0), "template": spec["template"]}
        for spec in job["spec"].get("replicaSpecs") or []
    ]


def _priority(emulator: Any, job: dict[str, Any]) -> tuple[str | None, int]:
    name = (job["metadata"].get("labels") or {}).get(PRIORITY_LABEL)
    if not name:
        return None, 0
    found = emulator.get_object(f"{GROUP_VERSION}/workloadpriorityclasses", None, name)
    return name, int((found or {}).get("value") or 0)


async def _ensure_workloads(emulator: Any) -> None:
    """A Workload for each queued job and each queued pod of a Deployment (sandbox.controllers.kueue_pods); a
    Workload whose job or pod is gone goes with it (its owner reference)."""
    # read only (put_object stores a copy of the Workload built from them)
    jobs = [j for j in emulator.list_objects(PYTORCH, copied=False) if queued(j)]
    pods = [p for p in emulator.list_objects("v1/pods", copied=False) if kueue_pods.queued(p)]
    names = set()
    for owner, pod in [*((j, False) for j in jobs), *((p, True) for p in pods)]:
        meta = owner["metadata"]
        name = kueue_pods.workload_name(owner) if pod else workload_name(owner)
        names.add((meta["namespace"], name))
        if emulator.get_object(WORKLOADS, meta["namespace"], name) is not None:
            continue
        priority_class, priority = _priority(emulator, owner)
        workload = {
            "apiVersion": GROUP_VERSION,
            "kind": "Workload",
            "metadata": {
                "name": name,
                "namespace": meta["namespace"],
                "labels": {JOB_UID_LABEL: meta["uid"]},
                "ownerReferences": [
                    {
                        "apiVersion": owner.get("apiVersion", "v1"),
                        "kind": owner.get("kind", "Pod"),
                        "name": meta["name"],
                        "uid": meta["uid"],
                    }
                ],
            },
            "spec": {
                "queueName": meta["labels"][QUEUE_LABEL],
                "podSets": kueue_pods.pod_set(owner) if pod else _pod_sets(owner),
                "priority": priority,
                **({"priorityClassName": priority_class} if priority_class else {}),
            },
        }
        await emulator.put_object(WORKLOADS, workload)
    for workload in emulator.list_objects(WORKLOADS, copied=False):
        meta = workload["metadata"]
        if _ours(workload) and (meta["namespace"], meta["name"]) not in names:
            await emulator.delete_object(WORKLOADS, meta["namespace"], meta["name"])


# ---------------------------------------------------------------------------- quota


def _quota(cq: dict[str, Any]) -> dict[str, dict[str, dict[str, float | None]]]:
    """flavor -> resource -> {nominal, borrowing, lending} (None: no limit)."""
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for group in cq["spec"].get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for r in flavor.get("resources") or []:
                out.setdefault(flavor["name"], {})[r["name"]] = {
                    "nominal": scheduling.quantity(r.get("nominalQuota", 0)),
                    "borrowing": scheduling.quantity(r["borrowingLimit"]) if "borrowingLimit" in r else None,
                    "lending": scheduling.quantity(r["lendingLimit"]) if "lendingLimit" in r else None,
                }
    return out


def _requests(pod_set: dict[str, Any]) -> dict[str, float]:
    per_pod = scheduling.requests((pod_set.get("template") or {}).get("spec") or {})
    return {name: amount * int(pod_set.get("count") or 0) for name, amount in per_pod.items() if amount}


def _usage_of(workloads: list[dict[str, Any]]) -> Usage:
    usage: Usage = defaultdict(lambda: defaultdict(lambda: defaultdict(float)))
    for w in workloads:
        admission = (w.get("status") or {}).get("admission") or {}
        for assignment in admission.get("podSetAssignments") or []:
            for resource, amount in (assignment.get("resourceUsage") or {}).items():
                flavor = str((assignment.get("flavors") or {}).get(resource))
                usage[admission["clusterQueue"]][flavor][resource] += scheduling.quantity(amount)
    return usage


def _shortfall(
    name: str, flavor: str, want: dict[str, float], cqs: dict[str, dict[str, Any]], usage: Usage
) -> tuple[str, float] | None:
    """The first resource the ClusterQueue cannot cover in the flavor, with how much more it needs; None: fits."""
    quotas = {n: _quota(cq) for n, cq in cqs.items()}
    cohort = cqs[name]["spec"].get("cohort")
    mine = quotas[name].get(flavor, {})
    for resource, amount in sorted(want.items()):
        limits = mine.get(resource)
        if limits is None:
            return resource, amount
        used = usage[name][flavor][resource]
        nominal = float(limits["nominal"] or 0)
        ceiling = nominal + limits["borrowing"] if limits["borrowing"] is not None else float("inf")
        if not cohort:
            ceiling = nominal
        need = used + amount - min(ceiling, _available(name, flavor, resource, cqs, quotas, usage) + used)
        if need > 1e-9:
            return resource, need
    return None


def _available(
    name: str, flavor: str, resource: str, cqs: dict[str, dict[str, Any]], quotas: dict[str, Any], usage: Usage
) -> float:
    """What the ClusterQueue can still take in the flavor: its unused nominal quota, and in a cohort what the
    others lend (their unused nominal quota up to their lending limits)."""
    cohort = cqs[name]["spec"].get("cohort")
    limits = quotas[name].get(flavor, {}).get(resource) or {}
    free = float(limits.get("nominal") or 0) - usage[name][flavor][resource]
    if not cohort:
        return free
    for other, cq in cqs.items():
        if other == name or cq["spec"].get("cohort") != cohort:
            continue
        theirs = quotas[other].get(flavor, {}).get(resource)
        if theirs is None:
            continue
        nominal = float(theirs["nominal"] or 0)
        lendable = nominal if theirs["lending"] is None else min(nominal, float(theirs["lending"]))
        kept = nominal - lendable  # what it never lends
        free += lendable - max(0.0, usage[other][flavor][resource] - kept)
    return free


def _borrowing(name: str, cqs: dict[str, dict[str, Any]], usage: Usage) -> bool:
    quota = _quota(cqs[name])
    return any(
        amount > float((quota.get(flavor, {}).get(resource) or {}).get("nominal") or 0) + 1e-9
        for flavor, resources in usage[name].items()
        for resource, amount in resources.items()
    )


def _within_nominal(name: str, flavor: str, want: dict[str, float], cqs: dict[str, Any], usage: Usage) -> bool:
    quota = _quota(cqs[name]).get(flavor, {})
    return all(
        usage[name][flavor][r] + a <= float((quota.get(r) or {}).get("nominal") or 0) + 1e-9 for r, a in want.items()
    )


# ---------------------------------------------------------------------------- topology


def _topology_fit(pod_set: dict[str, Any], nodes: list[dict[str, Any]], bound: list[dict[str, Any]]) -> str | None:
    """None when the pods fit as their topology annotation asks; otherwise Kueue's words for why not."""
    annotations = ((pod_set.get("template") or {}).get("metadata") or {}).get("annotations") or {}
    label = annotations.get(REQUIRED) or annotations.get(PREFERRED)
    count = int(pod_set.get("count") or 0)
    spec = (pod_set.get("template") or {}).get("spec") or {}
    domains: dict[str, int] = defaultdict(int)
    placed = list(bound)
    total = 0
    for node in sorted(nodes, key=lambda n: n["metadata"]["name"]):
        value = (node["metadata"].get("labels") or {}).get(label) if label else "all"
        while value is not None:
            where, _ = scheduling.schedule(spec, [node], placed)
            if where is None:
                break
            placed.append({"spec": {**spec, "nodeName": where}, "status": {"phase": "Running"}})
            domains[value] += 1
            total += 1
    best = max(domains.values(), default=0)
    if annotations.get(REQUIRED) and best < count:
        return f'topology "{label}" allows to fit only {best} out of {count} pod(s)'
    if total < count:
        return f"the cluster's nodes fit only {total} out of {count} pod(s) of pod set {pod_set['name']}"
    return None


# ---------------------------------------------------------------------------- one admission cycle


def _flavor(cq: dict[str, Any], pod_set: dict[str, Any], nodes: list[dict[str, Any]]) -> str | None:
    """The first flavor of the ClusterQueue whose instance type is one of the nodes the pods may run on."""
    spec = (pod_set.get("template") or {}).get("spec") or {}
    types = {(n["metadata"].get("labels") or {}).get(INSTANCE_TYPE) for n in nodes if scheduling.selects(spec, n)}
    return next((f for f in _quota(cq) if f in types), None)


async def _evict(emulator: Any, workload: dict[str, Any], by: dict[str, Any], why: str) -> None:
    workload["status"].pop("admission", None)
    message = f"Preempted to accommodate a workload (UID: {by['metadata'].get('uid', '')}) due to {why}"
    _set(workload, "Evicted", "True", "Preempted", message)
    _set(workload, "Preempted", "True", "InCohortReclamation" if "cohort" in why else "InClusterQueue", message)
    _set(workload, "QuotaReserved", "False", "Preempted", message)
    _set(workload, "Admitted", "False", "Preempted", message)
    await emulator.put_object(WORKLOADS, workload)
    owner: dict[str, Any] = next(iter(workload["metadata"].get("ownerReferences") or []), {})
    if owner.get("kind") == "Pod":  # a plain pod cannot be suspended: Kueue stops it (kueue_pods)
        meta = workload["metadata"]
        await emulator.put_object("v1/events", _event(meta["namespace"], meta["name"], "Preempted", message))
        await emulator.delete_object("v1/pods", meta["namespace"], owner["name"])


def _event(namespace: str, workload: str, reason: str, message: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{workload}.{reason.lower()}", "namespace": namespace},
        "involvedObject": {"apiVersion": GROUP_VERSION, "kind": "Workload", "name": workload, "namespace": namespace},
        "reason": reason,
        "message": message,
        "type": "Normal",
        "source": {"component": "kueue-admission"},
        "firstTimestamp": timestamp(),
        "lastTimestamp": timestamp(),
        "count": 1,
    }


async def _admit(emulator: Any, workload: dict[str, Any], cq: str, flavor: str, want: dict[str, float]) -> None:
    covered = set(want)
    workload.setdefault("status", {})["admission"] = {
        "clusterQueue": cq,
        "podSetAssignments": [
            {
                "name": ps["name"],
                "count": ps["count"],
                "flavors": {r: flavor for r in _requests(ps) if r in covered},
                "resourceUsage": {r: _quantity(a) for r, a in _requests(ps).items() if r in covered},
            }
            for ps in workload["spec"]["podSets"]
        ],
    }
    message = f"Quota reserved in ClusterQueue {cq}"
    _set(workload, "QuotaReserved", "True", "QuotaReserved", message)
    _set(workload, "Admitted", "True", "Admitted", f"The workload is admitted (ClusterQueue {cq})")
    for kind in ("Evicted", "Preempted"):
        _set(workload, kind, "False", "QuotaReserved", "the workload is admitted again")
    await emulator.put_object(WORKLOADS, workload)


def _quantity(amount: float) -> str:
    return str(int(amount)) if amount == int(amount) else f"{int(amount * 1000)}m"


async def _pending(emulator: Any, workload: dict[str, Any], message: str) -> None:
    if _set(workload, "QuotaReserved", "False", "Pending", message):
        _set(workload, "Admitted", "False", "Pending", message)
        await emulator.put_object(WORKLOADS, workload)


async def admit_all(emulator: Any) -> None:
    """One pass of Kueue's scheduler over every pending Workload."""
    await _ensure_workloads(emulator)
    cqs = {cq["metadata"]["name"]: cq for cq in emulator.list_objects(CLUSTER_QUEUES)}
    local = {
        (lq["metadata"]["namespace"], lq["metadata"]["name"]): (lq.get("spec") or {}).get("clusterQueue")
        for lq in emulator.list_objects(f"{GROUP_VERSION}/localqueues")
    }
    workloads = [w for w in emulator.list_objects(WORKLOADS) if _ours(w)]
    live = [w for w in workloads if admitted(w)]
    usage = _usage_of(live)
    nodes = emulator.list_objects("v1/nodes", copied=False)  # read only
    bound = [p for p in emulator.list_objects("v1/pods", copied=False) if (p.get("spec") or {}).get("nodeName")]
    waiting = sorted(
        (w for w in workloads if not admitted(w)),
        key=lambda w: (-int(w["spec"].get("priority") or 0), str(w["metadata"].get("creationTimestamp") or "")),
    )
    for workload in waiting:
        queue = workload["spec"]["queueName"]
        name = local.get((workload["metadata"]["namespace"], queue))
        if name is None or name not in cqs:
            await _pending(emulator, workload, f"LocalQueue {queue} doesn't exist")
            continue
        pod_set = workload["spec"]["podSets"][0]
        flavor = _flavor(cqs[name], pod_set, nodes)
        if flavor is None:
            await _pending(emulator, workload, f"couldn't assign flavors to pod set {pod_set['name']}: no flavor of"
                           f" ClusterQueue {name} matches the nodes its pods select")  # fmt: skip
            continue
        # resources no flavor of the queue covers are not counted (as with Kueue's resources.excludeResourcePrefixes)
        covered = _quota(cqs[name])[flavor]
        want: dict[str, float] = defaultdict(float)
        for ps in workload["spec"]["podSets"]:
            for r, a in _requests(ps).items():
                if r in covered:
                    want[r] += a
        short = _shortfall(name, flavor, want, cqs, usage)
        victims: list[dict[str, Any]] = []
        if short is not None:
            victims = _victims(workload, name, flavor, want, cqs, usage, live)
            if not victims:
                resource, more = short
                amount = f"{more / 2**30:g}Gi" if resource == "memory" else f"{more:g}"
                await _pending(
                    emulator,
                    workload,
                    f"couldn't assign flavors to pod set {pod_set['name']}: insufficient unused quota for {resource}"
                    f" in flavor {flavor}, {amount} more needed",
                )
                continue
        if not victims:
            misfit = _topology_fit(pod_set, nodes, bound)
            if misfit is not None:
                await _pending(emulator, workload, f"couldn't assign flavors to pod set {pod_set['name']}: {misfit}")
                continue
        for victim in victims:
            why = "reclamation within the cohort" if _cq_of(victim) != name else "prioritization in the ClusterQueue"
            for r, a in _usage_of([victim])[_cq_of(victim)][flavor].items():
                usage[_cq_of(victim)][flavor][r] -= a
            live.remove(victim)
            await _evict(emulator, victim, workload, why)
        await _admit(emulator, workload, name, flavor, want)
        live.append(workload)
        for r, a in want.items():
            usage[name][flavor][r] += a
    await _report(emulator, cqs, usage, workloads)


def _ours(workload: dict[str, Any]) -> bool:
    """A Workload of a job the sandbox's operators run or of a queued pod (either waits for the admission)."""
    kinds = ("HyperPodPyTorchJob", "Pod")
    return any(o.get("kind") in kinds for o in workload["metadata"].get("ownerReferences") or [])


def _cq_of(workload: dict[str, Any]) -> str:
    return str(((workload.get("status") or {}).get("admission") or {}).get("clusterQueue"))


def _victims(
    workload: dict[str, Any],
    name: str,
    flavor: str,
    want: dict[str, float],
    cqs: dict[str, dict[str, Any]],
    usage: Usage,
    live: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The admitted Workloads whose eviction lets ``workload`` in, most recently admitted first: others' that
    borrow while it stays within its nominal quota (reclaimWithinCohort), and lower-priority ones of its own
    ClusterQueue (withinClusterQueue LowerPriority); empty when no such set makes room."""
    preemption = cqs[name]["spec"].get("preemption") or {}
    priority = int(workload["spec"].get("priority") or 0)
    candidates = []
    reclaim = preemption.get("reclaimWithinCohort", "Never") != "Never"
    if reclaim and _within_nominal(name, flavor, want, cqs, usage):
        candidates += [w for w in live if _cq_of(w) != name and _cq_of(w) in cqs and _borrowing(_cq_of(w), cqs, usage)]
    if preemption.get("withinClusterQueue", "Never") == "LowerPriority":
        candidates += [w for w in live if _cq_of(w) == name and int(w["spec"].get("priority") or 0) < priority]
    candidates.sort(key=_admitted_at, reverse=True)
    trial: Usage = defaultdict(lambda: defaultdict(lambda: defaultdict(float)))
    for cq, flavors in usage.items():
        for f, resources in flavors.items():
            trial[cq][f].update(resources)
    chosen = []
    for victim in candidates:
        for r, a in _usage_of([victim])[_cq_of(victim)][flavor].items():
            trial[_cq_of(victim)][flavor][r] -= a
        chosen.append(victim)
        if _shortfall(name, flavor, want, cqs, trial) is None:
            return chosen
    return []


def _admitted_at(workload: dict[str, Any]) -> str:
    for c in (workload.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Admitted":
            return str(c.get("lastTransitionTime"))
    return ""


async def _report(emulator: Any, cqs: dict[str, dict[str, Any]], usage: Usage, workloads: list[dict[str, Any]]) -> None:
    """Each ClusterQueue's status: what its admitted Workloads use per flavor, and the part beyond its quota."""
    for name, cq in cqs.items():
        quota = _quota(cq)
        flavors = []
        for flavor, resources in sorted(quota.items()):
            rows = []
            for resource, limits in resources.items():
                total = usage[name][flavor][resource]
                borrowed = max(0.0, total - float(limits["nominal"] or 0))
                rows.append({"name": resource, "total": _quantity(total), "borrowed": _quantity(borrowed)})
            flavors.append({"name": flavor, "resources": rows})
        status = {
            "flavorsUsage": flavors,
            "admittedWorkloads": sum(1 for w in workloads if admitted(w) and _cq_of(w) == name),
        }
        if {k: v for k, v in (cq.get("status") or {}).items() if k in status} != status:
            cq["status"] = {**(cq.get("status") or {}), **status}
            await emulator.put_object(CLUSTER_QUEUES, cq)
