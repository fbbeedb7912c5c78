"""``tablewire serve``'s process settings."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from server.serve import tune_gc
from server.settings import Settings


@pytest.fixture
def restore_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restore_gc")
def test_startup_objects_are_frozen_and_thresholds_change_only_when_set() -> None:
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    tune_gc(Settings())
    assert gc.get_threshold() == before and gc.get_freeze_count() > frozen
    tune_gc(Settings(gc_thresholds="40000,15,90"))
    assert gc.get_threshold() == (40000, 15, 90)


def test_the_thresholds_come_from_the_environment() -> None:
    assert Settings().gc_thresholds == ""
    env = {"TABLEWIRE_GC_THRESHOLDS": "10000,10,10"}
    assert Settings.from_env(env).gc_thresholds == "10000,10,10"
