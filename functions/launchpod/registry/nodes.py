"""Node actions (reboot, replace, delete, deep health checks), the remediation ladder's follow-up, and moving
nodes between instance groups (move-nodes)."""

from __future__ import annotations

from launchpod.registry.specs import FINISH, PHASES, FunctionSpec, StateMachineSpec, phase_function

FUNCTIONS: tuple[FunctionSpec, ...] = (
    phase_function(
        "na-start-action",
        "StartAction",
        "node_action.start_action",
        "node actions: BatchReboot/Replace/DeleteClusterNodes in batches AWS accepts, or StartClusterHealthCheck",
        actions=(
            "sagemaker:ListClusterNodes",
            "sagemaker:BatchRebootClusterNodes",
            "sagemaker:BatchReplaceClusterNodes",
            "sagemaker:BatchDeleteClusterNodes",
            "sagemaker:StartClusterHealthCheck",
            "eks:DescribeCluster",  # HyperPod reads the EKS cluster whose nodes it acts on, as the caller
            "execute-api:ManageConnections",
            "sns:Publish",  # the ladder's incidents: opened, stopped (usecases/remediation.py)
        ),
        tables=("operations", "clusters", "incidents", "connections", "notifications"),
    ),
    phase_function(
        "na-wait-nodes",
        "WaitNodes",
        "node_action.wait_nodes",
        "node actions: follows every node to its terminal state",
        actions=("sagemaker:ListClusterNodes", "execute-api:ManageConnections", "sns:Publish"),
        tables=("operations", "clusters", "incidents", "connections", "notifications"),
    ),
    phase_function(
        "mv-drain",
        "Drain",
        "node_moves.drain",
        "move nodes: cordons the nodes and evicts their pods (not DaemonSet or mirror pods) until none is left",
        actions=("eks:DescribeCluster", "execute-api:ManageConnections"),
        tables=("operations", "clusters", "connections"),
        kubernetes=True,
    ),
    phase_function(
        "mv-move",
        "Move",
        "node_moves.move",
        "move nodes: MoveClusterNodes with the drained nodes; nodes AWS refuses are uncordoned",
        actions=(
            "sagemaker:DescribeCluster",
            "sagemaker:MoveClusterNodes",
            "eks:DescribeCluster",  # HyperPod reads the EKS clusters whose nodes move, as the caller
            "execute-api:ManageConnections",
        ),
        tables=("operations", "clusters", "connections"),
        kubernetes=True,  # refused nodes are uncordoned
    ),
    phase_function(
        "mv-wait-moved",
        "WaitMoved",
        "node_moves.wait_moved",
        "move nodes: follows every node until it runs in the target group",
        actions=("sagemaker:ListClusterNodes", "execute-api:ManageConnections"),
        tables=("operations", "clusters", "connections"),
    ),
    FunctionSpec(
        "na-follow-up",
        f"{PHASES}.follow_up.handler",
        "node actions: after the cluster is released, the remediation ladder runs or suggests its next step",
        actions=("execute-api:ManageConnections", "sns:Publish"),
        tables=("operations", "clusters", "incidents", "connections", "notifications"),
        starts_workflows=True,
        placeholder="FollowUpFn",
    ),
)

# The four node actions are one state machine definition, started under each action's name.
NODE_ACTIONS = (
    ("reboot-nodes", "BatchRebootClusterNodes, then every node Running again"),
    ("replace-nodes", "BatchReplaceClusterNodes, then every replacement Running"),
    ("delete-nodes", "BatchDeleteClusterNodes, then every node gone"),
    ("health-check", "StartClusterHealthCheck, then every node passed or failed"),
)
STATE_MACHINES: tuple[StateMachineSpec, ...] = tuple(
    StateMachineSpec(
        name,
        description,
        functions=("na-start-action", "na-wait-nodes", FINISH, "na-follow-up"),
        definition="node-action.asl.json",
    )
    for name, description in NODE_ACTIONS
)
STATE_MACHINES += (
    StateMachineSpec(
        "move-nodes",
        "drain the nodes, MoveClusterNodes, then every node Running in the target group",
        functions=("mv-drain", "mv-move", "mv-wait-moved"),
    ),
)
