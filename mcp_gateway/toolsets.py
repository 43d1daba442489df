"""Toolsets: the tools an agent starts with, and the groups of tools it adds when a task needs them.

The whole catalog as tools costs an agent ~23K tokens before its first call; most tasks use one capability.
So a session starts with the **core**: every read-only tool (inspect anything, diagnose anything), the
operations tools, ``wait_for_operation`` and ``enable_toolsets``. The tools that change things come in
**toolsets**, one per catalog tag (``clusters``, ``jobs``, ``inference``, ...): ``enable_toolsets`` adds
them and the server sends ``notifications/tools/list_changed``, so the client lists tools again
(https://modelcontextprotocol.io/specification/2025-06-18/server/tools#list-changed-notification). That is
GitHub's MCP server's dynamic toolsets (``--dynamic-toolsets``: ``enable_toolset`` and friends), with one
difference: ``enable_toolsets``' description names each toolset's tools, so an agent finds the tool it
needs in the list it has and reaches it with one call (GitHub's asks ``get_toolset_tools`` first).

Fewer calls still: getting a playbook (prompt or resource) enables the toolsets its steps use, and a tool
called by name while hidden (a script, a client with a stale list) runs and enables its toolset.

The enabled toolsets belong to the MCP session. A stateless transport has no session (each request is
a new one), so there the list is chosen per request: the ``X-MCP-Toolsets`` header (GitHub's remote
server's convention: names, comma-separated, or ``all``), else every toolset.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from launchpod.contracts.catalog_ops import CatalogEntry
from mcp import types

ENABLE_TOOL = "enable_toolsets"
ALL = "all"
HEADER = "x-mcp-toolsets"
# Tags whose every tool is core: health, who am I, the zones and types to offer, and following operations.
CORE_TAGS = frozenset({"meta", "preferences", "catalog", "operations"})


def toolset_of(entry: CatalogEntry) -> str:
    return entry.tags[0] if entry.tags else "other"


def is_core(entry: CatalogEntry) -> bool:
    return not entry.mutates or toolset_of(entry) in CORE_TAGS


@dataclass(frozen=True)
class Toolsets:
    """The catalog's tools split into the core and the toolsets that hold the rest."""

    entries: tuple[CatalogEntry, ...]

    @cached_property
    def members(self) -> dict[str, tuple[str, ...]]:
        """Each toolset's tools that are not core, in catalog order; toolsets with none are left out."""
        out: dict[str, list[str]] = {}
        for entry in self.entries:
            if not is_core(entry):
                out.setdefault(toolset_of(entry), []).append(entry.id)
        return {name: tuple(ids) for name, ids in out.items()}

    @cached_property
    def catalog(self) -> frozenset[str]:
        return frozenset(e.id for e in self.entries)

    @cached_property
    def core(self) -> frozenset[str]:
        return frozenset(e.id for e in self.entries if is_core(e))

    @cached_property
    def _home(self) -> dict[str, str]:
        return {tool: name for name, tools in self.members.items() for tool in tools}

    def parse(self, names: Iterable[str]) -> frozenset[str]:
        """Toolset names as given (``all`` for every one); raises ValueError naming any unknown one."""
        wanted = {n.strip() for n in names if n.strip()}
        if ALL in wanted:
            return frozenset(self.members)
        unknown = sorted(wanted - set(self.members))
        if unknown:
            raise ValueError(f"No toolset {', '.join(unknown)}; toolsets: {', '.join(self.members)} or {ALL}.")
        return frozenset(wanted)

    def holding(self, tools: Iterable[str]) -> frozenset[str]:
        """The toolsets that hold any of ``tools`` (core tools and unknown names need none)."""
        return frozenset(self._home[t] for t in tools if t in self._home)

    def visible(self, enabled: frozenset[str]) -> frozenset[str]:
        return self.core | {t for name in enabled for t in self.members.get(name, ())}

    def enable_tool(self) -> types.Tool:
        groups = "; ".join(f"{name}: {', '.join(tools)}" for name, tools in self.members.items())
        return types.Tool(
            name=ENABLE_TOOL,
            description=(
                "Your list has every read-only tool; tools that change things come in toolsets. To use one, enable"
                f" its toolset first (your tool list is then refreshed). Toolsets: {groups}. A playbook prompt"
                " enables the ones it needs."
            ),
            inputSchema={
                "type": "object",
                "properties": {
                    "toolsets": {
                        "type": "array",
                        "items": {"type": "string", "enum": [*self.members, ALL]},
                        "minItems": 1,
                    },
                },
                "required": ["toolsets"],
            },
            # It changes which tools this session lists, nothing in Launchpod (GitHub marks its enable_toolset so).
            annotations=types.ToolAnnotations(readOnlyHint=True),
        )

    def enabled_answer(self, added: frozenset[str], enabled: frozenset[str]) -> dict[str, Any]:
        tools = [t for name in self.members if name in added for t in self.members[name]]
        said = (
            f"Enabled {', '.join(sorted(added))}: {', '.join(tools)} are in your tool list now. If they do not"
            " appear, your MCP client ignores tools/list_changed: ask the user to reconnect the launchpod server"
            " started with --toolsets all (or the header X-MCP-Toolsets: all)."
            if added
            else "Already enabled; nothing changed."
        )
        return {"enabled": sorted(enabled), "added": tools, "summary": said}
