"""The CLI's parser and its one runner: parse, one REST call through the gateway's client, print.

``add_commands`` puts the generated commands, ``configure`` and ``completion`` on a ``launchpod`` parser;
``sandbox.cli`` adds them next to ``sandbox``, ``mcp`` and ``kubeconfig``. ``main`` is the same CLI without
those (``python -m cli``).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import re
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from launchpod.contracts.catalog_ops import CATALOG, CatalogEntry
from launchpod.contracts.jobs import JobLogsView, JobView

from cli import completion, config, follow, render
from cli.commands import (
    Command,
    add_option,
    arguments_of,
    body_file,
    commands,
    flag_of,
    for_people,
    json_value,
    literal,
    max_of,
)
from mcp_gateway.help import Parser

if TYPE_CHECKING:
    from mcp_gateway.rest import RestError

USER_AGENT = "launchpod-cli/0.1.0"
EXIT_API_ERROR = 1

EPILOG = (
    "URL and token: --api-url/--token, else LAUNCHPOD_API_URL/LAUNCHPOD_TOKEN, else the profile (--profile,"
    " LAUNCHPOD_PROFILE, or default) in ~/.launchpod/config; `launchpod configure` writes one."
)


def _connection_options(parser: argparse.ArgumentParser, default: Any = None) -> None:
    """The options that may come before the command or after it, as the AWS CLI's global options do. After
    it they default to argparse.SUPPRESS, so a subcommand does not overwrite what was given before it."""
    group = parser.add_argument_group("connection and output")
    given: dict[str, Any] = {"default": default} if default is argparse.SUPPRESS else {}
    group.add_argument("-o", "--output", choices=("table", "json"), help="default: table", **given)
    group.add_argument("--profile", help="a profile from ~/.launchpod/config (default: default)", **given)
    group.add_argument("--api-url", help="Launchpod's URL, e.g. http://127.0.0.1:3099", **given)
    group.add_argument("--token", help="your bearer token (better: a profile or LAUNCHPOD_TOKEN)", **given)


def _output(namespace: argparse.Namespace) -> str:
    return getattr(namespace, "output", None) or "table"


class Runner:
    """Runs one generated command with the URL and token it resolves."""

    def __init__(self, namespace: argparse.Namespace) -> None:
        self.settings = config.resolve(
            getattr(namespace, "api_url", None), getattr(namespace, "token", None), getattr(namespace, "profile", None)
        )
        # imported here: building the parser (launchpod -h, launchpod sandbox) needs no HTTP client (httpx)
        from mcp_gateway.rest import RestClient

        self.client = RestClient(self.settings.api_url, self.settings.token, user_agent=USER_AGENT)

    def call(self, entry: CatalogEntry, arguments: dict[str, Any]) -> dict[str, Any]:
        return asyncio.run(self.client.call(entry, arguments))


def _run(command: Command, by_id: dict[str, Command], namespace: argparse.Namespace) -> int:
    from mcp_gateway.rest import RestError

    runner = Runner(namespace)
    if not runner.settings.token:
        sys.stderr.write(
            f"launchpod: no token for {runner.settings.api_url}. Run `launchpod configure` (the sandbox: `launchpod"
            " configure --sandbox-tokens FILE`), set LAUNCHPOD_TOKEN, or pass --token.\n"
        )
        return EXIT_API_ERROR
    arguments = arguments_of(command, namespace)
    try:
        for option in command.options:
            if option.kind == "cluster" and not arguments.get(option.field):
                arguments[option.field] = _active_cluster(runner, by_id, command)
        if getattr(namespace, "follow", False):
            return _follow_logs(runner, command, by_id, arguments, namespace)
        view = runner.call(command.entry, arguments)
        operation = _operation_of(view)
        if getattr(namespace, "wait", False) and operation is not None and operation.get("id"):
            get = by_id["get_operation"].entry
            code, final = follow.wait_operation(
                lambda op_id: runner.call(get, {"operationId": op_id}),
                operation["id"],
                interval=namespace.poll_interval,
            )
            if _output(namespace) == "json":
                render.as_json(final, sys.stdout)
            elif code != follow.EXIT_INTERRUPTED and final.get("phases"):
                print(render.table(final["phases"], render.NESTED_COLUMNS["phases"]))
            return code
    except RestError as exc:
        sys.stderr.write(f"launchpod {command.words}: {_error_text(command, exc, by_id)}\n")
        if exc.status == 401:
            sys.stderr.write(f"(token from {runner.settings.source}; API {runner.settings.api_url})\n")
        return EXIT_API_ERROR
    if _output(namespace) == "json":
        render.as_json(view, sys.stdout)
    else:
        render.show(view, command.entry.response.__name__, sys.stdout, noun=command.noun)
        if operation is not None and view.get("status") == "ACCEPTED":
            print(f"Follow it: launchpod operations get {operation['id']} --wait")
    return 0


def _active_cluster(runner: Runner, by_id: dict[str, Command], command: Command) -> str:
    """The cluster a command without --cluster works on: the user's active cluster, the preference the console
    sets when a cluster is selected."""
    preferences = runner.call(by_id["get_preferences"].entry, {})
    if not preferences.get("activeCluster"):
        raise SystemExit(
            f"launchpod {command.words}: give --cluster, or choose the cluster you work on with"
            " `launchpod preferences set --active-cluster NAME`."
        )
    return str(preferences["activeCluster"])


def _next_command(call: str, by_id: dict[str, Command]) -> str:
    """An error's next-step call (``METHOD /api/... [JSON body]``) as the command that makes it, with the call."""
    method, _, rest = call.partition(" ")
    path = rest.split(" ", 1)[0].split("?", 1)[0]
    for found in by_id.values():
        route = re.sub(r"{\w+}", "[^/]+", found.entry.path)
        if found.entry.method == method and re.fullmatch(route, path):
            return f"`launchpod {found.words}` ({call})"
    return call


def _error_text(command: Command, exc: RestError, by_id: dict[str, Command]) -> str:
    """The API's message, then each field it names as the option to fix, and the command that fixes it."""
    error = exc.error
    fields = [d for d in error.details if d.rule != "next_step"]
    # a refusal of fields repeats its first field's words as the message: said once, where the option is named
    repeated = bool(fields) and error.message.startswith(fields[0].message)
    lines = ["the API refused the request; change what it names:" if repeated else error.message]
    lines += [
        f"  next step: {_next_command(d.message, by_id)}"
        if d.rule == "next_step"
        else f"  {flag_of(command, d.field) or 'request'}: {d.message}"
        for d in error.details
    ]
    lines.append(f"(HTTP {exc.status} {error.code}" + (f", request id {error.requestId})" if error.requestId else ")"))
    if exc.retry_after:
        lines[-1] += f" Retry after {exc.retry_after} s."
    return "\n".join(lines)


def _operation_of(view: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(view.get("operation"), dict):
        return dict(view["operation"])
    if "phases" in view and "kind" in view:
        return view
    return None


def _follow_logs(
    runner: Runner,
    command: Command,
    by_id: dict[str, Command],
    arguments: dict[str, Any],
    namespace: argparse.Namespace,
) -> int:
    entry = command.entry
    # the job's own GET (its status says when the log is complete): the read route the log route is under
    job_entry = max(
        (
            c.entry
            for c in by_id.values()
            if c.entry.method == "GET" and c.entry.response is JobView and entry.path.startswith(c.entry.path + "/")
        ),
        key=lambda e: len(e.path),
    )
    ref = {k: v for k, v in arguments.items() if k in job_entry.input.model_fields}
    window = max_of(entry, "tail") or 1000
    tail = int(arguments.pop("tail", None) or entry.input.model_fields["tail"].default)
    return follow.follow_logs(
        lambda lines: runner.call(entry, {**arguments, "tail": lines}),
        lambda: runner.call(job_entry, ref),
        window=window,
        tail=tail,
        interval=namespace.poll_interval,
    )


def _configure(namespace: argparse.Namespace) -> int:
    given_url, given_token = getattr(namespace, "api_url", None), getattr(namespace, "token", None)
    profile = getattr(namespace, "profile", None) or config.DEFAULT_PROFILE
    if namespace.sandbox_tokens:
        url, token = config.from_tokens_file(namespace.sandbox_tokens, namespace.role)
        url, token = given_url or url, given_token or token
    else:
        current = config.resolve(None, None, None)
        url = given_url or input(f"Launchpod API URL [{current.api_url}]: ").strip() or current.api_url
        token = given_token or getpass.getpass("Bearer token (input hidden; empty keeps the stored one): ")
    path = config.write_profile(profile, url, token or None)
    print(f"Profile {profile} written to {path} (API {url.rstrip('/')}).")
    return 0


def add_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    root: argparse.ArgumentParser,
    catalog: Iterable[CatalogEntry] = CATALOG,
) -> None:
    """The generated commands, ``configure`` and ``completion``, on ``root``'s subcommands."""
    made = commands(catalog)
    by_id = {c.entry.id: c for c in made}
    _connection_options(root)
    shared = argparse.ArgumentParser(add_help=False)
    _connection_options(shared, argparse.SUPPRESS)
    groups: dict[str, argparse._SubParsersAction[argparse.ArgumentParser]] = {}
    for resource in dict.fromkeys(c.resource for c in made):
        verbs = [c.verb for c in made if c.resource == resource]
        group = sub.add_parser(resource, help=", ".join(verbs), description=f"{resource} commands")
        groups[resource] = group.add_subparsers(dest="verb", required=True, metavar="VERB")
    for command in made:
        entry = command.entry
        summary = for_people(entry.summary, by_id, command)
        notes = []
        if command.waits:
            notes.append("Answers with an operation; --wait follows it to SUCCEEDED, FAILED or CANCELLED.")
        if entry.destructive:
            notes.append("Destructive.")
        if entry.role is not None:
            notes.append(f"Needs the {entry.role.value} role.")
        parser = groups[command.resource].add_parser(
            command.verb,
            aliases=list(command.aliases),
            parents=[shared],
            help=literal(summary.split(". ")[0].rstrip(".")),
            description=" ".join([summary, *notes]),
            epilog=EPILOG,
        )
        for option in command.options:
            add_option(parser, entry, option)
        if command.has_body:
            whole = parser.add_argument_group("the whole request")
            whole.add_argument("--cli-input-json", type=json_value, metavar="JSON", help="JSON, or file://PATH")
            whole.add_argument("--body", type=body_file, metavar="FILE", help="a JSON file (- for stdin)")
        if command.waits or entry.response is JobLogsView:
            if command.waits:
                parser.add_argument("--wait", action="store_true", help="follow the operation to its end")
            else:
                parser.add_argument("-f", "--follow", action="store_true", help="print new lines until the job ends")
            parser.add_argument("--poll-interval", type=float, default=2.0, help="seconds between polls (default 2)")
        parser.set_defaults(handler=lambda ns, command=command: _run(command, by_id, ns))

    configure = sub.add_parser(
        "configure",
        help="write a profile (API URL and token) to ~/.launchpod/config",
        description="Write a profile: asks for the URL and the token unless given, or takes both from the"
        " file `launchpod sandbox --tokens-file` writes.",
    )
    configure.add_argument("--profile", default=argparse.SUPPRESS, help="the profile to write (default: default)")
    configure.add_argument("--api-url", default=argparse.SUPPRESS)
    configure.add_argument("--token", default=argparse.SUPPRESS)
    configure.add_argument("--sandbox-tokens", metavar="FILE", help="the sandbox's --tokens-file")
    configure.add_argument(
        "--role", default="admin", choices=("admin", "operator", "viewer"), help="with --sandbox-tokens"
    )
    configure.set_defaults(handler=_configure)

    shell = sub.add_parser("completion", help='print a shell completion script: eval "$(launchpod completion bash)"')
    shell.add_argument("shell", choices=("bash", "zsh"))
    shell.set_defaults(handler=lambda ns: _completion(root, ns.shell))


def _completion(root: argparse.ArgumentParser, shell: str) -> int:
    script = completion.bash(root)
    print(("autoload -U +X bashcompinit && bashcompinit\n" if shell == "zsh" else "") + script, end="")
    return 0


def parser(catalog: Iterable[CatalogEntry] = CATALOG) -> argparse.ArgumentParser:
    root: argparse.ArgumentParser = Parser(prog="launchpod", description="Launchpod's REST API from the command line.")
    sub = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_commands(sub, root, catalog)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    namespace = parser().parse_args(argv)
    return int(namespace.handler(namespace) or 0)
