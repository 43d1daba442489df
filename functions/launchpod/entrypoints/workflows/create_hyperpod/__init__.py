"""create-hyperpod: lifecycle scripts -> execution role -> /20 compute subnet -> EFA security group ->
HyperPod access entry -> CreateCluster (Orchestrator.Eks, NodeRecovery) -> InService."""
