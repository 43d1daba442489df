"""Amazon Managed Service for Prometheus for the sandbox: the samples its workspaces hold (tsdb), the
exporters that fill them from what runs (exporters), the PromQL subset Launchpod queries with (promql) and
the workspace query API (api), served by the gateway at /aps-workspaces/workspaces/<id>/api/v1/."""
