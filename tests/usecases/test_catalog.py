"""What the account offers, as a client reads it before asking for a cluster: zones and HyperPod's types."""

from __future__ import annotations

from launchpod.usecases import catalog

from tests.fakes.ec2 import Ec2
from tests.fakes.instance_facts import Instances

PORTS = catalog.CatalogPorts(
    region="us-east-1",
    ec2=Ec2(["us-east-1a", "us-east-1b"], {"p5.48xlarge": ["us-east-1a"], "c5.2xlarge": ["us-east-1a", "us-east-1b"]}),
    instances=Instances(),
)


def test_zones_are_the_regions_as_ec2_lists_them() -> None:
    view = catalog.availability_zones(ports=PORTS)
    assert view.region == "us-east-1"
    assert [(z.name, z.zoneId) for z in view.items] == [("us-east-1a", "use1-az1"), ("us-east-1b", "use1-az2")]


def test_instance_types_carry_sagemaker_names_and_the_zones_that_offer_them() -> None:
    view = catalog.instance_types(None, ports=PORTS)
    assert [(t.instanceType, t.availabilityZones) for t in view.items] == [
        ("ml.c5.2xlarge", ["us-east-1a", "us-east-1b"]),
        ("ml.p5.48xlarge", ["us-east-1a"]),
    ]


def test_a_zone_narrows_the_types_to_those_it_offers() -> None:
    view = catalog.instance_types("us-east-1b", ports=PORTS)
    assert [(t.instanceType, t.availabilityZones) for t in view.items] == [("ml.c5.2xlarge", ["us-east-1b"])]
    asked, zone = PORTS.ec2.offerings_asked[-1]  # type: ignore[attr-defined]
    assert zone == "us-east-1b" and "ml.p5.48xlarge" not in asked and "p5.48xlarge" in asked


def test_a_type_whose_gpus_hyperpod_partitions_lists_its_profiles_and_the_mixes_it_ships() -> None:
    p5, cpu = sorted(catalog.instance_types(None, ports=PORTS).items, key=lambda t: t.instanceType, reverse=True)
    assert p5.migProfiles["mig-1g.10gb"] == 7 and p5.migProfiles["mig-7g.80gb"] == 1 and len(p5.migProfiles) == 6
    assert {"mig-1g.10gb": 3, "mig-4g.40gb": 1} in p5.migMixes and len(p5.migMixes) == 11
    assert (cpu.migProfiles, cpu.migMixes) == ({}, [])
