"""Skills: the versioned markdown playbooks in ``skills/``, served as MCP prompts and as resources.

A playbook starts with a small front matter block of ``key: value`` lines (``name``, ``title``,
``version``, ``description``, and one ``argument: name | description | required|optional`` line per
argument). No YAML library: the gateway image carries only what it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mcp import types

SKILLS_DIR = Path(__file__).parent / "skills"
URI_PREFIX = "launchpod://skills/"
_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)


@dataclass(frozen=True)
class SkillArgument:
    name: str
    description: str
    required: bool


@dataclass(frozen=True)
class Skill:
    name: str
    title: str
    version: str
    description: str
    arguments: tuple[SkillArgument, ...]
    body: str
    tools: tuple[str, ...]  # tools the playbook calls that the catalog may add later (front matter `tools:`)

    @property
    def uri(self) -> str:
        return URI_PREFIX + self.name

    def render(self, arguments: dict[str, str] | None, available: set[str]) -> str:
        """The playbook, headed by the caller's arguments and the tools this server does not offer yet."""
        head = [f"<!-- launchpod skill {self.name} v{self.version} -->"]
        given = {k: v for k, v in (arguments or {}).items() if v}
        if given:
            head.append("Arguments given by the user: " + ", ".join(f"{k}={v}" for k, v in given.items()) + ".")
        missing = [t for t in self.tools if t not in available]
        if missing:
            head.append(
                "Not offered by this Launchpod server yet: "
                + ", ".join(missing)
                + ". Skip steps that need them and tell the user which step could not be done."
            )
        return "\n".join(head) + "\n\n" + self.body


def parse(text: str) -> Skill:
    match = _FRONT.match(text)
    if not match:
        raise ValueError("a skill starts with a '---' front matter block")
    fields: dict[str, str] = {}
    arguments: list[SkillArgument] = []
    for line in match.group(1).splitlines():
        if not line.strip():
            continue
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "argument":
            name, description, need = (part.strip() for part in value.split("|"))
            arguments.append(SkillArgument(name, description, need == "required"))
        else:
            fields[key] = value
    tools = tuple(t.strip() for t in fields.get("tools", "").split(",") if t.strip())
    return Skill(
        name=fields["name"],
        title=fields["title"],
        version=fields["version"],
        description=fields["description"],
        arguments=tuple(arguments),
        body=text[match.end() :].lstrip("\n"),
        tools=tools,
    )


@cache
def load(directory: Path = SKILLS_DIR) -> tuple[Skill, ...]:
    return tuple(parse(path.read_text(encoding="utf-8")) for path in sorted(directory.glob("*.md")))


def by_name(name: str) -> Skill | None:
    return next((s for s in load() if s.name == name), None)


def prompt_of(skill: Skill) -> types.Prompt:
    return types.Prompt(
        name=skill.name,
        title=skill.title,
        description=f"{skill.description} (playbook v{skill.version})",
        arguments=[
            types.PromptArgument(name=a.name, description=a.description, required=a.required) for a in skill.arguments
        ],
        _meta={"launchpod/version": skill.version, "launchpod/resource": skill.uri},
    )


def resource_of(skill: Skill) -> types.Resource:
    return types.Resource(
        uri=skill.uri,  # type: ignore[arg-type]  # pydantic coerces str to AnyUrl
        name=skill.name,
        title=skill.title,
        description=f"{skill.description} (playbook v{skill.version})",
        mimeType="text/markdown",
        _meta={"launchpod/version": skill.version},
    )
