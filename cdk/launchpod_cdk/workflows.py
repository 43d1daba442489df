"""Workflows: every statemachines/<name>.asl.json inlined as a Standard state machine.

The ASL stays in its own file; DefinitionBody.from_string inlines it (so cfn-lint and template
assertions can read it) and the registry's substitutions fill ``${...Fn}`` ARNs and settings.
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Annotations, Aws, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct
from launchpod.registry import StateMachineSpec, substitutions

from launchpod_cdk.functions import _retention, state_machine_arn, state_machine_name


class Workflows(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        prefix: str,
        machines: tuple[StateMachineSpec, ...],
        statemachines_dir: Path,
        functions: dict[str, lambda_.Function],
        log_retention_days: int,
    ) -> None:
        super().__init__(scope, id)
        self.machines: dict[str, sfn.StateMachine] = {}
        self.missing: list[str] = []
        self.specs: dict[str, StateMachineSpec] = {s.name: s for s in machines}
        arns = {name: fn.function_arn for name, fn in functions.items()}
        machine_arns = {m.name: state_machine_arn(prefix, m.name) for m in machines}
        for spec in machines:
            path = statemachines_dir / spec.file
            if not path.is_file():
                self.missing.append(spec.name)
                Annotations.of(self).add_warning_v2(
                    "launchpod:missing-asl", f"{path} does not exist: state machine {spec.name} is not deployed"
                )
                continue
            name = state_machine_name(prefix, spec.name)
            log_group = logs.LogGroup(
                self,
                f"{spec.name}-logs",
                log_group_name=f"/aws/vendedlogs/states/{name}",
                retention=_retention(log_retention_days),
                removal_policy=RemovalPolicy.DESTROY,
            )
            machine = sfn.StateMachine(
                self,
                spec.name,
                state_machine_name=name,
                state_machine_type=sfn.StateMachineType.STANDARD,
                comment=spec.description,
                definition_body=sfn.DefinitionBody.from_string(path.read_text()),
                definition_substitutions=substitutions(spec, arns, machine_arns),
                logs=sfn.LogOptions(destination=log_group, level=sfn.LogLevel.ALL, include_execution_data=True),
                tracing_enabled=True,
            )
            for fn_name in spec.functions:
                functions[fn_name].grant_invoke(machine)
            if spec.children:
                self._allow_children(machine, prefix, spec.children)
            self.machines[spec.name] = machine

    @staticmethod
    def _allow_children(machine: sfn.StateMachine, prefix: str, children: tuple[str, ...]) -> None:
        """What states:startExecution.sync:2 needs: start the children, follow and stop their
        executions, and the managed EventBridge rule through which Step Functions learns they ended."""
        names = [state_machine_name(prefix, c) for c in children]
        machine.add_to_role_policy(
            iam.PolicyStatement(
                actions=["states:StartExecution"],
                resources=[f"arn:{Aws.PARTITION}:states:{Aws.REGION}:{Aws.ACCOUNT_ID}:stateMachine:{n}" for n in names],
            )
        )
        machine.add_to_role_policy(
            iam.PolicyStatement(
                actions=["states:DescribeExecution", "states:StopExecution"],
                resources=[f"arn:{Aws.PARTITION}:states:{Aws.REGION}:{Aws.ACCOUNT_ID}:execution:{n}:*" for n in names],
            )
        )
        machine.add_to_role_policy(
            iam.PolicyStatement(
                actions=["events:PutTargets", "events:PutRule", "events:DescribeRule"],
                resources=[
                    f"arn:{Aws.PARTITION}:events:{Aws.REGION}:{Aws.ACCOUNT_ID}:rule/"
                    "StepFunctionsGetEventsForStepFunctionsExecutionRule"
                ],
            )
        )
