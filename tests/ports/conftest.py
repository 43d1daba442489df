"""The real side of the contract tests: the sandbox's moto (its extensions installed, reset between tests, as
tests/sandbox/aws has it) with the registry's tables, and the sandbox's emulated Kubernetes API servers."""

from __future__ import annotations

from tests.sandbox.aws.conftest import aws, moto_session  # noqa: F401  (fixtures: the sandbox's moto)
