"""configure-mlflow: a cluster's SageMaker managed MLflow tracking server, its role, and the record of it."""
