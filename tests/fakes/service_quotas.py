"""Service Quotas in memory: the Quotas port (adapters.aws.service_quotas)."""

from __future__ import annotations

import hashlib

from launchpod.domain.errors import LaunchpodError
from launchpod.domain.quotas import Quota


class ServiceQuotas:
    """Service Quotas' applied SageMaker quotas, values by name (each with an opaque code, as AWS gives);
    ``asked`` is the names read; ``error`` is raised by every read."""

    def __init__(self, quotas: dict[str, float], error: LaunchpodError | None = None) -> None:
        self.quotas, self.error, self.asked = quotas, error, list[str]()

    def _quota(self, name: str) -> Quota:
        code = "L-" + hashlib.sha256(name.encode()).hexdigest()[:8].upper()
        return Quota(name=name, code=code, value=float(self.quotas[name]))

    def sagemaker_quota(self, name: str) -> Quota | None:
        return self.sagemaker_quotas({name}).get(name)

    def sagemaker_quotas(self, names: set[str]) -> dict[str, Quota]:
        self.asked.extend(sorted(names))
        if self.error is not None:
            raise self.error
        return {n: self._quota(n) for n in self.quotas if n in names}
