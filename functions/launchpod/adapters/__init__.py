"""Adapters: the only code that talks to boto3 or the kubernetes client. They translate
ClientError and ApiException into domain errors, chained with ``from``."""
