"""A Service Quotas quota as Launchpod reads it: its name, its opaque code and the value applied to the account.

The Quotas port (adapters.aws.service_quotas) builds it from ListServiceQuotas' answer, so the AWS shape stays
in the adapter (https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ServiceQuota.html)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quota:
    name: str  # QuotaName, such as "ml.p5.48xlarge for cluster usage"
    code: str  # QuotaCode, such as "L-A1B2C3D4": opaque, named in messages so a user can find it
    value: float  # Value, the quota applied to the account (an increase granted included)
