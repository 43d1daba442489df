"""update-software: UpdateClusterSoftware in rolling batches, then wait until InService."""
