"""Step Functions: starting and stopping workflow executions."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from launchpod.adapters.aws.clients import client
from launchpod.adapters.aws.errors import aws_call, error_code, ignoring
from launchpod.domain.errors import PermanentError


class StepFunctions:
    """The WorkflowRunner port, on Step Functions."""

    def __init__(self, workflows: dict[str, str]) -> None:
        self.sfn = client("stepfunctions")
        self.workflows = workflows

    def _machine(self, workflow: str) -> str:
        arn = self.workflows.get(workflow)
        if arn is None:
            raise PermanentError(f"No state machine is deployed for the {workflow} workflow.")
        return arn

    def execution_arn(self, workflow: str, execution_name: str) -> str:
        """arn:aws:states:<region>:<account>:execution:<state machine>:<execution name>, the format Step
        Functions gives executions (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-state-machine-executions.html)."""
        return self._machine(workflow).replace(":stateMachine:", ":execution:") + f":{execution_name}"

    def start(self, workflow: str, execution_name: str, document: dict[str, Any]) -> str:
        arn = self._machine(workflow)
        with aws_call("states:StartExecution"):
            try:
                return str(
                    self.sfn.start_execution(stateMachineArn=arn, name=execution_name, input=json.dumps(document))[
                        "executionArn"
                    ]
                )
            except ClientError as exc:
                # The name is the operation id: an execution by that name is this operation's.
                if error_code(exc) == "ExecutionAlreadyExists":
                    return self.execution_arn(workflow, execution_name)
                raise

    def stop(self, execution_arn: str, cause: str) -> None:
        with aws_call("states:StopExecution"), ignoring("ExecutionDoesNotExist"):
            self.sfn.stop_execution(executionArn=execution_arn, error="Cancelled", cause=cause[:32000])

    def send_task_success(self, task_token: str, output: dict[str, Any]) -> bool:
        """Wake a task waiting on ``task_token``; False when that task is no longer waiting."""
        with aws_call("states:SendTaskSuccess"):
            try:
                self.sfn.send_task_success(taskToken=task_token, output=json.dumps(output))
            except ClientError as exc:
                if error_code(exc) in ("TaskTimedOut", "TaskDoesNotExist", "InvalidToken"):
                    return False
                raise
        return True
