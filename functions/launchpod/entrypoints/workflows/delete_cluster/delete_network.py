"""DeleteNetwork: every network resource tagged as this cluster's; a VPC the user gave is kept,
only the compute subnet and security group Launchpod added to it go. NAT gateways go first and take
minutes to be deleted; their addresses, subnets and the internet gateway wait for them."""

from __future__ import annotations

from launchpod.contracts.phase_outputs import DeleteNetworkOutput
from launchpod.contracts.workflows import WorkflowInput
from launchpod.domain.errors import PermanentError
from launchpod.entrypoints.workflows.delete_cluster._common import our_tags
from launchpod.entrypoints.workflows.phase import PhaseResult, phase
from launchpod.runtime import wiring

PHASE = "DeleteNetwork"
# A NAT gateway usually reaches "deleted" within minutes; look again every 15 seconds, for an hour at most.
NAT_POLL_SECONDS = 15
MAX_NAT_POLLS = 240


def run(doc: WorkflowInput) -> PhaseResult:
    ec2 = wiring.ec2()
    tags = our_tags(doc.target)
    started, pending = ec2.delete_tagged_nat_gateways(tags)
    earlier = doc.output(DeleteNetworkOutput)  # this phase's earlier polls
    gone = [*(earlier.deleted if earlier else []), *started]
    if pending:
        if doc.poll.get(PHASE, 0) >= MAX_NAT_POLLS:
            raise PermanentError(
                f"NAT gateway {', '.join(pending)} is still deleting after an hour; check it in the VPC console, "
                "then retry the operation."
            )
        doc.record(DeleteNetworkOutput(deleted=gone))
        return PhaseResult(
            ready=False,
            wait=NAT_POLL_SECONDS,
            message=f"Waiting for NAT gateway {', '.join(pending)} to be deleted (it takes minutes); its address, "
            "subnet and the internet gateway go next.",
        )
    gone += ec2.delete_tagged_network(tags)
    return PhaseResult(
        outputs=DeleteNetworkOutput(deleted=gone),
        message=f"Deleted {len(gone)}: " + (", ".join(gone) or "nothing"),
        skipped=not gone,
    )


handler = phase(PHASE)(run)
