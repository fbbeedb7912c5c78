"""A game folder kept outside the repository in real Chromium: a copy of tests/tiny_game
named by ``TABLEWIRE_GAMES`` is offered by the lobby page, and its room page draws the
folder's own board with its style sheet and plays to the end, with no other edit."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Iterator

import pytest
from browser import Served, Watched, play_to_end

from support import ROOT


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``tablewire serve`` with the template game copied to a temporary folder."""
    folder = tmp_path_factory.mktemp("elsewhere") / "tiny_game"
    shutil.copytree(ROOT / "tests" / "tiny_game", folder)
    server = Served(env={"TABLEWIRE_GAMES": str(folder)}).start()
    yield server
    server.stop()


def test_the_lobby_offers_it_and_its_board_plays_to_the_end(
    open_page: Callable[..., Watched], served: Served
) -> None:
    lobby = open_page()
    lobby.page.goto(served.url + "/")
    lobby.page.get_by_text("Tiny Nim").first.wait_for()
    reservation = served.room_with_bots("tiny-nim", seats=2, bots=1)
    player = open_page()
    player.hold_seat(reservation)
    player.open_room(reservation["room"])
    page = player.page
    page.locator(".o-board .nim-board").wait_for()
    assert page.locator('link[href="/games/tiny-nim/board.css"]').count() == 1
    assert play_to_end(player, random.Random(5)) > 0
    assert player.result() is not None
