"""``launchpod <resource> <verb>``: the REST API as a command line, generated from the operation catalog.

As the AWS CLI is generated from its service models, every command here is made from one catalog entry
(``launchpod.contracts.catalog_ops``): its path parameters become positionals or options, its request
model's fields become options, and each call goes through the MCP gateway's REST client, so the API stays
the one validator. Nothing is written per operation.
"""
