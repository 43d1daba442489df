"""PrometheusWorkspaces' contract: the in-memory fake (tests/fakes/amp_workspaces.py) and adapters.aws.amp's
AmpWorkspaces on the sandbox's moto answer alike: a new workspace carries its alias, tags and query endpoint,
is found again by its alias and tags, and one with the alias but not Launchpod's tags is not Launchpod's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from launchpod.adapters.aws.amp import AmpWorkspaces
from launchpod.domain.metrics.workspaces import PrometheusWorkspace
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
    assert isinstance(made, PrometheusWorkspace) and made.status in ("CREATING", "ACTIVE")
    assert made.arn.endswith(f":workspace/{made.id}")
    assert made.endpoint is not None and made.endpoint.rstrip("/").endswith(f"/workspaces/{made.id}")
    found = port.owned("launchpod-c1-metrics", TAGS)
    assert found is not None and (found.id, found.arn, found.endpoint) == (made.id, made.arn, made.endpoint)


def test_a_workspace_without_launchpods_tags_is_not_launchpods(port: PrometheusWorkspaces) -> None:
    port.create("launchpod-c1-metrics", {"team": "ml"})
    assert port.owned("launchpod-c1-metrics", TAGS) is None
