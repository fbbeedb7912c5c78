"""Owners and invitations in the web pages, in real Chromium against a real ``tablewire
serve``: only the browser that created a room is offered its bots; a private room's seat
needs its invitation link, which its owner is shown; a visitor is told, before sitting,
that the creator chose the seed; names stay text."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path

from browser import PHONE, Served, Watched, play_to_end
from playwright.sync_api import Locator, Page, Route, expect

NAME = "<b>Ana</b> & <i>co</i>"
REFUSED = "console: Failed to load resource: the server responded with a status of {} ({})"
FORBIDDEN = "403 (Forbidden)"
CONFLICT = "409 (Conflict)"


def create_in_lobby(watched: Watched, served: Served, private: bool = False) -> str:
    """Create a 3-seat Sintra room without bots from the lobby's form, seated as NAME; its id."""
    page = watched.page
    page.goto(served.url + "/")
    page.fill("#name", NAME)
    page.select_option("#sintra-seats", "3")
    page.select_option("#sintra-bots", "0")
    if private:
        page.check("#sintra-private")
    page.locator("section", has=page.locator("#sintra-title")).get_by_role(
        "button", name="Create room"
    ).click()
    page.wait_for_url("**/rooms/*")
    page.wait_for_selector(".o-seats")
    return page.url.rsplit("/", 1)[1]


def fill_button(page: Page, room_id: str) -> Locator:
    return page.get_by_role("button", name=f"Fill the free seats of room {room_id} with bots")


def test_only_the_owner_is_offered_to_fill_a_room_with_bots(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    owner, stranger = open_page(), open_page()
    room_id = create_in_lobby(owner, served)
    # The name is shown as typed, never as markup.
    seats = owner.page.locator(".o-seats")
    assert NAME in seats.inner_text()
    assert seats.locator("b, i").count() == 0
    assert owner.page.get_by_role("heading", name="Play against bots").is_visible()

    stranger.page.goto(served.url + "/")
    stranger.page.wait_for_selector(f"a[aria-label='Watch room {room_id}']")
    assert fill_button(stranger.page, room_id).count() == 0
    stranger.shoot(shots, "owners-lobby-stranger")
    stranger.page.goto(f"{served.url}/rooms/{room_id}")
    stranger.page.wait_for_selector(".o-join")
    assert stranger.page.get_by_role("heading", name="Play against bots").count() == 0
    assert "Public room" in stranger.page.locator(".facts").inner_text()

    owner.page.goto(served.url + "/")
    fill = fill_button(owner.page, room_id)
    fill.wait_for()
    owner.shoot(shots, "owners-lobby-owner")
    fill.click()
    owner.page.wait_for_function(
        "(id) => [...document.querySelectorAll('.rooms tr')].some((row) =>"
        " row.textContent.includes(id) && row.textContent.includes('playing'))",
        arg=room_id,
    )
    assert served.api("GET", f"/api/rooms/{room_id}")["bots"][1:] == ["random", "random"]


def test_a_private_room_seats_only_those_who_open_its_invitation(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    owner, stranger, guessing, invited = open_page(PHONE), open_page(), open_page(), open_page()
    room_id = create_in_lobby(owner, served, private=True)
    invitation = owner.page.locator("#invite-link")
    # It names the game: once the room is gone, the link still offers a game of it.
    expect(invitation).to_have_value(re.compile(r"\?invite=[^&]+&game=sintra$"))
    link = invitation.input_value()
    assert owner.no_horizontal_scroll()
    assert link.startswith(f"{served.url}/rooms/{room_id}?invite=")
    assert owner.page.get_by_role("button", name="Copy the invitation link").is_visible()
    owner.shoot(shots, "owners-private-owner")

    # Not listed; without the invitation, no seat: the page says why.
    stranger.page.goto(served.url + "/")
    stranger.page.wait_for_selector(".rooms, .card.muted")
    assert room_id not in stranger.page.locator("main").inner_text()
    stranger.page.goto(f"{served.url}/rooms/{room_id}")
    join = stranger.page.locator(".o-join")
    expect(join).to_contain_text("this room is private and this browser has no invitation")
    assert join.get_by_role("button", name="Take a seat").count() == 0
    stranger.shoot(shots, "owners-private-stranger")

    # A wrong invitation is refused in words, not as a code.
    guessing.page.goto(f"{served.url}/rooms/{room_id}?invite=not-the-secret")
    guessing.page.get_by_role("button", name="Take a seat").click()
    error = guessing.page.locator(".o-join .error")
    error.get_by_text("This room is private").wait_for()
    assert "invite_required" not in error.inner_text()
    # Chromium itself logs the refused request; the page handled it.
    assert guessing.errors == [REFUSED.format(FORBIDDEN, f"{served.url}/api/rooms/{room_id}/seats")]
    guessing.errors.clear()

    invited.page.goto(link)
    invited.page.fill("#seat-name", "Bea")
    invited.page.get_by_role("button", name="Take a seat").click()
    invited.page.wait_for_selector(".room-head :text('you are Bea, seat 2')")
    # The invitation is kept: the room's page without it still knows this browser's seat.
    invited.page.goto(f"{served.url}/rooms/{room_id}")
    invited.page.wait_for_selector(".room-head :text('you are Bea, seat 2')")
    assert served.api("GET", f"/api/rooms/{room_id}")["names"] == [NAME, "Bea", None]


def test_no_seat_is_offered_before_the_page_knows_whether_the_room_is_private(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """The join form offered "Take a seat" while the room's facts were still being read,
    in a private room too (it failed so once in CI): a stranger could click it and be
    refused. The form now waits for the facts; if the lobby cannot say, the server decides."""
    owner, stranger, offline = open_page(), open_page(), open_page()
    room_id = create_in_lobby(owner, served, private=True)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    facts = f"**/api/rooms/{room_id}"
    stranger.page.route(facts, hold)
    # Its route is handed to ``hold`` right after this request event, before the answer
    # to any later call: ``held`` has it by the first assertion below.
    with stranger.page.expect_request(facts):
        stranger.page.goto(f"{served.url}/rooms/{room_id}")
    join = stranger.page.locator(".o-join")
    expect(join.get_by_role("status")).to_have_text("Reading this room's settings…")
    assert join.get_by_role("button", name="Take a seat").count() == 0
    assert len(held) == 1
    held[0].continue_()
    expect(join).to_contain_text("this room is private and this browser has no invitation")
    assert join.get_by_role("button", name="Take a seat").count() == 0

    offline.page.route(facts, lambda route: route.abort("connectionrefused"))
    offline.page.goto(f"{served.url}/rooms/{room_id}")
    offline.page.get_by_role("button", name="Take a seat").click()
    expect(offline.page.locator(".o-join .error")).to_contain_text("This room is private")
    offline.errors.clear()


def test_a_visitor_is_told_the_creator_chose_the_seed(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    room = served.api(
        "POST",
        "/api/rooms",
        {
            "engine": "sintra",
            "seats": 2,
            "private": True,
            "seed": 5,
            "options": {"side": "B", "clock": "move:30"},
        },
    )
    visitor = open_page()
    visitor.page.goto(served.url + room["invite_url"])
    facts = visitor.page.locator(".o-join .facts")
    facts.get_by_text("Time control").wait_for()
    text = facts.inner_text()
    assert "Private room" in text
    assert "The creator chose the seed (they can know every hidden card)." in text
    assert "30 seconds a move" in text
    assert "Rules changed: Palace side: B (windows × best colour)." in text
    visitor.shoot(shots, "owners-seed-chosen")
    assert visitor.page.get_by_role("button", name="Take a seat").is_visible()


def test_a_rematch_is_for_the_players_and_keeps_the_owner_and_the_held_seats(
    open_page: Callable[..., Watched], served: Served, shots: Path
) -> None:
    room = served.bots_room("sintra", 3, [2], options={"grace": 0}, private=True)
    seats = f"/api/rooms/{room['id']}/seats"
    ana = served.api("POST", seats, {"name": "Ana", "owner_token": room["owner_token"]})
    bea = served.api("POST", seats, {"name": "Bea", "invite": room["invite"]})
    # Bea comes, leaves at once: a bot plays her seat while she is away.
    second = open_page()
    second.hold_seat(bea, name="Bea")
    second.open_room(room["id"])
    second.page.close()
    owner = open_page()
    owner.hold_seat(ana)
    owned = {"ownerToken": room["owner_token"], "invite": room["invite"]}
    owner.page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)",
        [f"tablewire:owner:{room['id']}", json.dumps(owned)],
    )
    owner.open_room(room["id"])
    play_to_end(owner, random.Random(3))

    # A spectator is offered no rematch of their own.
    watcher = open_page(PHONE)
    watcher.open_room(room["id"])
    result = watcher.page.locator(".o-result")
    assert result.get_by_role("button").count() == 0
    assert "A rematch is for the players of this game" in result.inner_text()

    owner.page.get_by_role("button", name="Rematch").click()
    owner.page.wait_for_url(lambda url: room["id"] not in url)
    rematch_id = owner.page.url.rsplit("/", 1)[1]
    # The rematch keeps the owner and the invitation: its link is shown again.
    link = owner.page.locator("#invite-link")
    link.wait_for()
    assert link.input_value().startswith(f"{served.url}/rooms/{rematch_id}?invite=")

    # A stranger with the invitation finds Bea's seat kept for her, said in words.
    stranger = open_page()
    stranger.page.goto(link.input_value())
    stranger.page.get_by_role("button", name="Take a seat").click()
    error = stranger.page.locator(".o-join .error")
    error.get_by_text("kept for a player of the previous game").wait_for()
    assert "seat_held" not in error.inner_text()
    stranger.shoot(shots, "owners-rematch-seat-held")
    seats = f"{served.url}/api/rooms/{rematch_id}/seats"
    assert stranger.errors == [REFUSED.format(CONFLICT, seats)]
    stranger.errors.clear()

    watcher.page.get_by_role("link", name="Watch the rematch").click()
    watcher.page.wait_for_url(f"**/rooms/{rematch_id}")
    watcher.page.wait_for_selector(".o-seats")


def test_the_copy_button_says_the_invitation_is_copied(
    open_page: Callable[..., Watched], served: Served
) -> None:
    """The owner copies the invitation link to send it: the button's row says it is on
    the clipboard (and it is), rather than nothing at all."""
    owner = open_page()
    owner.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    create_in_lobby(owner, served, private=True)
    link = owner.page.locator("#invite-link").input_value()
    said = owner.page.locator(".invite-link [role='status']")
    expect(said).to_have_text("")
    owner.page.get_by_role("button", name="Copy the invitation link").click()
    expect(said).to_have_text("Copied")
    expect(owner.page.locator(".invite-link button")).to_have_text("Copied ✓")
    assert owner.page.evaluate("() => navigator.clipboard.readText()") == link
