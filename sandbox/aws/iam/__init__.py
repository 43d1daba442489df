"""The sandbox's IAM: each Lambda runs as its own role and every AWS call it makes is authorized
against the statements CDK deploys (``launchpod.policies``), as AWS would before serving it."""

from sandbox.aws.iam.gate import CALLER, GATE, Denial, FunctionIdentity, IamGate, install

__all__ = ["CALLER", "GATE", "Denial", "FunctionIdentity", "IamGate", "install"]
