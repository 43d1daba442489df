"""The sandbox's one certificate authority per process (sandbox.tls)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter: the first calls, made at once from many threads as clusters created side by side make
# them, must all get the same CA, or an API server serves a certificate its clients' CA did not sign.
FIRST_CALLS = """
import threading
from sandbox import tls
start = threading.Barrier(8)
seen = []
def first() -> None:
    start.wait()
    seen.append((tls.authority().ca_pem, open(tls.ca_file(), "rb").read(), tls.certificate_authority_data()))
threads = [threading.Thread(target=first) for _ in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
print(len({ca for ca, _, _ in seen}), len({f for _, f, _ in seen}), len({d for _, _, d in seen}))
"""


def test_api_servers_and_describe_cluster_agree_on_the_ca_when_first_asked_at_once():
    out = subprocess.run([sys.executable, "-c", FIRST_CALLS], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1", "1"]
