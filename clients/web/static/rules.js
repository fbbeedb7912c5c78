// The how-to-play page (/rules/{engine}, built by server/rules.py): each example position
// the server put in the page (a `[data-example]` element holding a room document as a
// spectator sees it) drawn by the game's own board module, as a room page draws it, with
// no seat, no moves and nothing to send.

import { html, render } from "./common.js";
import { loadBoard } from "./games/index.js";

const NO_MOVES = [];
const nothing = () => Promise.resolve();

async function draw(places) {
  const module = await loadBoard(places[0].dataset.board);
  if (!module) throw new Error("this game has no board");
  for (const place of places) {
    const doc = JSON.parse(place.dataset.example);
    render(html`<${module.Board} doc=${doc} seat=${null} legal=${NO_MOVES} send=${nothing} />`, place);
  }
}

const places = [...document.querySelectorAll("[data-example]")];
if (places.length) {
  draw(places).catch((error) => {
    for (const place of places) place.textContent = `The picture could not be drawn: ${error.message}.`;
  });
}
