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
def test_gc_is_tuned_by_the_setting_and_left_alone_when_it_is_empty() -> None:
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    tune_gc(Settings(gc_thresholds=""))
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, frozen)
    tune_gc(Settings(gc_thresholds="40000,15,90"))
    assert gc.get_threshold() == (40000, 15, 90)
    assert gc.get_freeze_count() > frozen


def test_the_default_raises_the_thresholds() -> None:
    assert Settings().gc_thresholds == "50000,20,100"
    assert Settings.from_env({"TABLEWIRE_GC_THRESHOLDS": ""}).gc_thresholds == ""
