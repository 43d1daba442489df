"""StartAction: asks HyperPod to reboot, replace or delete the nodes (in batches AWS accepts), or to run
deep health checks on them; records the nodes AWS accepted and, one by one, those it refused."""

from __future__ import annotations

from datetime import UTC, datetime

from launchpod.contracts.phase_outputs import StartActionOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.clusters import hyperpod
from launchpod.domain.errors import PermanentError
from launchpod.domain.nodes import actions
from launchpod.entrypoints import remediation
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring


def run(doc: WorkflowInput) -> PhaseResult:
    sm, name = wiring.sagemaker(), hyperpod.hyperpod_name(doc.target)
    started = datetime.now(UTC).isoformat()
    if doc.kind == actions.HEALTH_CHECK:
        nodes = sm.list_nodes(name)
        targeted: list[str] = []
        for target in doc.request["targets"]:
            ids = target.get("nodeIds") or [
                n["InstanceId"] for n in nodes if n["InstanceGroupName"] == target["instanceGroup"]
            ]
            targeted += ids
        sm.start_health_check(actions.health_check_parameters(name, doc.request))
        return PhaseResult(
            outputs=StartActionOutput(accepted=targeted, started=started),
            message=f"Deep health checks ({', '.join(doc.request['checks'])}) started on {len(targeted)} nodes.",
        )
    verb = actions.VERB[doc.kind]
    accepted: list[str] = []
    refused: list[dict[str, str]] = []
    for batch in actions.batches(list(doc.request["nodeIds"]), doc.kind):
        try:
            answer = sm.node_action(verb, name, batch)
        except PermanentError as exc:
            if verb != "replace" or exc.extra.get("aws_code") != "ValidationException":
                raise
            # AWS refuses replacement on a cluster created before BatchReplaceClusterNodes until it is
            # patched (API reference, BatchReplaceClusterNodes): say how, after AWS's own words.
            raise PermanentError(
                f"{exc.message} HyperPod replaces nodes only on a cluster patched with UpdateClusterSoftware: run "
                f"POST /api/clusters/{doc.target}/software-update, wait for SUCCEEDED, then replace again.",
                aws_code="ValidationException",
            ) from exc
        accepted += list(answer.get("Successful") or [])
        refused += [actions.refusal(f) for f in answer.get("Failed") or []]
    if not accepted:
        raise PermanentError(actions.summary_line(doc.kind, [], refused))
    remediation.acting(doc.target, doc.kind, accepted, doc.operationId)
    note = f"; {len(refused)} refused by AWS" if refused else ""
    return PhaseResult(
        outputs=StartActionOutput(accepted=accepted, refused=refused, started=started),
        message=f"HyperPod accepted {verb} of {len(accepted)} nodes{note}.",
    )


handler = phase("StartAction")(run)
