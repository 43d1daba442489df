"""The versioned recipes (data files in recipes/, one per recipe) and the one S3 data contract they share:
the shared bucket is mounted at /data in the pods (and in the user's development environment), with
datasets under datasets/, models under models/, and each job's checkpoints and outputs under jobs/<job>/."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

MOUNT = "/data"
DATASETS, MODELS, JOBS = "datasets", "models", "jobs"
_DIR = Path(__file__).resolve().parent / "recipes"


class Recipe(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str
    kind: Literal["pytorch", "ray"]
    title: str
    image: str
    command: list[str]
    defaults: dict[str, str]
    env: dict[str, str]
    logPattern: str
    mlflow: list[str]
    # The trainer appends to files in its output directory, which a Mountpoint volume refuses: it writes to
    # LOCAL_OUTPUT on the node and keep_output.py copies that to the bucket when training ends well.
    localOutput: bool = False


LOCAL = "/local"  # the node's NVMe (HyperPod mounts it at /opt/dlami/nvme), or an emptyDir where there is none
KEEP_OUTPUT_ENV = "LAUNCHPOD_KEEP_OUTPUT"


@cache
def keep_output_source() -> str:
    """The text of keep_output.py, which recipes with ``localOutput`` write into the container and run."""
    return (_DIR / "keep_output.py").read_text()


@cache
def all_recipes() -> dict[str, Recipe]:
    import yaml  # ~20 ms at import (its regexes); only this reads YAML, so the API Lambda need not pay it

    found = {}
    for path in sorted(_DIR.glob("*.yaml")):
        recipe = Recipe(**yaml.safe_load(path.read_text()))
        found[recipe.name] = recipe
    return found


def recipe(name: str) -> Recipe:
    return all_recipes()[name]


def fill(text: str, values: dict[str, Any]) -> str:
    for key, value in values.items():
        text = text.replace("${" + key + "}", str(value))
    return text


def layout(job: str) -> dict[str, str]:
    """Where a job reads and writes, inside the mount."""
    return {
        "datasets": f"{MOUNT}/{DATASETS}/",
        "models": f"{MOUNT}/{MODELS}/",
        "job": f"{MOUNT}/{JOBS}/{job}/",
    }
