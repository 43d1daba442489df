"""A team's quota in resources: SageMaker's ratios fill what a resource config leaves out, each resource is held
to what the cluster's instances of the type carry, GPU partitions must be a profile the type's GPU offers, and
the team's ClusterQueue usage reads back as used and borrowed per instance type."""

from __future__ import annotations

import pytest
from launchpod.contracts.task_governance import InstanceQuota, TeamRequest
from launchpod.domain import task_governance as tg
from launchpod.domain import team_resources
from launchpod.domain.errors import InvalidInput
from pydantic import ValidationError

from tests.fakes.task_governance import queue_usage
from tests.instance_facts import facts

P5 = "ml.p5.48xlarge"  # 8 H100, 192 vCPUs, 2048 GiB
CAPACITY = tg.Capacity({P5: 2, "ml.m5.xlarge": 4})
FACTS = {t: facts(t) for t in CAPACITY.counts}


def _guaranteed(**given) -> tuple[float, float, float, float]:
    amounts = team_resources.guaranteed(InstanceQuota(instanceType=P5, **given), FACTS[P5])
    return amounts.instanceCount, amounts.accelerators, amounts.vCpu, amounts.memoryInGiB


def test_accelerators_alone_bring_their_share_of_vcpus_and_memory():
    assert _guaranteed(accelerators=4) == (0.5, 4, 96, 1024)


def test_vcpus_alone_bring_memory_by_ratio_and_no_accelerators_and_memory_alone_vcpus():
    assert _guaranteed(vCpu=48) == (0.25, 0, 48, 512)
    assert _guaranteed(memoryInGiB=1024) == (0.5, 0, 96, 1024)


def test_partitions_bring_their_slices_share_and_count_whole_instances():
    # 14 x 1g.10gb = 14 of the 56 slices of one p5 (8 GPUs x 7): a quarter of its vCPUs and memory
    assert _guaranteed(acceleratorPartition={"type": "mig-1g.10gb", "count": 14}) == (0.25, 0, 48, 512)
    assert _guaranteed(instanceCount=2) == (2, 16, 384, 4096)


def test_a_resource_config_without_any_amount_is_refused():
    with pytest.raises(ValidationError, match="give instanceCount, accelerators"):
        InstanceQuota(instanceType=P5)


def test_more_accelerators_than_the_instances_carry_is_refused_saying_how_many():
    request = TeamRequest(resources=[{"instanceType": P5, "accelerators": 17}])
    with pytest.raises(InvalidInput) as refused:
        tg.check_resources("c1", request, CAPACITY, FACTS)
    assert "c1's 2 ml.p5.48xlarge instances have 16 GPUs; a quota of 17 asks for more" in refused.value.message
    assert refused.value.details[0]["field"] == "body.resources[0].accelerators"


def test_accelerators_on_a_type_without_any_name_the_types_that_have_them():
    request = TeamRequest(resources=[{"instanceType": "ml.m5.xlarge", "accelerators": 1}])
    with pytest.raises(InvalidInput, match=r"ml\.m5\.xlarge has no accelerators.*: ml\.p5\.48xlarge\."):
        tg.check_resources("c1", request, CAPACITY, FACTS)


def test_a_partition_profile_of_another_gpu_is_refused_listing_the_types_profiles():
    request = TeamRequest(resources=[{"instanceType": P5, "acceleratorPartition": {"type": "mig-1g.5gb", "count": 1}}])
    with pytest.raises(InvalidInput) as refused:
        tg.check_resources("c1", request, CAPACITY, FACTS)
    assert (
        "does not offer GPU partition mig-1g.5gb; its MIG profiles: mig-1g.10gb, mig-1g.20gb" in refused.value.message
    )
    many = TeamRequest(resources=[{"instanceType": P5, "acceleratorPartition": {"type": "mig-3g.40gb", "count": 33}}])
    with pytest.raises(InvalidInput, match=r"hold at most 32 mig-3g\.40gb partitions"):
        tg.check_resources("c1", many, CAPACITY, FACTS)


def test_absolute_borrow_caps_are_held_to_the_cluster_and_need_lend_and_borrow():
    over = TeamRequest(
        resources=[{"instanceType": P5, "instanceCount": 1}], absoluteBorrowLimits=[{"instanceType": P5, "vCpu": 500}]
    )
    with pytest.raises(InvalidInput) as refused:
        tg.check_resources("c1", over, CAPACITY, FACTS)
    assert refused.value.details[0]["field"] == "body.absoluteBorrowLimits[0].vCpu"
    with pytest.raises(ValidationError, match="absoluteBorrowLimits apply only with sharing LendAndBorrow"):
        TeamRequest(
            resources=[{"instanceType": P5, "instanceCount": 1}],
            sharing="Lend",
            absoluteBorrowLimits=[{"instanceType": P5, "instanceCount": 1}],
        )


def test_the_quota_sent_to_sagemaker_has_only_the_fields_given_and_reads_back_equal():
    request = TeamRequest(
        resources=[{"instanceType": P5, "accelerators": 4}, {"instanceType": "ml.m5.xlarge", "vCpu": 2.5}],
        absoluteBorrowLimits=[{"instanceType": P5, "accelerators": 2}],
    )
    config = tg.quota_config(request)
    assert config["ComputeQuotaResources"] == [
        {"InstanceType": P5, "Accelerators": 4},
        {"InstanceType": "ml.m5.xlarge", "VCpu": 2.5},
    ]
    assert config["ResourceSharingConfig"]["AbsoluteBorrowLimits"] == [{"InstanceType": P5, "Accelerators": 2}]
    described = {"ComputeQuotaConfig": config, "ComputeQuotaTarget": tg.quota_target("t", request)}
    assert tg.team_of(described) == request


def test_usage_reads_used_and_borrowed_per_instance_type_from_the_cluster_queue():
    usage = {"cpu": ("288", "96"), "memory": ("3Ti", "1Ti"), "nvidia.com/gpu": ("12", "4")}
    queue = {"status": queue_usage("p5-flavor", usage)}
    used, borrowed = team_resources.usage(queue, {"p5-flavor": P5}, FACTS)
    assert [(u.instanceType, u.instanceCount, u.accelerators, u.vCpu, u.memoryInGiB) for u in used] == [
        (P5, 1.5, 12, 288, 3072)
    ]
    assert [(b.accelerators, b.instanceCount) for b in borrowed] == [(4, 0.5)]
    assert team_resources.usage(None, {}, FACTS) == ([], [])
