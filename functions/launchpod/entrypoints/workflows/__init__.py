"""Workflow phases: one module per Step Functions Task (``create_cluster.py`` <-> state
``CreateCluster`` <-> placeholder ``${CreateClusterFn}``)."""
