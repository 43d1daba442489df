"""Metrics read back from the HyperPod observability add-on's Amazon Managed Prometheus workspace: where the
workspace is (queries), what Launchpod asks it (queries), how a series is summed up in numbers (series), which
nodes idle and what they cost (idle, prices)."""
