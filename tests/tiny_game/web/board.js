// Tiny Nim's board (clients/web/static/games/README.md's contract): the pile as
// buttons, one per legal take.
import { html } from "/static/common.js";

export function Board({ doc, legal, send }) {
  const { pile } = doc.game;
  return html`<div class="nim-board">
    <p class="nim-pile" aria-label="the pile">${"●".repeat(pile)} (${pile})</p>
    ${legal.map((move) => html`<button class="nim-take" data-move onClick=${() => send(move.action)}>${move.label}</button>`)}
  </div>`;
}
