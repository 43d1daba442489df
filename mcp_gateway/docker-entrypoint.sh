#!/bin/sh
# One image, two ways to run. Lambda sets AWS_LAMBDA_RUNTIME_API: then serve invocations through the
# runtime interface client and Mangum. Anywhere else: serve streamable HTTP at /mcp with uvicorn.
set -eu
if [ -n "${AWS_LAMBDA_RUNTIME_API:-}" ]; then
  exec python -m awslambdaric mcp_gateway.lambda_handler.handler
fi
exec python -m mcp_gateway.cli --http --host 0.0.0.0 --port "${PORT:-8080}" "$@"
