"""The sandbox's own ``/api/sandbox/*`` routes (admin token): faults, IAM decisions, execution
environments, capacity, metrics, SNS deliveries, MLflow runs, pod logs and calls made as a pod."""
