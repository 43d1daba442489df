"""``launchpod completion bash``: a bash completion script made from the parser itself.

Every command path (``clusters``, ``clusters create``) maps to the words that may follow it: its
subcommands, or its options; an option with choices maps to them (``--output`` -> ``table json``). The
script walks the words typed so far to the deepest known path and offers that path's words, as bash's
programmable completion asks of a ``complete -F`` function
(https://www.gnu.org/software/bash/manual/html_node/Programmable-Completion.html). zsh loads it through
``bashcompinit``.
"""

from __future__ import annotations

import argparse
import shlex


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def words(parser: argparse.ArgumentParser, path: str) -> dict[str, list[str]]:
    """Command path (``launchpod clusters create``) -> the words completing it."""
    table: dict[str, list[str]] = {}
    children = _subcommands(parser)
    options = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]
    values = [str(c) for a in parser._actions if not a.option_strings and a.choices and not children for c in a.choices]
    table[path] = list(children) if children else [*values, *options]
    for action in parser._actions:
        if action.choices and action.option_strings and not isinstance(action, argparse._SubParsersAction):
            for flag in action.option_strings:
                table[f"{path} {flag}".strip()] = [str(c) for c in action.choices]
    seen: set[int] = set()
    for name, child in children.items():
        if id(child) in seen:  # an alias: complete the command's own name only
            continue
        seen.add(id(child))
        table.update(words(child, f"{path} {name}"))
    return table


def bash(parser: argparse.ArgumentParser, prog: str = "launchpod") -> str:
    entries = "\n".join(f"  [{shlex.quote(k)}]={shlex.quote(' '.join(v))}" for k, v in words(parser, prog).items())
    fn = "_" + prog.replace("-", "_")
    return f"""# bash completion for {prog}: add `eval "$({prog} completion bash)"` to ~/.bashrc
# (zsh: `autoload -U +X bashcompinit && bashcompinit` first)
declare -A {fn}_words=(
{entries}
)
{fn}() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}" path={shlex.quote(prog)} key i
  for ((i = 1; i < COMP_CWORD; i++)); do
    key="$path ${{COMP_WORDS[i]}}"
    if [[ -n "${{{fn}_words[$key]+set}}" && "${{COMP_WORDS[i]}}" != -* ]]; then path="$key"; fi
  done
  key="$path $prev"
  if [[ "$prev" == -* && -n "${{{fn}_words[$key]+set}}" ]]; then
    COMPREPLY=($(compgen -W "${{{fn}_words[$key]}}" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W "${{{fn}_words[$path]}}" -- "$cur"))
}}
complete -F {fn} {prog}
"""
