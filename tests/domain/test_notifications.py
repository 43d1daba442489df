"""Which webhooks may be called (SSRF): https only, public addresses only; loopback only where the
deployment allows it (the sandbox). And the chat text Slack and Teams show."""

from __future__ import annotations

import pytest
from launchpod.domain import notifications as rules


@pytest.mark.parametrize(
    "address", ["10.0.0.5", "169.254.169.254", "192.168.1.1", "127.0.0.1", "::1", "fd00::1", "100.64.0.1"]
)
def test_a_webhook_resolving_to_a_non_public_address_is_not_called(address):
    problem = rules.address_problem("https://hooks.example.com/x", [address], allow_loopback=False)
    assert problem and address in problem


def test_loopback_is_called_only_where_allowed_and_public_addresses_always():
    assert rules.address_problem("http://127.0.0.1:9/x", ["127.0.0.1"], allow_loopback=True) is None
    assert rules.address_problem("https://hooks.slack.com/x", ["3.5.6.7"], allow_loopback=False) is None
    # allowing loopback does not open private networks
    assert rules.address_problem("http://127.0.0.1:9/x", ["127.0.0.1", "10.1.2.3"], allow_loopback=True)


def test_chat_text_puts_the_subject_first_and_the_console_link_last():
    text = rules.chat_text("create failed", "boom", "https://console.example.com/operations/op-1")
    assert text.splitlines() == ["*create failed*", "boom", "https://console.example.com/operations/op-1"]
