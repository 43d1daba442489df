# Launchpod. `make sandbox` runs it on this machine; `make test` passes the tests. Both install first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: install web api-types node chromium sandbox test test-fast lint synth lambda-layer clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -U pip

# The gateway image's pins constrain the shared packages, so the tests run the versions the image ships
# (a cold install otherwise takes whatever httpx or uvicorn released that morning).
$(VENV)/.installed: pyproject.toml mcp_gateway/requirements.txt | $(BIN)/python
	$(BIN)/pip install -q -c mcp_gateway/requirements.txt -e '.[dev]'
	touch $@

install: $(VENV)/.installed

# The web UI, built once per change of its sources.
web/node_modules/.package-lock.json: web/package-lock.json
	cd web && npm ci --no-audit --no-fund
web/dist/index.html: web/node_modules/.package-lock.json web/package.json web/tsconfig.json $(shell find web/src web/public web/index.html web/vite.config.* -type f 2>/dev/null)
	cd web && npm run build
web: $(if $(wildcard web/package.json),web/dist/index.html,)

# The web UI's API types: the OpenAPI document from the contracts, then TypeScript from the document.
api-types: install
	$(BIN)/python web/scripts/openapi.py
	cd web && npm run api-types

# The MCP Inspector CLI, used by the tests to list the gateway's tools as a stock client would.
mcp_gateway/node_modules/.package-lock.json: mcp_gateway/package-lock.json
	cd mcp_gateway && npm ci --no-audit --no-fund
node: $(if $(wildcard mcp_gateway/package.json),mcp_gateway/node_modules/.package-lock.json,)

chromium:
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

sandbox: install web
	$(BIN)/launchpod sandbox $(ARGS)

# Four workers, each with its own sandbox; a module, and each half of the modules sharing one cluster, run whole on
# one worker, the longest first (tests/conftest.py names the groups and their order). Most of an end-to-end test is
# waiting on its sandbox's simulated clock and workflows: two workers kept the machine's two cores about half busy
# (pytest 23:38 on a quiet machine, /usr/bin/time 104% CPU), four finished the same suite in 18:20.
# The trees are compiled first, once (the machine may set PYTHONDONTWRITEBYTECODE, and then each of the four
# workers, each sandbox's server and every Lambda environment compiled every module it imported, each time).
test: install web node chromium
	cd web && npm test --silent
	$(BIN)/python -m compileall -q -j 0 -x node_modules functions sandbox mcp_gateway cli tests cdk bench >/dev/null
	$(BIN)/python -m pytest -q -n 4 --dist loadgroup --no-loadscope-reorder

test-fast: install
	$(BIN)/python -m pytest -q -m "not browser and not infra"

lint: install
	$(BIN)/ruff check functions sandbox mcp_gateway cli tests cdk bench
	$(BIN)/ruff format --check functions sandbox mcp_gateway cli tests cdk bench
	$(BIN)/lint-imports
	$(BIN)/mypy functions/launchpod mcp_gateway cli sandbox

# The Lambda dependency layer (cp312 aarch64 wheels, no Docker) into build/layer, and the functions' code
# into build/code, both with bytecode compiled by Python 3.12, the functions' runtime (cdk/bytecode.py).
lambda-layer: install
	$(BIN)/python cdk/build_layer.py
	$(BIN)/python cdk/build_code.py

# CloudFormation into cdk/cdk.out; fails on any unacknowledged cdk-nag finding, then cfn-lint.
synth: install
	CDK_OUTDIR=cdk/cdk.out $(BIN)/python cdk/app.py
	$(BIN)/cfn-lint --ignore-checks W3005 -- cdk/cdk.out/Launchpod.template.json

clean:
	rm -rf $(VENV) web/node_modules web/dist mcp_gateway/node_modules cdk.out cdk/cdk.out artifacts
