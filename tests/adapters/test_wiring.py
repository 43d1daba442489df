"""runtime.wiring builds each adapter on first use from the class its entry names: every entry names a class
that exists, builds with the settings it is given, is the class the entry is declared to answer, and is built
once per container."""

from __future__ import annotations

import re

import pytest
from launchpod.runtime import wiring

# The class-built adapters, by the class each is declared to answer: ``name: Callable[[], <Class>] = _once(...)``.
DECLARED = {
    name: found.group(1)
    for name, annotation in wiring.__annotations__.items()
    if (found := re.fullmatch(r"Callable\[\[\], (\w+)\]", str(annotation)))
}


def test_wiring_declares_the_adapters_it_builds() -> None:
    assert {"operations": "DynamoOperations", "sagemaker": "SageMaker", "amp": "Amp"}.items() <= DECLARED.items()
    assert len(DECLARED) == 21


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_each_adapter_is_built_from_the_class_it_is_declared_as_and_kept(aws: None, name: str) -> None:
    build = getattr(wiring, name)
    build.cache_clear()
    try:
        adapter = build()
        assert type(adapter).__name__ == DECLARED[name]
        assert build() is adapter  # once per container
    finally:
        build.cache_clear()  # its clients belong to this test's emulated AWS
