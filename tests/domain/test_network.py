"""The subnet planner: never overlaps, stays inside the VPC, gives the sizes asked."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from launchpod.domain.clusters.control_plane import network_plan
from launchpod.domain.errors import PermanentError
from launchpod.domain.network import plan_subnets


@st.composite
def vpc_and_taken(draw):
    vpc = ipaddress.ip_network(f"10.{draw(st.integers(0, 255))}.0.0/16")
    blocks = list(vpc.subnets(new_prefix=22))
    taken = draw(st.lists(st.sampled_from(blocks), max_size=12, unique=True))
    prefixes = draw(st.lists(st.sampled_from([20, 22, 24]), min_size=1, max_size=6))
    return str(vpc), [str(t) for t in taken], prefixes


@settings(max_examples=200, deadline=None)
@given(vpc_and_taken())
def test_planned_subnets_are_inside_the_vpc_the_right_size_and_overlap_nothing(case):
    vpc, taken, prefixes = case
    try:
        planned = plan_subnets(vpc, taken, prefixes)
    except PermanentError as exc:
        assert "No free" in exc.message
        return
    nets = [ipaddress.ip_network(p) for p in planned]
    assert [n.prefixlen for n in nets] == prefixes
    assert all(n.subnet_of(ipaddress.ip_network(vpc)) for n in nets)
    others = [ipaddress.ip_network(t) for t in taken]
    for i, n in enumerate(nets):
        assert not any(n.overlaps(o) for o in others)
        assert not any(n.overlaps(m) for m in nets[i + 1 :])


def test_a_full_vpc_says_what_to_do():
    with pytest.raises(PermanentError, match="add a secondary CIDR or use a larger VPC"):
        plan_subnets("10.0.0.0/19", ["10.0.0.0/20"], [20, 20])


def test_control_plane_plan_gives_a_private_20_and_public_24_per_zone():
    plan = network_plan("10.192.0.0/16", ["us-east-1a", "us-east-1b"])
    assert [(p.zone, p.cidr, p.public) for p in plan] == [
        ("us-east-1a", "10.192.0.0/20", False),
        ("us-east-1b", "10.192.16.0/20", False),
        ("us-east-1a", "10.192.32.0/24", True),
        ("us-east-1b", "10.192.33.0/24", True),
    ]
