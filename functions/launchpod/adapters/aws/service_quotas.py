"""Service Quotas: SageMaker's per-instance-type quotas for HyperPod cluster usage."""

from __future__ import annotations

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call
from launchpod.domain.quotas import Quota


class ServiceQuotas:
    def __init__(self) -> None:
        self.sq = client("service-quotas")

    def sagemaker_quota(self, name: str) -> Quota | None:
        """The applied SageMaker quota named ``name`` (such as "ml.p5.48xlarge for cluster usage"), found by name:
        quota codes are opaque."""
        return self.sagemaker_quotas({name}).get(name)

    def sagemaker_quotas(self, names: set[str]) -> dict[str, Quota]:
        """The applied SageMaker quotas among ``names``, by name, from one pass over the listing."""
        found: dict[str, Quota] = {}
        with aws_call("servicequotas:ListServiceQuotas"):
            for page in self.sq.get_paginator("list_service_quotas").paginate(ServiceCode="sagemaker"):
                for quota in page.get("Quotas", []):
                    if quota.get("QuotaName") in names:
                        name = str(quota["QuotaName"])
                        found[name] = Quota(
                            name=name, code=str(quota.get("QuotaCode", "")), value=float(quota["Value"])
                        )
                if len(found) == len(names):
                    break
        return found
