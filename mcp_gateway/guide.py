"""When an agent should call each tool: the first words of every tool's description.

The catalog's summary says what a REST operation does, for people reading the API reference; an agent
choosing among dozens of tools needs when to pick one, and what it must not miss (data loss, a confirm field),
in as few words as will do. What every tool shares (dryRun, NOOP, following operations) is said once, in
the server's instructions. An operation the catalog adds without a line here keeps its catalog summary.
"""

from __future__ import annotations

WHEN: dict[str, str] = {
    "health": "Check the Launchpod API is up.",
    "list_regions": "Before creating a cluster elsewhere than Launchpod's Region: the Regions to offer.",
    "list_availability_zones": "Before creating a cluster: the zones (and zone ids) you may offer the user.",
    "list_instance_types": "Before creating a cluster or group: HyperPod instance types and the zones offering"
    " each (zone narrows it).",
    "search_training_plan_offerings": "Before asking for p4/p5/p6/trn capacity: reserved-capacity offerings with"
    " price, zone, start and end.",
    "buy_training_plan": "SPENDS MONEY, not refundable: buy an offering; dryRun first and show the user the"
    " price; confirmPrice must equal upfrontFee.",
    "list_training_plans": "Plans with state, window and which groups use how many instances.",
    "get_training_plan": "One plan: state, window, price, instances in use by cluster and group.",
    "search_training_plan_extensions": "Before a plan ends: offerings that extend it, with price.",
    "extend_training_plan": "SPENDS MONEY: extend a plan by an extension offering; dryRun first, confirmPrice"
    " must equal upfrontFee.",
    "list_clusters": "Start here: the clusters that exist, with EKS and HyperPod status.",
    "get_cluster": "One cluster's EKS and HyperPod status; confirm a creation finished.",
    "create_cluster": "Only the EKS control plane of a new cluster; prefer provision_cluster for a whole cluster.",
    "provision_cluster": "Create a whole cluster in one operation (control plane, dependencies, HyperPod, optional"
    " storage). The first choice for a new cluster.",
    "run_cluster_phase": "Re-run one provisioning phase (control-plane, dependencies, hyperpod, storage) with its"
    " recorded settings, e.g. after fixing what failed.",
    "list_nodes": "The cluster's nodes: group, type, zone, Ready, health labels and taints, GPUs, pods.",
    "get_node": "One node in depth: conditions, health labels, taints, events, pods.",
    "list_cluster_events": "HyperPod's events, newest first, with failure details; filter by group, node, level"
    " or time.",
    "reboot_nodes": "A node is unhealthy and diagnose_node suggests a reboot; interrupts its workloads.",
    "replace_nodes": "Reboot did not help: new hardware. DATA LOSS of the nodes' local volumes; needs"
    " acknowledgeDataLoss: true.",
    "delete_nodes": "Remove nodes and shrink their groups. DATA LOSS of local volumes; needs acknowledgeDataLoss:"
    " true.",
    "move_nodes": "Shift capacity between groups (training by night, inference by day) without releasing it: the"
    " same instances and training plan; drains them first; dryRun shows which nodes and pods. DATA LOSS of EBS"
    " volumes; needs acknowledgeDataLoss: true.",
    "start_health_check": "Suspected bad hardware: deep health checks on groups or nodes (nodes stop taking work;"
    " failed ones are rebooted or replaced).",
    "list_incidents": "Node incidents, the remediation ladder's state and its suggested next step.",
    "set_ladder_policy": "Choose how node incidents are remediated: off, suggest (default) or auto.",
    "list_notification_subscribers": "Who is told (e-mail, chat webhook) about a cluster, and for which kinds.",
    "add_notification_subscriber": "Tell an e-mail address or Slack/Teams webhook about a cluster's failures.",
    "remove_notification_subscriber": "Stop telling a subscriber about a cluster.",
    "send_test_notification": "Check a cluster's subscribers receive notifications: sends a test message.",
    "diagnose_node": "First step for a sick node (read-only): cause, evidence and the next command to suggest.",
    "diagnose_cluster_creation": "A provision or HyperPod creation FAILED (read-only): cause, evidence, next step.",
    "diagnose_nccl": "A multi-node job hangs or fails in NCCL (read-only): placement, EFA, NCCL env and errors.",
    "import_cluster": "Bring an existing EKS cluster under Launchpod instead of creating one.",
    "delete_cluster": "Delete a cluster and everything Launchpod made for it; confirm: the cluster's name again.",
    "delete_hyperpod": "Delete only the HyperPod cluster (a failed one, or idle nodes); EKS stays; confirm: the name.",
    "create_hyperpod": "Add the HyperPod cluster to an ACTIVE control plane (on-demand groups); provision_cluster"
    " does this for a new cluster.",
    "update_software": "Patch the nodes' software (AMI) in rolling batches.",
    "list_instance_groups": "Before changing groups: types, counts, status, capacity type, zone, autoscaling.",
    "add_instance_group": "Add a group: a type or fallback instanceTypes, count (0 allowed), minInstanceCount,"
    " onDemand, spot or trainingPlan capacity, autoPatch, labels, taints. Checks zone offering and quota first.",
    "update_instance_group": "Scale a group or change its labels, taints, checks, minimum, patching or image; send"
    " only what changes. Type and capacity are fixed: add a group instead.",
    "delete_instance_group": "Remove a group and terminate its nodes; confirm: the group's name again.",
    "set_autoscaling": "Turn HyperPod-managed Karpenter on or off for groups (clusters created with continuous"
    " provisioning only; groups with nodes go in confirmScaleToZero).",
    "list_dependencies": "Which add-ons and charts are installed, pinned and drifted.",
    "reconcile_dependencies": "Install or update the pinned dependencies (after create_cluster, or on drift).",
    "configure_storage": "Give pods storage: the shared S3 bucket (Mountpoint) or an FSx for Lustre file system,"
    " as a PersistentVolumeClaim.",
    "list_storage": "The cluster's storage claims and whether they are Bound.",
    "delete_storage": "Remove a storage claim and volume Launchpod made; the data is kept.",
    "browse_storage": "List files under a prefix of an S3 storage (models, datasets, checkpoints).",
    "list_features": "Before jobs or endpoints: which managed features are on and what blocks them.",
    "update_features": "Turn managed features on or off (training operator, tiered checkpointing, inference"
    " operator, ...); send only the changed ones.",
    "get_governance_policy": "The cluster's task governance priority classes and fair share.",
    "set_governance_policy": "Set priority classes and fair share (replaces the policy; taskGovernance must be on).",
    "list_teams": "Task governance teams: quotas, sharing, and the namespace and queue their jobs use.",
    "put_team": "Create or change a team's compute quota (replaces it; taskGovernance must be on).",
    "delete_team": "Delete a team's quota; confirm: the team's name again.",
    "get_me": "Which user and role (viewer, operator, admin) you act as.",
    "get_preferences": "The user's active cluster, the default when they do not name one.",
    "set_preferences": "Change the user's active cluster.",
    "list_operations": "Operations, newest first (filter by cluster or status): find one in flight before"
    " starting another.",
    "get_operation": "One operation with every phase; decides completion. To follow one, use wait_for_operation.",
    "retry_operation": "Resume a FAILED or CANCELLED operation from its failed phase, once the cause is fixed.",
    "cancel_operation": "Stop a running operation; what it created is kept and retry resumes it.",
    "create_endpoint": "Deploy a model for inference on a GPU group: managed (a model folder in storage),"
    " jumpstart, or container (any serving image).",
    "list_endpoints": "The cluster's inference endpoints with status, replicas and URL.",
    "get_endpoint": "One endpoint: status, URL, pods and why a pod waits.",
    "scale_endpoint": "Change an endpoint's replicas.",
    "delete_endpoint": "Remove an inference endpoint.",
    "invoke_endpoint": "Send a chat completion to an endpoint and get its answer (20 s, 256 KiB).",
    "assign_pod": "Move a warm worker pod of a model pool to another pool endpoint.",
    "download_model": "Put a Hugging Face model or dataset into S3 storage before deploying or training on it.",
    "list_models": "Models already downloaded into the cluster's storage.",
    "submit_job": "Run a training job (PyTorch or Ray) from a recipe or an image on a group. Follow it with"
    " get_job and get_job_logs, not wait_for_operation.",
    "list_jobs": "The cluster's training jobs with status.",
    "get_job": "One job: status, restarts, pods and events; follow a job with it.",
    "delete_job": "Delete a job and its pods (outputs in S3 kept); confirm: the job's name again.",
    "get_job_logs": "A job pod's log: tail lines, since seconds.",
    "configure_mlflow": "Create or pick the cluster's managed MLflow tracking server, so jobs log to it.",
    "get_mlflow": "The MLflow server's status and a presigned URL to its UI.",
    "create_space": "Make the user a JupyterLab or Code Editor dev environment with the shared bucket at /data.",
    "list_spaces": "The cluster's dev environments (Spaces) with owner and status.",
    "get_space": "One Space: status and how to open it; follow a new Space with it until Running.",
    "update_space": "Stop or start a Space (desiredStatus).",
    "delete_space": "Delete a Space (its /data stays); confirm: the Space's name again.",
    "get_cluster_gpu_metrics": "Is the cluster's GPU capacity used? Utilisation per group, idle GPUs (numbers).",
    "get_node_metrics": "One node's GPU use, memory, power, XID and EFA as min/avg/max/last.",
    "get_job_metrics": "Is a job using its GPUs, is it learning, how fast? Its nodes' GPU use and memory; its loss and"
    " throughput (tokens/s) from MLflow.",
    "get_endpoint_metrics": "An endpoint's request rate, latency p50/p95, time to first token, tokens/s.",
    "list_idle_capacity": "Which GPU nodes sit idle, how long, and what they cost per hour.",
}
