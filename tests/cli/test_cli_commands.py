"""The CLI mirrors the catalog: every operation is a ``launchpod <resource> <verb>`` command whose arguments
become exactly the REST request the route takes; help is written for people; profiles, completion and the
log follower behave as a user relies on."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
from typing import Any

import pytest
from launchpod.contracts.catalog_ops import CATALOG, CatalogEntry, ClusterRef, HealthView
from launchpod.contracts.common import Role
from pydantic import Field

from cli import config
from cli.commands import arguments_of, commands
from cli.completion import bash
from cli.follow import new_lines
from cli.main import main, parser
from mcp_gateway.rest import build_request

COMMANDS = {c.entry.id: c for c in commands()}
ROOT = parser()


def _request(argv: list[str]):
    namespace = ROOT.parse_args(argv)
    command = next(c for c in COMMANDS.values() if c.words == f"{argv[0]} {namespace.verb}" or argv[1] in c.aliases)
    return build_request(command.entry, arguments_of(command, namespace))


def _required_argv(command) -> list[str]:
    argv = [command.resource, command.verb]
    for option in command.options:
        if option.positional:
            argv.append(f"v-{option.field.lower()}")
        elif option.kind == "cluster":
            argv += ["--cluster", "v-cluster"]
    return argv


def test_every_catalog_operation_has_a_command_and_no_command_is_extra() -> None:
    assert sorted(COMMANDS) == sorted(e.id for e in CATALOG)
    assert len({c.words for c in COMMANDS.values()}) == len(CATALOG)


@pytest.mark.parametrize("entry", CATALOG, ids=lambda e: e.id)
def test_each_command_reaches_its_route_with_every_path_parameter(entry: Any) -> None:
    command = COMMANDS[entry.id]
    request = _request(_required_argv(command))
    assert request.method == entry.method
    expected = entry.path
    for name in entry.path_params:
        option = next(o for o in command.options if o.field == name)
        expected = expected.replace("{" + name + "}", "v-cluster" if option.kind == "cluster" else f"v-{name.lower()}")
    assert request.path == expected


@pytest.mark.parametrize("entry", CATALOG, ids=lambda e: e.id)
def test_each_request_field_is_an_option_and_dry_run_and_wait_are_where_the_route_takes_them(entry: Any) -> None:
    command = COMMANDS[entry.id]
    fields = {o.field for o in command.options}
    current = {k for k, v in entry.input.model_fields.items() if not v.deprecated}
    assert fields == set(entry.path_params) | current
    help_text = ROOT._subparsers._group_actions[0].choices[command.resource]  # type: ignore[union-attr]
    verb_parser = help_text._subparsers._group_actions[0].choices[command.verb]
    flags = {s for a in verb_parser._actions for s in a.option_strings}
    assert ("--dry-run" in flags) == entry.mutates
    assert ("--wait" in flags) == (entry.accepted or entry.id in ("get_operation", "cancel_operation"))
    if entry.mutates:
        request = _request([*_required_argv(command), "--dry-run"])
        assert (request.params or {}).get("dryRun") == "true"


def test_job_logs_follow_with_f_also_as_jobs_logs() -> None:
    namespace = ROOT.parse_args(["jobs", "logs", "--cluster", "c1", "train", "-f", "--tail", "20"])
    assert namespace.follow is True
    request = _request(["jobs", "logs", "--cluster", "c1", "train", "--tail", "20"])
    assert (request.method, request.path, request.params) == ("GET", "/api/clusters/c1/jobs/train/logs", {"tail": 20})


def test_a_submission_from_options_is_the_json_body_the_route_takes() -> None:
    request = _request(
        [
            "jobs",
            "submit",
            "--cluster",
            "c1",
            "--job-name",
            "train",
            "--instance-group",
            "gpu",
            "--recipe",
            "llama-factory",
            "--replicas",
            "2",
            "--env",
            "NCCL_DEBUG=INFO",
            "A=b=c",
            "--command",
            '["hyperpodrun", "--nproc-per-node=8", "/data/train.py"]',
            "--run-policy",
            '{"jobMaxRetryCount": 2}',
            "--dry-run",
        ]
    )
    assert (request.method, request.path, request.params) == ("POST", "/api/clusters/c1/jobs", {"dryRun": "true"})
    assert request.json == {
        "jobName": "train",
        "instanceGroup": "gpu",
        "recipe": "llama-factory",
        "replicas": 2,
        "env": {"NCCL_DEBUG": "INFO", "A": "b=c"},
        "command": ["hyperpodrun", "--nproc-per-node=8", "/data/train.py"],
        "runPolicy": {"jobMaxRetryCount": 2},
    }


def test_cli_input_json_and_body_give_the_whole_request_and_options_override_them(tmp_path) -> None:
    body = tmp_path / "cluster.json"
    body.write_text('{"cluster": "from-file", "availabilityZones": ["us-east-1a", "us-east-1b"], "hyperpod": {"a": 1}}')
    request = _request(["clusters", "provision", "--body", str(body), "--cluster", "from-flag"])
    zones = ["us-east-1a", "us-east-1b"]
    assert request.json == {"cluster": "from-flag", "availabilityZones": zones, "hyperpod": {"a": 1}}
    request = _request(["clusters", "provision", "--cli-input-json", f"file://{body}"])
    assert request.json is not None and request.json["cluster"] == "from-file"


def test_bad_json_is_refused_before_any_call_naming_the_option(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        ROOT.parse_args(["clusters", "provision", "--cluster", "x", "--hyperpod", "{nope"])
    assert exit_.value.code == 2
    assert "--hyperpod" in capsys.readouterr().err


def _all_parsers(root: argparse.ArgumentParser):
    yield root
    for action in root._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from _all_parsers(child)


def test_help_is_written_for_people_no_tool_names_or_markup() -> None:
    ids = {e.id for e in CATALOG} | {"wait_for_operation"}
    for each in _all_parsers(ROOT):
        text = each.format_help()
        assert "``" not in text and "dryRun" not in text and "acknowledgeDataLoss" not in text, each.prog
        named = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text)) & ids
        assert not named, (each.prog, named)


@pytest.mark.parametrize("columns", ["60", "80", "100"])
def test_help_wraps_between_words_and_never_splits_a_hyphenated_name(monkeypatch, columns) -> None:
    from mcp_gateway.cli import _parser as gateway_parser

    def words(each: argparse.ArgumentParser, width: str) -> str:
        monkeypatch.setenv("COLUMNS", width)  # argparse wraps to the terminal's width
        return " ".join(each.format_help().split())

    # wrapped or not, the same words: "list-instance-types", never "list- instance-types"
    changed = [
        each.prog for each in [*_all_parsers(ROOT), gateway_parser()] if words(each, columns) != words(each, "10000")
    ]
    assert changed == []


def test_a_destructive_command_says_so_and_names_its_role(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["nodes", "replace", "-h"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Destructive." in text and "Needs the admin role." in text and "`launchpod nodes reboot`" in text


def test_flags_beat_the_environment_which_beats_the_profile(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LAUNCHPOD_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.delenv("LAUNCHPOD_API_URL", raising=False)
    monkeypatch.delenv("LAUNCHPOD_TOKEN", raising=False)
    monkeypatch.delenv("LAUNCHPOD_PROFILE", raising=False)
    assert main(["configure", "--api-url", "http://default:1/", "--token", "t-default"]) == 0
    assert main(["configure", "--profile", "prod", "--api-url", "http://prod:1", "--token", "t-prod"]) == 0
    assert os.stat(tmp_path / "config").st_mode & 0o777 == 0o600
    assert _pair(config.resolve(None, None, None)) == ("http://default:1", "t-default")
    assert _pair(config.resolve(None, None, "prod")) == ("http://prod:1", "t-prod")
    monkeypatch.setenv("LAUNCHPOD_TOKEN", "t-env")
    assert _pair(config.resolve(None, None, "prod")) == ("http://prod:1", "t-env")
    assert _pair(config.resolve("http://flag:1", "t-flag", "prod")) == ("http://flag:1", "t-flag")
    with pytest.raises(SystemExit, match=r"no profile 'staging'.*default, prod"):
        config.resolve(None, None, "staging")


def test_configure_takes_the_sandboxs_tokens_file(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LAUNCHPOD_CONFIG_FILE", str(tmp_path / "config"))
    tokens = tmp_path / "tokens.json"
    tokens.write_text('{"url": "http://127.0.0.1:3099", "admin": "lp-admin-x", "viewer": "lp-viewer-y"}')
    assert main(["configure", "--sandbox-tokens", str(tokens), "--role", "viewer", "--profile", "look"]) == 0
    assert _pair(config.resolve(None, None, "look")) == ("http://127.0.0.1:3099", "lp-viewer-y")


def test_a_command_without_a_token_says_how_to_get_one(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("LAUNCHPOD_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.delenv("LAUNCHPOD_TOKEN", raising=False)
    assert main(["clusters", "list"]) == 1
    assert "launchpod configure" in capsys.readouterr().err


def _complete(script: str, line: str) -> list[str]:
    words = line.split(" ")
    program = (
        f"{script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        '_launchpod; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_bash_completion_offers_resources_verbs_options_and_choices() -> None:
    script = bash(ROOT)
    assert _complete(script, "launchpod clus") == ["clusters"]
    assert {"list", "create", "provision", "delete"} <= set(_complete(script, "launchpod clusters "))
    assert {"--cluster", "--job-name", "--dry-run"} <= set(_complete(script, "launchpod jobs submit --"))
    assert _complete(script, "launchpod jobs submit --cluster x --recipe llama") == ["llama-factory"]
    assert _complete(script, "launchpod operations list --output ") == ["table", "json"]


def test_a_followed_log_prints_each_line_once_when_the_window_slides() -> None:
    assert new_lines(["a", "b", "c"], ["a", "b", "c", "d"]) == ["d"]
    assert new_lines(["a", "b", "c"], ["c", "d", "e"]) == ["d", "e"]  # the window moved past a and b
    assert new_lines(["a", "b"], ["a", "b"]) == []
    assert new_lines(["x", "y"], ["step 1"]) == ["step 1"]  # a restarted container's new log


def _pair(settings: config.Settings) -> tuple[str, str | None]:
    return settings.api_url, settings.token


def test_connection_and_output_options_go_before_or_after_the_command() -> None:
    before = ROOT.parse_args(["--profile", "prod", "-o", "json", "clusters", "list"])
    after = ROOT.parse_args(["clusters", "list", "--profile", "prod", "-o", "json"])
    neither = ROOT.parse_args(["clusters", "list"])
    assert (before.profile, before.output) == (after.profile, after.output) == ("prod", "json")
    assert (neither.profile, neither.output) == (None, None)  # the profile default, the table
    overridden = ROOT.parse_args(["--profile", "prod", "clusters", "list", "--profile", "dev"])
    assert overridden.profile == "dev"


def test_every_documented_rest_operation_is_a_command_with_an_argument_for_each_field() -> None:
    """Against the API's own OpenAPI document, not the catalog: a route added without a catalog entry, or a
    field the route reads that the request model lacks, would have no way in from the command line."""
    from launchpod.entrypoints.api.app import app

    spec = json.loads(app.get_openapi_json_schema(title="Launchpod API", version="0"))
    schemas = spec["components"]["schemas"]
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict) or "operationId" not in op:
                continue
            command = COMMANDS.get(op["operationId"])
            assert command is not None, f"{method.upper()} {path} has no command"
            fields = {p["name"] for p in op.get("parameters", []) if not p.get("deprecated")}
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema") or {}
            for ref in [s["$ref"] for s in [body, *body.get("anyOf", [])] if "$ref" in s]:
                properties = schemas[ref.rsplit("/", 1)[-1]].get("properties", {})
                # a deprecated spelling the API still accepts is not offered: its current name is
                fields |= {k for k, v in properties.items() if not v.get("deprecated")}
            assert {o.field for o in command.options} == fields, command.words


def test_an_errors_next_step_is_shown_as_the_command_that_makes_it():
    from launchpod.contracts.errors import ErrorView

    from cli.main import _error_text
    from mcp_gateway.rest import RestError

    call = 'POST /api/clusters/ml-a/dependencies {"includeOptional": true}'
    error = ErrorView.model_validate(
        {
            "code": "CONFLICT",
            "message": "ml-a has no HyperPod Spaces add-on; install the cluster's dependencies with the optional ones.",
            "details": [{"field": None, "rule": "next_step", "message": call}],
        }
    )
    text = _error_text(COMMANDS["create_space"], RestError(409, error), COMMANDS)
    assert f"  next step: `launchpod {COMMANDS['reconcile_dependencies'].words}` ({call})" in text.splitlines()


def test_a_time_and_a_secret_are_typed_as_they_are_and_a_feature_names_its_fields() -> None:
    # argparse took these for JSON: --start needed '"2026-12-07T00:00:00Z"' and --hf-token '"hf_..."'
    metrics = _request(["metrics", "get-cluster-gpu", "--cluster", "c", "--start", "2026-12-07T00:00:00Z"])
    assert metrics.params["start"] == "2026-12-07T00:00:00Z"
    argv = ["models", "download", "--cluster", "c", "--repo-id", "Qwen/Qwen3-0.6B", "--storage-name", "data"]
    download = _request([*argv, "--hf-token", "hf_abc"])
    assert download.json["hfToken"] == "hf_abc"
    chat = ["inference", "create-chat-completion", "e", "--cluster", "c", "--messages", "[]"]
    assert _request([*chat, "--stop", "###"]).json["stop"] == ["###"]  # a word or a list of words: a list
    help_text = " ".join(_help("features", "update"))
    assert "JSON {enabled, memoryPercentage}, or file://PATH" in help_text


def _help(resource: str, verb: str) -> list[str]:
    parsers = {each.prog: each for each in _all_parsers(ROOT)}
    return parsers[f"launchpod {resource} {verb}"].format_help().split()


def test_a_refused_value_of_a_list_option_is_named_by_its_place_counted_from_one():
    from cli.commands import flag_of

    create = COMMANDS["create_cluster"]
    assert flag_of(create, "body.availabilityZones.1") == "--availability-zones (value 2)"
    assert flag_of(create, "body.availabilityZones") == "--availability-zones"
    assert flag_of(create, "body.cluster") == "--cluster"


def test_waiting_shows_every_phase_that_ended_even_between_two_polls() -> None:
    import io

    from cli import follow

    phases = [{"name": n, "title": t, "status": "PENDING"} for n, t in (("A", "Make a"), ("B", "Make b"))]
    running = {"id": "op-1", "kind": "k", "target": "c", "status": "RUNNING", "phases": phases}
    done = {**running, "status": "SUCCEEDED", "phases": [{**p, "status": "SUCCEEDED"} for p in phases]}
    views = iter([running, done])
    err = io.StringIO()
    code, _ = follow.wait_operation(lambda _id: next(views), "op-1", interval=0, err=err)
    said = err.getvalue().splitlines()
    assert code == 0
    assert [line.split()[-2:] for line in said if line.startswith("  SUCCEEDED")] == [["Make", "a"], ["Make", "b"]]


class _ShareInput(ClusterRef):
    threshold: int = Field(default=90, description="warn above this % of the group's GPUs")


def test_a_percent_sign_in_a_summary_or_field_description_prints_in_help(capsys) -> None:
    """argparse %-formats help strings; a catalog summary saying "90%" must not break --help."""
    entry = CatalogEntry(
        "get_gpu_share",
        "GET",
        "/api/clusters/{name}/gpu-share",
        "Is more than 90% of the cluster's GPUs in use? Per group.",
        _ShareInput,
        HealthView,
        Role.VIEWER,
        tags=("metrics",),
    )
    root = parser((*CATALOG, entry))
    with pytest.raises(SystemExit):
        root.parse_args(["metrics", "-h"])
    with pytest.raises(SystemExit):
        root.parse_args(["metrics", "get-gpu-share", "-h"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Is more than 90% of the cluster's GPUs in use" in text and "warn above this % of the group's GPUs" in text


def test_an_empty_list_names_what_it_lists_not_the_command_group() -> None:
    # "No capacity." read as "there is no GPU capacity" when the account merely had no training plans yet
    nouns = {COMMANDS[op].words: COMMANDS[op].noun for op in COMMANDS}
    assert nouns["capacity list-training-plans"] == "training plans"
    assert nouns["capacity search-training-plan-offerings"] == "training plan offerings"
    assert nouns["clusters list"] == "clusters"
    assert nouns["features list-teams"] == "teams"
    assert all(not noun.startswith(("list", "search")) for noun in nouns.values())


def test_a_feature_is_turned_on_or_off_by_a_word_and_its_settings_still_by_json() -> None:
    argv = ["features", "update", "--cluster", "c1", "--task-governance", "on", "--training-operator", "OFF"]
    request = _request([*argv, "--tiered-checkpointing", '{"enabled": true, "memoryPercentage": 20}'])
    assert request.json == {
        "taskGovernance": {"enabled": True},
        "trainingOperator": {"enabled": False},
        "tieredCheckpointing": {"enabled": True, "memoryPercentage": 20},
    }
    with pytest.raises(SystemExit):  # a word that is neither a switch nor JSON is refused before any call
        ROOT.parse_args(["features", "update", "--cluster", "c1", "--task-governance", "yes please"])


def test_a_refused_field_is_said_once_at_its_option():
    from launchpod.contracts.errors import ErrorView

    from cli.main import _error_text
    from mcp_gateway.rest import RestError

    said = "give storageClaim, the claim of one of the cluster's S3 storages."
    error = ErrorView.model_validate(
        {
            "code": "VALIDATION_FAILED",
            "message": f"{said} (body.storageClaim)",
            "details": [{"field": "body.storageClaim", "rule": "required", "message": said}],
        }
    )
    text = _error_text(COMMANDS["submit_job"], RestError(422, error), COMMANDS)
    assert text.count(said) == 1 and f"  --storage-claim: {said}" in text.splitlines(), text
