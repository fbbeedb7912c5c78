// Confirming a move before it is played, in rooms whose option `confirm` is on (the
// default): a move the board or the move list would send at once waits in a bar that
// says what it does, "Play it" (focused: Enter plays it) or "Cancel" (Escape). A new
// document (another player moved, or got ready) keeps the move waiting while it is still
// among the player's legal moves; one no longer legal, or the end of the player's turn,
// drops it with a short note. A board's several moves made as one choice (a list, such
// as Crystal Palace's dice) wait as one, with the board's words for them.

import { html, useEffect, useLayoutEffect, useRef, useState } from "./common.js";

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `send` guarded by a confirmation when `wanted`: returns the guarded send, the move
 * waiting (or null) and the bar to show while one waits (or the note of one dropped).
 * `legal` gives its label and whether it still stands; `[]` while they load. The
 * guarded send takes a move, or a list of moves and the words for them all. */
export function useConfirm(send, legal, wanted, myTurn) {
  const [waiting, setWaiting] = useState(null);
  const [note, setNote] = useState(null);
  const drop = (why) => {
    setWaiting(null);
    setNote(`${waiting.label}: ${why}, so it was not played. Choose again.`);
  };
  useEffect(() => {
    if (!waiting) return;
    if (!myTurn) drop("your turn ended");
    else if (legal.length && ![waiting.action].flat().every((action) => legal.some((move) => same(move.action, action)))) {
      drop("the game moved on and this move is no longer possible");
    }
  }, [legal, myTurn]);
  function guarded(action, words) {
    setNote(null);
    if (!wanted) return send(action);
    const found = legal.find((move) => same(move.action, action));
    setWaiting({ action, label: words || (found ? found.label : "this move") });
    return Promise.resolve();
  }
  const bar = waiting && myTurn
    ? html`<${ConfirmBar} label=${waiting.label}
        play=${() => { setWaiting(null); send(waiting.action); }}
        cancel=${() => setWaiting(null)} />`
    : note
      ? html`<p class="o-confirm-note muted" role="status">${note}</p>`
      : null;
  return [guarded, waiting, bar];
}

function ConfirmBar({ label, play, cancel }) {
  const button = useRef(null);
  // As the bar is drawn, not after the next paint: an Escape (or Enter) pressed as soon
  // as the bar shows must reach it.
  useLayoutEffect(() => {
    if (button.current) button.current.focus();
    const onKey = (event) => { if (event.key === "Escape") cancel(); };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [label]);
  return html`<div class="o-confirm banner" role="group" aria-label="Confirm your move">
    <p><strong>Play: ${label}?</strong></p>
    <p class="row actions">
      <button type="button" class="confirm" ref=${button} onClick=${play}>Play it</button>
      <button type="button" class="secondary" onClick=${cancel}>Cancel</button>
    </p>
  </div>`;
}
