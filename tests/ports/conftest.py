"""The real side of the contract tests: the sandbox's moto (its extensions installed, reset between tests, as
tests/sandbox/aws has it) with the registry's tables; the Kubernetes ports' tests start the sandbox's emulated
API servers themselves, one a test, with tests/ports/kube_support.py; the module's fleet is here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox.kube import KubeFleet
from tests.sandbox.aws.conftest import aws, client, deploy, moto_session, role_arn  # noqa: F401  (the sandbox's fixtures)


@pytest.fixture(scope="module")
def fleet() -> Iterator[KubeFleet]:
    fleet = KubeFleet()
    yield fleet
    fleet.stop_all()
