"""PrometheusWorkspaces' contract: the in-memory fake (tests/fakes/amp_workspaces.py) and adapters.aws.amp's
AmpWorkspaces on the sandbox's moto answer alike: a new workspace carries its alias, tags and query endpoint,
is found again by its alias and tags, and one with the alias but not Launchpod's tags is not Launchpod's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from launchpod.adapters.aws.amp import AmpWorkspaces
from launchpod.usecases.ports import PrometheusWorkspaces

from tests.fakes.amp_workspaces import AmpWorkspaces as FakeWorkspaces

TAGS = {"launchpod:cluster": "c1", "launchpod:managed-by": "launchpod"}


@pytest.fixture(params=["fake", "amp"])
def port(request: pytest.FixtureRequest) -> Iterator[PrometheusWorkspaces]:
    if request.param == "fake":
        yield FakeWorkspaces()
        return
    request.getfixturevalue("aws")
    yield AmpWorkspaces()


def test_a_new_workspace_is_found_again_by_its_alias_and_tags(port: PrometheusWorkspaces) -> None:
    assert port.owned("launchpod-c1-metrics", TAGS) is None
    made = port.create("launchpod-c1-metrics", TAGS)
    assert made["alias"] == "launchpod-c1-metrics" and made["tags"] == TAGS
    assert made["arn"].endswith(f":workspace/{made['workspaceId']}")
    assert made["prometheusEndpoint"].rstrip("/").endswith(f"/workspaces/{made['workspaceId']}")
    found = port.owned("launchpod-c1-metrics", TAGS)
    assert found is not None and found["workspaceId"] == made["workspaceId"]


def test_a_workspace_without_launchpods_tags_is_not_launchpods(port: PrometheusWorkspaces) -> None:
    port.create("launchpod-c1-metrics", {"team": "ml"})
    assert port.owned("launchpod-c1-metrics", TAGS) is None
