"""IAM is eventually consistent: a role a service is handed seconds after CreateRole may not yet be
assumable by that service (IAM User Guide, "Changes that I make are not always immediately visible":
changes take time to propagate). The sandbox refuses a role younger than 10 simulated seconds
(``DEFAULT_PROPAGATION_SECONDS``; the ``iamPropagationSeconds`` fault makes it longer) with the error
each service returns on AWS. The ``iamUnassumable`` fault refuses the next N calls that hand a service a
role whose name contains a given text, whatever the role's age: the same refusal, counted in calls
rather than time, so a test of the retry does not depend on how fast the machine runs between
CreateRole and the call, nor on other clusters' calls.

* EKS (CreateCluster, pod identity): ``InvalidParameterException`` "Role with arn: …, could not be
  assumed because it does not exist or the trusted entity is not correct" (aws/aws-cdk#16037,
  terraform-aws-modules/terraform-aws-eks#2406 show it for just-created roles).
* SageMaker: ``ValidationException`` "Could not assume role …. Please ensure that the role exists and
  allows principal 'sagemaker.amazonaws.com' to assume the role."
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sandbox.aws import clock
from sandbox.aws.iam import authz
from sandbox.aws.state import STATE

DEFAULT_PROPAGATION_SECONDS = 10.0


@dataclass
class IamPropagationState:
    """How long a new role takes to be assumable, and the AssumeRole fault armed."""

    propagation_seconds: float = DEFAULT_PROPAGATION_SECONDS
    unassumable_attempts: int = 0  # a fault: how many more AssumeRole attempts fail
    unassumable_role: str = ""  # for roles whose name contains this


def _state() -> IamPropagationState:
    return STATE.of(IamPropagationState)


_attempts_lock = threading.Lock()


def set_propagation_seconds(seconds: float | None) -> None:
    """How long a new role stays unassumable, in simulated seconds (None: the default ~10 s). IAM gives
    no bound, so a slow propagation is a fault the sandbox can inject."""
    _state().propagation_seconds = DEFAULT_PROPAGATION_SECONDS if seconds is None else float(seconds)


def propagation_seconds() -> float:
    return _state().propagation_seconds


def set_unassumable(role_contains: str, attempts: int) -> None:
    """The next ``attempts`` calls that hand a service a role whose name contains ``role_contains`` are
    refused as not yet propagated (0: none)."""
    with _attempts_lock:
        _state().unassumable_role, _state().unassumable_attempts = role_contains, attempts


def unassumable() -> dict[str, Any]:
    return {"role": _state().unassumable_role, "attempts": _state().unassumable_attempts}


def _take_attempt(role_arn: str) -> bool:
    with _attempts_lock:
        if _state().unassumable_attempts <= 0 or _state().unassumable_role not in role_arn.rsplit("/", 1)[-1]:
            return False
        _state().unassumable_attempts -= 1
        return True


def _role_age_sim_seconds(account: str, role_arn: str) -> float | None:
    from moto.iam.models import iam_backends

    try:
        role = iam_backends[account]["global"].get_role(role_arn.rsplit("/", 1)[-1])
    except Exception:
        return None
    created = role.create_date
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    real = (datetime.now(UTC) - created).total_seconds()
    return real / max(clock.get_time_scale(), 1e-9)


def refusal(call: authz.Call) -> tuple[str, str, int] | None:
    """(error code, message, HTTP status) when the call hands a service a role too new to assume."""
    for role_arn, service in authz.passed_roles(call):
        age = _role_age_sim_seconds(call.account, role_arn)
        if (age is None or age >= _state().propagation_seconds) and not _take_attempt(role_arn):
            continue
        if service == "sagemaker.amazonaws.com":
            return (
                "ValidationException",
                f"Could not assume role {role_arn}. Please ensure that the role exists and allows principal "
                f"'{service}' to assume the role.",
                400,
            )
        return (
            "InvalidParameterException",
            f"Role with arn: {role_arn}, could not be assumed because it does not exist or the trusted entity "
            "is not correct",
            400,
        )
    return None


def raise_if_refused(client: Any, call: authz.Call, operation_name: str) -> None:
    refused = refusal(call)
    if refused is None:
        return
    code, message, status = refused
    response = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}}
    raise client.exceptions.from_code(code)(response, operation_name)
