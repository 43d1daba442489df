"""argparse's help, wrapped between words only (the `launchpod` command line's and the gateway's).

argparse wraps with textwrap's defaults, which break a line after any hyphen: a command name such as
``list-instance-types`` or ``update-kubeconfig`` came out as ``list-`` at the end of one line and
``instance-types`` at the start of the next. Here lines break only at spaces; a word longer than the line
stays whole and overflows it.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from typing import Any

_SPACES = re.compile(r"\s+")


class WholeWordsFormatter(argparse.HelpFormatter):
    """argparse's formatter with textwrap's ``break_on_hyphens`` and ``break_long_words`` off."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(_SPACES.sub(" ", text).strip(), width, break_on_hyphens=False, break_long_words=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in self._split_lines(text, width - len(indent)))


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help keeps words whole; its subcommands' parsers are of this class too
    (argparse makes them of the parent's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", WholeWordsFormatter)
        super().__init__(*args, **kwargs)
