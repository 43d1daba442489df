"""Validation of CreateCluster and UpdateCluster input with AWS's wording: names, instance types and counts,
execution roles, deep health checks, lifecycle scripts, the EKS orchestrator and its VPC, and the instance
group fields that cannot change after creation."""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable
from typing import Any

from moto.sagemaker.models import SageMakerModelBackend

from sandbox.aws.sagemaker.common import EKS_ARN, instance_types, invalid
from sandbox.aws.sagemaker.instances import shape_of
from sandbox.aws.sagemaker.models import InstanceGroup

_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
_ROLE_ARN = re.compile(r"^arn:aws[a-z\-]*:iam::(?P<account>\d{12}):role/?(?P<name>[a-zA-Z_0-9+=,.@\-_/]+)$")
# The Kubernetes versions HyperPod attaches to ("Kubernetes version support",
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites.html): CreateCluster
# refuses an EKS cluster at any other version (1.35, which EKS offers, is not listed yet).
HYPERPOD_KUBERNETES_VERSIONS: tuple[str, ...] = ("1.28", "1.29", "1.30", "1.31", "1.32", "1.33", "1.34")


# ClusterKubernetesConfig's members as the API reference constrains them (botocore's sagemaker model carries
# the same): keys 1-317 characters, an optional DNS-subdomain prefix and "/", then a name that starts and
# ends alphanumeric; values 1-63 characters of the same alphabet
# (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ClusterKubernetesTaint.html). botocore
# checks lengths before sending; the patterns only SageMaker checks.
_KUBE_KEY = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)
_KUBE_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def _constrained(value: Any, where: str, pattern: re.Pattern[str], longest: int) -> None:
    text = str(value)
    if not 1 <= len(text) <= longest:
        raise invalid(
            f"1 validation error detected: Value '{text}' at '{where}' failed to satisfy constraint: Member must "
            f"have length between 1 and {longest}"
        )
    if not pattern.match(text):
        raise invalid(
            f"1 validation error detected: Value '{text}' at '{where}' failed to satisfy constraint: Member must "
            f"satisfy regular expression pattern: {pattern.pattern.strip('^$')}"
        )


def _validate_kubernetes(config: dict[str, Any] | None, where: str) -> None:
    for key, value in ((config or {}).get("Labels") or {}).items():
        _constrained(key, f"{where}.kubernetesConfig.labels.key", _KUBE_KEY, 317)
        _constrained(value, f"{where}.kubernetesConfig.labels.value", _KUBE_VALUE, 63)
    for index, taint in enumerate((config or {}).get("Taints") or [], start=1):
        _constrained(taint.get("Key"), f"{where}.kubernetesConfig.taints.{index}.member.key", _KUBE_KEY, 317)
        if "Value" in taint:
            _constrained(taint["Value"], f"{where}.kubernetesConfig.taints.{index}.member.value", _KUBE_VALUE, 63)


_S3_URI = re.compile(r"^s3://(?P<bucket>[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9])(/.*)?$")


def require_name(value: Any, where: str) -> None:
    if not isinstance(value, str) or not _NAME.match(value):
        raise invalid(
            f"1 validation error detected: Value '{value}' at '{where}' failed to satisfy constraint: "
            "Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"
        )


def _role_allows_bucket(account: str, partition: str, role_arn: str, bucket: str) -> bool:
    """Whether the role, as stored in moto's IAM, has a policy allowing s3:GetObject on ``bucket``."""
    match = _ROLE_ARN.match(role_arn or "")
    if not match:
        return False
    try:
        from moto.iam.models import iam_backends

        role = iam_backends[account][partition].get_role(match["name"].split("/")[-1])
    except Exception:  # no such role in the emulated IAM
        return False
    documents = list(role.policies.values())
    for policy in role.managed_policies.values():
        versions = [v for v in getattr(policy, "versions", []) if getattr(v, "is_default", False)]
        documents += [v.document for v in versions] or [getattr(policy, "document", "") or ""]
    target = f"arn:{partition}:s3:::{bucket}/object"
    for document in documents:
        try:
            statements = json.loads(document).get("Statement", [])
        except (TypeError, ValueError):
            continue
        for statement in statements if isinstance(statements, list) else [statements]:
            if statement.get("Effect") != "Allow":
                continue
            actions = statement.get("Action", [])
            resources = statement.get("Resource", [])
            actions = [actions] if isinstance(actions, str) else actions
            resources = [resources] if isinstance(resources, str) else resources
            if any(fnmatch.fnmatchcase("s3:GetObject", a) for a in actions) and any(
                fnmatch.fnmatchcase(target, r) for r in resources
            ):
                return True
    return False


_IMAGE_ID = re.compile(r"^(ami-[0-9a-fA-F]{8,17}|default)$")
_RELEASE = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")


def _validate_depth(spec: dict[str, Any], where: str, *, continuous: bool, eks: bool) -> None:
    """Flexible groups, MinInstanceCount, AutoPatchConfig and the image, as the API reference constrains them
    (botocore sagemaker 2017-07-24, ClusterInstanceGroupSpecification): InstanceType and InstanceRequirements
    are mutually exclusive, 1-20 types; flexible groups and MinInstanceCount need continuous provisioning and
    0 <= MinInstanceCount <= InstanceCount ("Continuous provisioning",
    https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-scaling-eks.html); DrainFirst needs
    MaximumBatchSize and EKS, DrainPolicy is valid only with DrainFirst (ClusterAutoPatchConfig)."""
    name = spec["InstanceGroupName"]
    flexible = spec.get("InstanceRequirements")
    if flexible is not None:
        if spec.get("InstanceType"):
            raise invalid(
                f"InstanceType and InstanceRequirements are mutually exclusive; instance group {name} gives both."
            )
        types = flexible.get("InstanceTypes") or []
        if not 1 <= len(types) <= 20:
            raise invalid(
                f"1 validation error detected: Value '{types}' at '{where}.instanceRequirements.instanceTypes' "
                "failed to satisfy constraint: Member must have length between 1 and 20"
            )
        if not continuous:
            raise invalid(
                f"InstanceRequirements (instance group {name}) is only supported when the NodeProvisioningMode "
                "is set to Continuous."
            )
    low = spec.get("MinInstanceCount")
    if low is not None:
        if not continuous:
            raise invalid(
                f"MinInstanceCount (instance group {name}) is only supported when the NodeProvisioningMode is set "
                "to Continuous."
            )
        if int(low) > int(spec.get("InstanceCount") or 0):
            raise invalid(
                f"MinInstanceCount {low} of instance group {name} cannot be greater than its InstanceCount "
                f"{spec.get('InstanceCount')}."
            )
    patch = spec.get("AutoPatchConfig")
    if patch is not None:
        strategy = patch.get("PatchingStrategy")
        if strategy not in ("WhenIdle", "WhenAllIdle", "DrainFirst"):
            raise invalid(
                f"1 validation error detected: Value '{strategy}' at '{where}.autoPatchConfig.patchingStrategy' "
                "failed to satisfy constraint: Member must satisfy enum value set: [WhenIdle, WhenAllIdle, DrainFirst]"
            )
        size = ((patch.get("DeploymentConfig") or {}).get("RollingUpdatePolicy") or {}).get("MaximumBatchSize")
        if strategy == "DrainFirst" and not size:
            raise invalid(
                f"PatchingStrategy DrainFirst of instance group {name} requires MaximumBatchSize in DeploymentConfig."
            )
        if strategy == "DrainFirst" and not eks:
            raise invalid("PatchingStrategy DrainFirst is available only for clusters orchestrated by Amazon EKS.")
        if patch.get("DrainPolicy") is not None and strategy != "DrainFirst":
            raise invalid(f"DrainPolicy of instance group {name} is valid only when PatchingStrategy is DrainFirst.")
    for member, pattern in (("ImageId", _IMAGE_ID), ("ImageReleaseVersion", _RELEASE)):
        if spec.get(member) is not None and not pattern.match(str(spec[member])):
            raise invalid(
                f"1 validation error detected: Value '{spec[member]}' at '{where}.{member[0].lower()}{member[1:]}' "
                "failed to satisfy constraint: Member must satisfy regular expression pattern: "
                f"{pattern.pattern.strip('^$')}"
            )


def _validate_group(
    backend: SageMakerModelBackend, spec: dict[str, Any], index: int, *, slurm: bool, continuous: bool = False
) -> None:
    where = f"instanceGroups.{index}.member"
    require_name(spec.get("InstanceGroupName"), f"{where}.instanceGroupName")
    name = spec["InstanceGroupName"]
    _validate_kubernetes(spec.get("KubernetesConfig"), where)
    instance_type = spec.get("InstanceType")
    if instance_type is None and not spec.get("InstanceRequirements"):
        raise invalid(f"Either InstanceType or InstanceRequirements must be specified for instance group {name}.")
    _validate_depth(spec, where, continuous=continuous, eks=not slurm)
    requested = [instance_type] if instance_type else spec["InstanceRequirements"].get("InstanceTypes", [])
    for candidate in requested:
        if candidate not in instance_types():
            raise invalid(
                f"1 validation error detected: Value '{candidate}' at '{where}.instanceType' failed to satisfy "
                f"constraint: Member must satisfy enum value set: [{', '.join(instance_types())}]"
            )
    count = spec.get("InstanceCount")
    if not isinstance(count, int) or not 0 <= count <= 6758:
        raise invalid(
            f"1 validation error detected: Value '{count}' at '{where}.instanceCount' failed to satisfy "
            "constraint: Member must have value less than or equal to 6758"
        )
    threads = spec.get("ThreadsPerCore")
    if threads is not None and threads not in (1, 2):
        raise invalid(
            f"1 validation error detected: Value '{threads}' at '{where}.threadsPerCore' failed to satisfy "
            "constraint: Member must have value less than or equal to 2"
        )
    role = spec.get("ExecutionRole")
    if not _ROLE_ARN.match(role or ""):
        raise invalid(
            f"1 validation error detected: Value '{role}' at '{where}.executionRole' failed to satisfy constraint: "
            "Member must satisfy regular expression pattern: "
            "arn:aws[a-z\\-]*:iam::\\d{12}:role/?[a-zA-Z_0-9+=,.@\\-_/]+"
        )
    checks = spec.get("OnStartDeepHealthChecks") or []
    if len(set(checks)) != len(checks):
        raise invalid(f"OnStartDeepHealthChecks of instance group {name} contains duplicates.")
    # Deep health checks exercise accelerators (DCGM, NVLink, Neuron) and EFA: "Instance type compatibility:
    # GPU / Trainium" (https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-resiliency-deep-health-checks.html).
    unsupported = [t for t in requested if not (shape_of(t).gpus or shape_of(t).neuron_devices)]
    if checks and unsupported:
        raise invalid(
            f"Deep health checks {', '.join(checks)} are not supported for instance type {unsupported[0]} of "
            f"instance group {name}. Deep health checks run only on GPU and Trainium instance types; remove "
            "OnStartDeepHealthChecks from this group."
        )
    lifecycle = spec.get("LifeCycleConfig")
    if lifecycle is None:
        if slurm:
            raise invalid(f"LifeCycleConfig is required for instance group {name} of a Slurm-orchestrated cluster.")
        return
    uri = lifecycle.get("SourceS3Uri")
    if not uri:
        raise invalid(f"LifeCycleConfig.SourceS3Uri is required for instance group {name}.")
    if slurm and not lifecycle.get("OnCreate"):
        raise invalid(f"LifeCycleConfig.OnCreate is required for instance group {name}.")
    match = _S3_URI.match(uri)
    if not match:
        raise invalid(
            f"Validation Error: SourceS3Uri {uri} is not a valid S3 URI. Use s3://<bucket>/<prefix>, "
            "for example s3://sagemaker-lifecycle-scripts/hyperpod/."
        )
    bucket = match["bucket"]
    if not bucket.startswith("sagemaker-") and not _role_allows_bucket(
        backend.account_id, backend.partition, str(role), bucket
    ):
        raise invalid(
            f"Validation Error: SourceS3Uri {uri} does not start with 's3://sagemaker-'. The managed policy "
            "AmazonSageMakerClusterInstanceRolePolicy only allows buckets whose names start with 'sagemaker-'; "
            f"use such a bucket or allow s3:GetObject on arn:aws:s3:::{bucket}/* in execution role {role}."
        )


def validate_groups(
    backend: SageMakerModelBackend, specs: list[dict[str, Any]], *, slurm: bool, continuous: bool = False
) -> None:
    seen: set[str] = set()
    for index, spec in enumerate(specs, start=1):
        _validate_group(backend, spec, index, slurm=slurm, continuous=continuous)
        if spec["InstanceGroupName"] in seen:
            raise invalid(
                f"Instance group names must be unique within a cluster; {spec['InstanceGroupName']} appears twice."
            )
        seen.add(spec["InstanceGroupName"])


def validate_orchestrator(
    backend: SageMakerModelBackend, orchestrator: dict[str, Any] | None, vpc_config: dict[str, Any] | None = None
) -> None:
    eks = (orchestrator or {}).get("Eks")
    if not eks:
        return
    arn = eks.get("ClusterArn")
    match = EKS_ARN.match(arn or "")
    if not match:
        raise invalid(
            f"1 validation error detected: Value '{arn}' at 'orchestrator.eks.clusterArn' failed to satisfy "
            "constraint: Member must satisfy regular expression pattern: "
            "arn:aws[a-z\\-]*:eks:[a-z0-9\\-]*:[0-9]{12}:cluster\\/[0-9A-Za-z][A-Za-z0-9\\-_]{0,99}"
        )
    try:
        from moto.eks.models import eks_backends

        eks_cluster = eks_backends[match["account"]][match["region"]].clusters.get(match["name"])
    except Exception:  # the EKS emulation is unavailable: accept the ARN as given
        return
    if eks_cluster is None:
        raise invalid(
            f"The EKS cluster {arn} was not found. Create it first, or check the account and Region in the ARN."
        )
    version = getattr(eks_cluster, "version", None)
    if version and version not in HYPERPOD_KUBERNETES_VERSIONS:
        raise invalid(
            f"The EKS cluster {match['name']} runs Kubernetes {version}. SageMaker HyperPod supports Kubernetes "
            f"versions {', '.join(HYPERPOD_KUBERNETES_VERSIONS)}."
        )
    mode = getattr(eks_cluster, "authentication_mode", None)
    if mode not in (None, "API", "API_AND_CONFIG_MAP"):
        raise invalid(
            f"The EKS cluster {match['name']} uses authentication mode {mode}. SageMaker HyperPod requires "
            "API or API_AND_CONFIG_MAP; change it with eks update-cluster-config --access-config."
        )
    status = getattr(eks_cluster, "status", "ACTIVE")
    if status != "ACTIVE":
        # HyperPod attaches to a running control plane ("you need a running Amazon EKS cluster",
        # https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites.html).
        raise invalid(
            f"The EKS cluster {match['name']} is in {status} status. Wait until it is ACTIVE, then create the "
            "SageMaker HyperPod cluster."
        )
    _validate_vpc(match["account"], match["region"], eks_cluster, vpc_config)


def _validate_vpc(account: str, region: str, eks_cluster: Any, vpc_config: dict[str, Any] | None) -> None:
    """HyperPod's subnets and security groups must be in the EKS cluster's VPC: its nodes' interfaces sit
    in that VPC to reach the control plane (HyperPod EKS prerequisites, networking). Resources the
    emulated EC2 does not hold are not judged, as CreateCluster in EKS tolerates them here."""
    eks_vpc = (getattr(eks_cluster, "resources_vpc_config", None) or {}).get("vpcId")
    if not vpc_config or not eks_vpc:
        return
    try:
        from moto.ec2.models import ec2_backends

        ec2 = ec2_backends[account][region]
    except Exception:
        return
    for subnet_id in vpc_config.get("Subnets") or []:
        try:
            subnet = ec2.get_subnet(subnet_id)
        except Exception:
            continue
        if subnet.vpc_id != eks_vpc:
            raise invalid(
                f"Subnet {subnet_id} is in {subnet.vpc_id}, but the EKS cluster {eks_cluster.name} is in {eks_vpc}. "
                "The subnets of a SageMaker HyperPod cluster must be in the VPC of its EKS cluster."
            )
    for group_id in vpc_config.get("SecurityGroupIds") or []:
        group = ec2.get_security_group_from_id(group_id)
        if group is not None and group.vpc_id != eks_vpc:
            raise invalid(
                f"Security group {group_id} is in {group.vpc_id}, but the EKS cluster {eks_cluster.name} is in "
                f"{eks_vpc}. The security groups of a SageMaker HyperPod cluster must be in the VPC of its EKS cluster."
            )


def _capacity_of(spec: dict[str, Any]) -> str:
    if spec.get("TrainingPlanArn"):
        return f"TrainingPlan {spec['TrainingPlanArn']}"
    return "Spot" if "Spot" in (spec.get("CapacityRequirements") or {}) else "OnDemand"


# What an instance group keeps for its life: its instance type, where its capacity comes from (Spot,
# On-Demand or a training plan's reservation), its network interfaces (EFA or EFA-only) and its subnets.
# Each shapes the instances HyperPod has already launched, so UpdateCluster refuses to change them in
# place and the way is a new group ("To add a new instance group, specify a new name",
# https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-operate-cli-command-update-cluster.html).
_FIXED_FIELDS: tuple[tuple[str, str, Callable[[dict[str, Any]], Any]], ...] = (
    ("InstanceType", "instance type", lambda s: s.get("InstanceType")),
    ("CapacityRequirements", "capacity type", _capacity_of),
    (
        "NetworkInterface",
        "network interface type",
        lambda s: (s.get("NetworkInterface") or {}).get("InterfaceType") or "efa",
    ),
    ("OverrideVpcConfig", "subnets", lambda s: sorted((s.get("OverrideVpcConfig") or {}).get("Subnets") or [])),
)


def check_fixed_fields(existing: InstanceGroup, spec: dict[str, Any]) -> None:
    if existing.spec.get("InstanceType") and spec.get("InstanceRequirements"):
        raise invalid(
            f"Instance group {existing.name} has InstanceType {existing.spec['InstanceType']}; InstanceRequirements "
            "can only be set when the instance group is created. Add a new instance group instead."
        )
    for member, words, read in _FIXED_FIELDS:
        if member == "InstanceType" and not spec.get("InstanceType"):
            continue
        before, after = read(existing.spec), read(spec)
        if before != after:
            raise invalid(
                f"The {words} of instance group {existing.name} cannot be changed from {before} to {after}; "
                f"{member} can only be set when the instance group is created. Add a new instance group instead."
            )
