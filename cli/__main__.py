"""``python -m cli``: the generated commands without the sandbox's (``launchpod`` has both)."""

import sys

from cli.main import main

sys.exit(main())
