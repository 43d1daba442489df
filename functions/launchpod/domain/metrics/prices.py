"""What a HyperPod instance costs per hour on demand, where this table has it.

A static table transcribed from the SageMaker HyperPod tab of "Amazon SageMaker AI pricing"
(https://aws.amazon.com/sagemaker-ai/pricing/), US East (N. Virginia), USD per instance-hour. The figures were
not re-checked against the page when they were written down (no network here): treat them as estimates, and
correct them from the page. AWS's Price List API (pricing:GetProducts, service code AmazonSageMaker) is the
source a later version should read instead. A type the table lacks has no price (None), never a guess.
"""

from __future__ import annotations

SOURCE = "https://aws.amazon.com/sagemaker-ai/pricing/ (HyperPod, us-east-1, on-demand; static table, unverified)"

USD_PER_HOUR: dict[str, float] = {
    "ml.g5.xlarge": 1.41,
    "ml.g5.2xlarge": 1.52,
    "ml.g5.4xlarge": 2.03,
    "ml.g5.8xlarge": 3.06,
    "ml.g5.12xlarge": 7.09,
    "ml.g5.24xlarge": 10.18,
    "ml.g5.48xlarge": 20.36,
    "ml.p4d.24xlarge": 37.69,
    "ml.p5.48xlarge": 113.07,
}


def hourly(instance_type: str | None) -> float | None:
    return USD_PER_HOUR.get(instance_type or "")
