"""The real side of the contract tests: the sandbox's moto (its extensions installed, reset between tests, as
tests/sandbox/aws has it) with the registry's tables; the Kubernetes ports' tests start the sandbox's emulated
API servers themselves."""

from __future__ import annotations

from tests.sandbox.aws.conftest import aws, client, deploy, moto_session, role_arn  # noqa: F401  (the sandbox's fixtures)
