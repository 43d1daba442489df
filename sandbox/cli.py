"""``launchpod``: run the sandbox, the MCP gateway for a local agent, or set up kubectl for a cluster.

It lives with the sandbox so that the Lambda code (``launchpod``) never imports the sandbox."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from pathlib import Path

from cli.main import add_commands
from mcp_gateway.help import Parser
from sandbox import kubeconfig


def _sandbox(args: argparse.Namespace) -> int:
    from sandbox.runtime import Sandbox

    box = Sandbox(
        host=args.host,
        port=args.port,
        time_scale=args.time_scale,
        verbose=args.verbose,
        iam_evaluation=not args.no_iam,
        log_dir=Path(args.log_dir) if args.log_dir else None,
    ).start()
    if args.tokens_file:
        Path(args.tokens_file).write_text(json.dumps({"url": box.url, "awsUrl": box.aws_url, **box.tokens.as_dict()}))
    print(box.banner(args.tokens_file), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    box.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] == ["mcp"]:
        # Everything after "mcp" belongs to the gateway's own parser (--stdio, --api-url, --token, ...).
        from mcp_gateway.cli import main as mcp_main

        return int(mcp_main(args_in[1:]) or 0)
    parser: argparse.ArgumentParser = Parser(
        prog="launchpod",
        description="Launchpod from the command line: every API operation as `launchpod <resource> <verb>`"
        " (`launchpod clusters list`), and the sandbox, the MCP gateway for an agent and kubectl on a cluster.",
        epilog="Start with `launchpod configure`, then `launchpod clusters list`; `launchpod <resource> -h` lists"
        " a resource's verbs.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sandbox = sub.add_parser("sandbox", help="run the whole control plane on this machine against emulated AWS")
    sandbox.add_argument("--host", default="127.0.0.1")
    sandbox.add_argument("--port", type=int, default=3099)
    sandbox.add_argument(
        "--time-scale",
        type=float,
        default=0.05,
        help="real seconds per simulated second (0.05: a 10-minute EKS creation takes 30 s)",
    )
    sandbox.add_argument("--verbose", action="store_true", help="log every handler at INFO")
    sandbox.add_argument(
        "--no-iam",
        action="store_true",
        help="do not authorize AWS calls against each function's role (only to measure what that costs)",
    )
    sandbox.add_argument("--tokens-file", help="also write the URLs and tokens to this JSON file (for scripts)")
    sandbox.add_argument(
        "--log-dir",
        help="write the functions' logs here and keep them (default: a temporary folder, removed when it stops)",
    )
    sub.add_parser("mcp", help="the MCP gateway: launchpod mcp --stdio --api-url URL --token TOKEN (or --http)")
    kubeconfig.add_parsers(sub)
    if args_in[:1] not in (["sandbox"], ["kubeconfig"], ["eks-token"]):
        # The API's commands, generated from the catalog: not needed (nor paid for) to start the sandbox.
        add_commands(sub, parser)
    args = parser.parse_args(args_in)
    if hasattr(args, "handler"):
        return int(args.handler(args) or 0)
    if args.command == "kubeconfig":
        return kubeconfig.kubeconfig(args)
    if args.command == "eks-token":
        return kubeconfig.eks_token(args)
    return _sandbox(args)


if __name__ == "__main__":
    sys.exit(main())
