"""The sandbox's AWS emulation layer: moto, made to behave like the AWS Launchpod runs on.

``install(time_scale)`` applies everything once per process and may be called again to change the
scale: Lambda handlers run in-process from their ``Handler`` strings, Step Functions Wait/Retry delays
and EKS lifecycles run on simulated time (``time_scale`` real seconds per simulated second), the Step
Functions interpreter gets its AWS-compatibility fixes, EKS gains add-ons, access entries, pod identity
and realistic CREATING/DELETING lifecycles, EventBridge rules deliver to Lambda targets, and every
moto request passes through the ``FAULTS`` gate.

Call it before ``mock_aws()`` serves its first request and before ``ThreadedMotoServer`` starts: moto
builds each service's server-side URL table on first use. Start moto with
``mock_aws(config={"stepfunctions": {"execute_state_machine": True}})`` so state machines execute.

What the emulation holds beyond moto's backends is in one place, ``sandbox.aws.state.STATE``, and
``reset()`` puts it all back to its defaults.
"""

from __future__ import annotations

import threading

from sandbox.aws import clock
from sandbox.aws.clock import get_time_scale, real_seconds, sim_seconds_elapsed
from sandbox.aws.eks import (
    set_addon_transition_seconds,
    set_cluster_creation_seconds,
    set_cluster_deletion_seconds,
    set_kube_endpoint_provider,
    set_node_reader,
)
from sandbox.aws.faults import FAULTS, Faults

__all__ = [
    "FAULTS",
    "Faults",
    "get_time_scale",
    "install",
    "real_seconds",
    "reset",
    "set_addon_transition_seconds",
    "set_cluster_creation_seconds",
    "set_cluster_deletion_seconds",
    "set_kube_endpoint_provider",
    "set_node_reader",
    "sim_seconds_elapsed",
]

_lock = threading.Lock()


def reset() -> None:
    """Every service's state back to its defaults (``sandbox.aws.state``; the simulated clock keeps
    running), and no armed fault (``FAULTS``, HyperPod's). moto's own reset drops the resources; the
    moto patches stay installed."""
    from sandbox.aws import state
    from sandbox.aws.sagemaker import HYPERPOD_FAULTS
    from sandbox.lambda_env.faults import FUNCTION_FAULTS

    state.reset()
    FAULTS.clear()
    HYPERPOD_FAULTS.clear()
    FUNCTION_FAULTS.clear()


def install(time_scale: float) -> None:
    """Apply every shim and extension (idempotent); a later call only changes the time scale."""
    from sandbox.aws import (
        apigateway,
        awslambda,
        core,
        dynamodb,
        ec2,
        eks,
        eventbridge,
        faults,
        grafana,
        iam,
        logs,
        mlflow,
        sns,
        stepfunctions,
    )
    from sandbox.aws.awslambda import streams
    from sandbox.aws.iam import listing

    with _lock:
        clock.set_time_scale(time_scale)
        core.install_backend_fast_path()
        core.install_untracked_models()  # model instances go with their backend, not the process
        dynamodb.install()
        awslambda.install_in_process_lambda()
        streams.install_async_stream_delivery()
        apigateway.install_server_management_api_routing()
        stepfunctions.install_sfn_time_scaling()
        stepfunctions.install_sfn_fixes()
        eventbridge.install()
        sns.install()  # records deliveries, confirmations, Lambda subscribers, loopback-only HTTP
        eks.install()  # also re-registers the lifecycle durations at the new scale
        faults.install_fault_hook()
        iam.install()
        ec2.install()
        listing.install()  # IAM's ListRoles pages stay put while roles are deleted
        logs.install()
        mlflow.install()  # SageMaker's managed MLflow tracking servers (moto has none)
        grafana.install()  # Amazon Managed Grafana workspaces (moto has no grafana service)
