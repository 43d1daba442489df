"""The HyperPod inference operator and the AWS Load Balancer Controller, as simulated controllers.

Inference operator (EKS add-on amazon-sagemaker-hyperpod-inference): its kinds are served once the
add-on is installed (the add-on carries its CRDs), and it reconciles only while EKS reports the add-on
ACTIVE (its controller running; sandbox.aws.eks derives that from its Deployment's nodes and
cert-manager). Each InferenceEndpointConfig or JumpStartModel becomes a Deployment and a ClusterIP
Service of the same name, owned by the custom resource (so deleting it removes them, as the API server's
garbage collector does), the pods pinned to ``spec.instanceType`` by required node affinity;
the resource's status follows the Deployment: ``state`` DeploymentInProgress -> DeploymentComplete,
``deploymentStatus`` with the Deployment's status, ``selector`` and ``replicas`` (the CRD's status
fields, aws/sagemaker-hyperpod-cli helm_chart/.../inference-operator/config/crd). The operator's own
object names and the JumpStart serving image are this emulation's choice (not documented); the model
volume is the S3 model location through the Mountpoint CSI driver, written here as an inline CSI volume
(how the real operator declares it is not documented), an emptyDir for FSx.

Load Balancer Controller: a Service of ``loadBalancerClass: service.k8s.aws/nlb`` gets an NLB whose DNS
name the controller writes to ``status.loadBalancer.ingress[0].hostname``
(https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/nlb/), named
``k8s-<namespace>-<service>-<hash>.elb.<region>.amazonaws.com`` as the controller names its NLBs, but
only while the controller runs (its Deployment kube-system/aws-load-balancer-controller has a ready
replica) and its pod identity role allows elasticloadbalancing:CreateLoadBalancer; a denial becomes a
FailedDeployModel Warning event on the Service. The NLB lives in the VPC: one requester-managed network
interface per zone in the subnets the controller discovers (``kubernetes.io/role/internal-elb``, else the
EKS cluster's), and a frontend security group the controller tags ``elbv2.k8s.aws/cluster`` and
``service.k8s.aws/stack`` (controller guide, "NLB" and "Security group"). The controller puts its
finalizer ``service.k8s.aws/resources`` on the Service; a deleted Service stays terminating until the
running controller has removed the NLB (its interfaces and security group), then goes. While they exist,
EC2 refuses to delete the subnet or the VPC (sandbox.aws.ec2.consistency): "If you have active services
in your cluster that are associated with a load balancer, you must delete those services before deleting
the cluster ... Otherwise, you can have orphaned resources in your VPC that prevent you from being able
to delete the VPC" (https://docs.aws.amazon.com/eks/latest/APIReference/API_DeleteCluster.html).
Not modelled: the NLB itself in ELB's API, targets.

Task governance: the resource's ``kueue.x-k8s.io/queue-name`` and ``priority-class`` labels (AWS, "Deploy models
with task governance") are copied to its Deployment and pod template, so sandbox.controllers.kueue_pods queues
the replicas (how the real operator hands them to Kueue is not documented); a JumpStart model's
``spec.server.acceleratorPartitionType`` is its pod's request for one such partition instead of a GPU.

Autoscaling: a resource's ``autoScalingSpec`` becomes a KEDA ScaledObject on its Deployment, which KEDA
(installed with the inference add-on) scales; while it does, the operator leaves the Deployment's replicas
to it and reports them in ``status.replicas`` (sandbox.controllers.keda).
"""

from __future__ import annotations

import copy
import hashlib
import logging
from typing import Any, NamedTuple

from sandbox.controllers import keda, model_jobs
from sandbox.controllers.common import crd, install_crd, timestamp
from sandbox.controllers.periodic import Periodic

log = logging.getLogger("sandbox.controllers.inference")

GROUP, VERSION = "inference.sagemaker.aws.amazon.com", "v1"
KINDS = (("InferenceEndpointConfig", "inferenceendpointconfigs"), ("JumpStartModel", "jumpstartmodels"))
SCALED_OBJECTS = keda.SCALED_OBJECTS
ADDON = "amazon-sagemaker-hyperpod-inference"
JUMPSTART_IMAGE = "763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128"
JUMPSTART_PORT = 8080
NLB_CLASS = "service.k8s.aws/nlb"


def _ready(deployment: dict[str, Any] | None) -> bool:
    status, spec = (deployment or {}).get("status") or {}, (deployment or {}).get("spec") or {}
    return deployment is not None and status.get("readyReplicas", 0) >= spec.get("replicas", 1) > 0


KUEUE_LABELS = ("kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class")


def _worker(kind: str, spec: dict[str, Any]) -> tuple[dict[str, Any], int, str]:
    """The serving container, its port and the instance type."""
    if kind == "JumpStartModel":
        model = spec.get("model") or {}
        # spec.server.acceleratorPartitionType: the replica asks for one GPU partition instead of a GPU (AWS,
        # "Task submission with GPU partitions": JumpStart models)
        partition = (spec.get("server") or {}).get("acceleratorPartitionType")
        device = f"nvidia.com/{partition}" if partition else "nvidia.com/gpu"
        container = {
            "name": "model",
            "image": JUMPSTART_IMAGE,
            "env": [{"name": "SM_JUMPSTART_MODEL_ID", "value": str(model.get("modelId", ""))}],
            "ports": [{"name": "http", "containerPort": JUMPSTART_PORT}],
            "resources": {"requests": {device: "1"}, "limits": {device: "1"}},
        }
        return container, JUMPSTART_PORT, str((spec.get("server") or {}).get("instanceType", ""))
    worker = spec.get("worker") or {}
    port = int((worker.get("modelInvocationPort") or {}).get("containerPort", 8080))
    mount = worker.get("modelVolumeMount") or {"name": "model-weights", "mountPath": "/opt/ml/model"}
    container = {
        "name": "model",
        "image": worker.get("image", ""),
        "args": list(worker.get("args") or []),
        "env": [
            *(worker.get("environmentVariables") or []),
            {"name": "MODEL_LOCATION", "value": str((spec.get("modelSourceConfig") or {}).get("modelLocation", ""))},
        ],
        "ports": [{"name": "http", "containerPort": port}],
        "resources": copy.deepcopy(worker.get("resources") or {}),
        "volumeMounts": [{"name": mount["name"], "mountPath": mount.get("mountPath", "/opt/ml/model")}],
    }
    return container, port, str(spec.get("instanceType", ""))


def _model_volume(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The model's volume: an S3 source is the bucket's ``modelLocation`` prefix through Mountpoint (so the
    server finds what is there, sandbox.controllers.programs); an FSx source is not modelled (an emptyDir)."""
    source = spec.get("modelSourceConfig") or {}
    if source.get("modelSourceType") != "s3":
        return {"name": name, "emptyDir": {}}
    location = str(source.get("modelLocation", "")).strip("/")
    bucket = str((source.get("s3Storage") or {}).get("bucketName", ""))
    options = f"prefix {location}/" if location else ""
    attributes = {"bucketName": bucket, "mountOptions": options}
    return {"name": name, "csi": {"driver": "s3.csi.aws.com", "readOnly": True, "volumeAttributes": attributes}}


def _children(kind: str, resource: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    meta, spec = resource["metadata"], resource.get("spec") or {}
    name, namespace = meta["name"], meta["namespace"]
    container, port, instance_type = _worker(kind, spec)
    labels = {"app": name, "sagemaker.amazonaws.com/inference-endpoint": name}
    # the team's queue and priority class on the resource go to its workload, so Kueue queues the replicas
    # (AWS, "Deploy models with task governance"; sandbox.controllers.kueue_pods)
    queued = {k: v for k, v in (meta.get("labels") or {}).items() if k.startswith(KUEUE_LABELS)}
    owner = [{"apiVersion": f"{GROUP}/{VERSION}", "kind": kind, "name": name, "uid": meta.get("uid", "")}]
    volumes = [_model_volume(m["name"], spec) for m in container.get("volumeMounts", [])]
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [instance_type]}
                        ]
                    }
                ]
            }
        }
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": labels | queued, "ownerReferences": owner},
        "spec": {
            "replicas": int(spec.get("replicas", 1)),
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": labels | queued},
                "spec": {"containers": [container], "volumes": volumes, "affinity": affinity},
            },
        },
    }
    pd = spec.get("pdSpec") if kind == "InferenceEndpointConfig" else None
    deployments = [deployment] if not pd else _pd_deployments(deployment, pd)
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace, "labels": labels, "ownerReferences": owner},
        "spec": {
            "type": "ClusterIP",
            "selector": {"app": name, **({PD_ROLE: "decode"} if pd else {})},
            "ports": [{"name": "http", "port": port, "targetPort": port}],
        },
    }
    return deployments, service


PD_ROLE = "sagemaker.amazonaws.com/pd-role"  # this emulation's label; the operator's own is not documented
PD_THRESHOLD_ENV = "PD_ROUTING_THRESHOLD"  # likewise: how the decode side learns routingThreshold


def _pd_deployments(base: dict[str, Any], pd: dict[str, Any]) -> list[dict[str, Any]]:
    """pdSpec's two Deployments (operator v3.2): decode (named as the resource, the Service's pods) and prefill,
    each with its role's replicas and resources, its args appended after the worker's, and its nodeSelector.
    Requests whose prompt has at least routingThreshold tokens (default 4096; 0 = all) take the PD path, the
    decode side pulling the KV cache from a prefill pod; shorter ones are prefilled by the decode pod itself
    (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-inference-release-notes.html, v3.2)."""
    name = base["metadata"]["name"]
    made = []
    for role, key, suffix in (("decode", "decodingSpec", ""), ("prefill", "prefillSpec", "-prefill")):
        side = pd.get(key) or {}
        one = copy.deepcopy(base)
        one["metadata"]["name"] = f"{name}{suffix}"
        one["spec"]["replicas"] = int(side.get("replicas", 1))
        one["spec"]["selector"]["matchLabels"][PD_ROLE] = role
        template = one["spec"]["template"]
        template["metadata"]["labels"] = {**template["metadata"]["labels"], PD_ROLE: role}
        container = template["spec"]["containers"][0]
        container["args"] = [*container.get("args", []), *(side.get("args") or [])]
        container["resources"] = copy.deepcopy(side.get("resources") or container.get("resources") or {})
        if role == "decode":
            threshold = str(pd.get("routingThreshold", 4096))
            container["env"] = [*container.get("env", []), {"name": PD_THRESHOLD_ENV, "value": threshold}]
        if side.get("nodeSelector"):
            template["spec"]["nodeSelector"] = dict(side["nodeSelector"])
        made.append(one)
    return made


async def _put_if_changed(emulator: Any, resource: str, wanted: dict[str, Any]) -> dict[str, Any]:
    meta = wanted["metadata"]
    old: dict[str, Any] | None = emulator.get_object(resource, meta["namespace"], meta["name"])
    if old is not None and old.get("spec") == wanted["spec"]:
        return old
    merged = {**(old or {}), **wanted, "metadata": {**((old or {}).get("metadata") or {}), **meta}}
    if old is not None and resource == "apps/v1/deployments":
        merged["metadata"]["generation"] = int(old["metadata"].get("generation", 1)) + 1
    stored: dict[str, Any] = await emulator.put_object(resource, merged)
    return stored


async def _autoscaling(emulator: Any, kind: str, resource: dict[str, Any], region: str) -> bool:
    """The operator's ScaledObject for the resource's Deployment, made, updated or (no trigger) removed;
    True while KEDA sets the Deployment's replicas."""
    meta = resource["metadata"]
    wanted = keda.operator_scaled_object(resource, kind, f"{GROUP}/{VERSION}", region)
    if wanted is not None:
        await _put_if_changed(emulator, SCALED_OBJECTS, wanted)
        return True
    name = f"{meta['name']}-scaled-object"
    if emulator.get_object(SCALED_OBJECTS, meta["namespace"], name) is not None:
        await emulator.delete_object(SCALED_OBJECTS, meta["namespace"], name)
    return False


async def _reconcile_resource(emulator: Any, kind: str, plural: str, resource: dict[str, Any], region: str) -> None:
    meta = resource["metadata"]
    if meta.get("deletionTimestamp"):
        return
    (deployment, *others), service = _children(kind, resource)
    old = emulator.get_object("apps/v1/deployments", meta["namespace"], meta["name"])
    if await _autoscaling(emulator, kind, resource, region) and old is not None:
        deployment["spec"]["replicas"] = int((old.get("spec") or {}).get("replicas", 1))
    found = await _put_if_changed(emulator, "apps/v1/deployments", deployment)
    others = [await _put_if_changed(emulator, "apps/v1/deployments", d) for d in others]
    await _put_if_changed(emulator, "v1/services", service)
    status = found.get("status") or {}
    complete = _ready(found) and all(_ready(d) for d in others)
    wanted_status = {
        "state": "DeploymentComplete" if complete else "DeploymentInProgress",
        "observedGeneration": meta.get("generation", 1),
        "replicas": int((found.get("spec") or {}).get("replicas", 1)),
        "selector": f"app={meta['name']}",
        "deploymentStatus": {
            "name": meta["name"],
            "deploymentObjectOverallState": "DeploymentComplete" if complete else "DeploymentInProgress",
            "status": {
                "replicas": int(status.get("replicas", 0)),
                "readyReplicas": int(status.get("readyReplicas", 0)),
                "availableReplicas": int(status.get("availableReplicas", 0)),
            },
        },
    }
    current = dict(resource.get("status") or {})
    current.get("deploymentStatus", {}).pop("lastUpdated", None)
    if current != wanted_status:
        wanted_status["deploymentStatus"]["lastUpdated"] = timestamp()
        await emulator.put_object(f"{GROUP}/{VERSION}/{plural}", {**resource, "status": wanted_status})


LBC_NAMESPACE, LBC_NAME = "kube-system", "aws-load-balancer-controller"  # the chart's defaults (Launchpod's too)


def _controller_refusal(emulator: Any, cluster: str, region: str, service: dict[str, Any]) -> str | None:
    """None when the controller's pod identity may create the NLB, else AWS's AccessDenied message. The
    controller tags what it creates with ``elbv2.k8s.aws/cluster`` (its IAM policy's conditions rely on it,
    docs/install/iam_policy.json) and names the NLB ``k8s-<namespace>-<service>-<hash>``."""
    from sandbox.aws.eks import find_cluster
    from sandbox.aws.iam import authz, pods

    found = find_cluster(cluster)
    if found is None:
        return "no EKS cluster"
    account = found.arn.split(":")[4]
    account_object = emulator.get_object("v1/serviceaccounts", LBC_NAMESPACE, LBC_NAME)
    try:
        identity = pods.identity_of(found, account, account_object, LBC_NAMESPACE, LBC_NAME)
    except pods.NoCredentials as exc:
        return str(exc)
    meta = service["metadata"]
    call = authz.Call(
        prefix="elasticloadbalancing",
        operation="CreateLoadBalancer",
        params={
            "Name": f"k8s-{meta['namespace'][:8]}-{meta['name'][:8]}",
            "Type": "network",
            "Scheme": "internal",
            "Tags": [
                {"Key": "elbv2.k8s.aws/cluster", "Value": cluster},
                {"Key": "service.k8s.aws/stack", "Value": f"{meta['namespace']}/{meta['name']}"},
            ],
        },
        region=region,
        account=account,
    )
    refused: str | None = pods.authorize(identity, call)
    return refused


async def _warn(emulator: Any, service: dict[str, Any], message: str) -> None:
    """The controller's event on a Service it could not reconcile (reason FailedDeployModel, as it reports)."""
    meta = service["metadata"]
    name = f"{meta['name']}.lbc-failed-deploy-model"
    if emulator.get_object("v1/events", meta["namespace"], name) is not None:
        return
    await emulator.put_object(
        "v1/events",
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": meta["namespace"]},
            "involvedObject": {"kind": "Service", "namespace": meta["namespace"], "name": meta["name"]},
            "reason": "FailedDeployModel",
            "message": f"Failed deploy model due to {message}",
            "type": "Warning",
            "source": {"component": "service"},
            "lastTimestamp": timestamp(),
        },
    )


LBC_FINALIZER = "service.k8s.aws/resources"


def _nlb_name(service: dict[str, Any]) -> str:
    meta = service["metadata"]
    digest = hashlib.sha256(meta.get("uid", meta["name"]).encode()).hexdigest()[:10]
    return f"k8s-{meta['namespace'][:8]}-{meta['name'][:8]}-{digest}"


class _Nlb(NamedTuple):
    """Where a Service's NLB lives: the EKS cluster (moto), the EC2 backend of its account and region, the
    NLB's name and the interfaces ELB made for it (they carry the name in their description)."""

    cluster: Any
    ec2: Any
    name: str
    interfaces: list[Any]


def _nlb_of(cluster: str, region: str, service: dict[str, Any]) -> _Nlb | None:
    """The Service's NLB footprint; None once the EKS cluster is gone."""
    from moto.ec2.models import ec2_backends

    from sandbox.aws.eks import find_cluster

    found = find_cluster(cluster)
    if found is None:
        return None
    ec2 = ec2_backends[found.arn.split(":")[4]][region]
    name = _nlb_name(service)
    interfaces = [e for e in list(ec2.enis.values()) if name in (getattr(e, "description", "") or "")]
    return _Nlb(found, ec2, name, interfaces)


def _provision_nlb(cluster: str, region: str, service: dict[str, Any]) -> None:
    """The NLB's footprint in the VPC: a frontend security group and one interface per zone."""
    nlb = _nlb_of(cluster, region, service)
    if nlb is None or nlb.interfaces:
        return
    found, ec2, name = nlb.cluster, nlb.ec2, nlb.name
    ids = list((found.resources_vpc_config or {}).get("subnetIds") or [])
    own = [ec2.get_subnet(i) for i in ids]
    vpc = own[0].vpc_id if own else None
    tagged = [
        n
        for n in ec2.describe_subnets(filters={"vpc-id": vpc} if vpc else None)
        if any(t["key"] == "kubernetes.io/role/internal-elb" for t in n.get_tags())
    ]
    zones: dict[str, Any] = {}
    for subnet in tagged or own:
        zones.setdefault(subnet.availability_zone, subnet)
    meta = service["metadata"]
    group = ec2.create_security_group(
        name,
        "[k8s] Managed SecurityGroup for LoadBalancer",
        vpc_id=vpc,
        tags={"elbv2.k8s.aws/cluster": cluster, "service.k8s.aws/stack": f"{meta['namespace']}/{meta['name']}"},
    )
    for subnet in zones.values():
        ec2.create_network_interface(subnet, None, group_ids=[group.id], description=f"ELB net/{name}/{group.id[-16:]}")


def _release_nlb(cluster: str, region: str, service: dict[str, Any]) -> None:
    """DeleteLoadBalancer: ELB releases the interfaces; the controller deletes its security group."""
    nlb = _nlb_of(cluster, region, service)
    if nlb is None:
        return
    ec2, name = nlb.ec2, nlb.name
    for eni in nlb.interfaces:
        ec2.enis.pop(eni.id, None)
    for group in list(ec2.describe_security_groups()):
        if group.name == name:
            ec2.delete_security_group(group_id=group.id)


async def _load_balancers(emulator: Any, region: str, cluster: str = "") -> None:
    """Only a running controller (a ready replica of its Deployment) whose pod identity role may call
    elasticloadbalancing:CreateLoadBalancer gives a Service its NLB; otherwise the Service stays without
    an address, as on AWS (nothing else reconciles loadBalancerClass service.k8s.aws/nlb). Only a running
    controller removes a deleted Service's NLB and then its finalizer."""
    controller = emulator.get_object("apps/v1/deployments", LBC_NAMESPACE, LBC_NAME)
    if not int(((controller or {}).get("status") or {}).get("readyReplicas") or 0):
        return
    for service in emulator.list_objects("v1/services"):
        spec, meta = service.get("spec") or {}, service["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        if meta.get("deletionTimestamp"):
            if LBC_FINALIZER in finalizers:
                _release_nlb(cluster, region, service)
                kept = [f for f in finalizers if f != LBC_FINALIZER]
                await emulator.put_object("v1/services", {**service, "metadata": {**meta, "finalizers": kept}})
            continue
        if spec.get("type") != "LoadBalancer" or spec.get("loadBalancerClass") != NLB_CLASS:
            continue
        if ((service.get("status") or {}).get("loadBalancer") or {}).get("ingress"):
            continue
        refused = _controller_refusal(emulator, cluster, region, service)
        if refused:
            await _warn(emulator, service, refused)
            continue
        _provision_nlb(cluster, region, service)
        host = f"{_nlb_name(service)}.elb.{region}.amazonaws.com"
        await emulator.put_object(
            "v1/services",
            {
                **service,
                "metadata": {**meta, "finalizers": [*finalizers, LBC_FINALIZER]},
                "status": {"loadBalancer": {"ingress": [{"hostname": host}]}},
            },
        )


def operator_state(cluster: str) -> str | None:
    """The inference add-on's status as EKS reports it (health included), or None when not installed."""
    from sandbox.aws.eks import find_cluster

    found = find_cluster(cluster)
    addon = (found.addons if found is not None else {}).get(ADDON)
    return addon.health()[0] if addon is not None else None


async def reconcile(emulator: Any, state: str | None, region: str = "us-east-1", cluster: str = "") -> None:
    if state is not None and state != "DELETING":
        for definition in [
            *(crd(GROUP, kind, plural, (VERSION,)) for kind, plural in KINDS),
            crd("keda.sh", "ScaledObject", "scaledobjects", ("v1alpha1",)),
        ]:
            await install_crd(emulator, definition)
        if state == "ACTIVE":
            for kind, plural in KINDS:
                for resource in emulator.list_objects(f"{GROUP}/{VERSION}/{plural}"):
                    await _reconcile_resource(emulator, kind, plural, resource, region)
            await keda.reconcile(emulator, cluster, ADDON)
    await _load_balancers(emulator, region, cluster)
    await model_jobs.reconcile(emulator)


def reconcile_all(fleet: Any) -> None:
    for name in fleet.names():
        try:
            state = operator_state(name)
            fleet.call(name, lambda emulator, state=state, name=name: reconcile(emulator, state, cluster=name))
        except Exception:  # a cluster being deleted, a loop shutting down: try again next tick
            log.debug("inference reconcile failed for %s", name, exc_info=True)


def inference_controller(fleet: Any, interval: float = 0.2) -> Periodic:
    return Periodic("sandbox-inference", interval, lambda: reconcile_all(fleet))
