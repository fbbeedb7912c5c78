// Confirming a move before it is played, in rooms whose option `confirm` is on (the
// default): a move the board or the move list would send at once waits in a bar that
// says what it does, "Play it" (focused: Enter plays it) or "Cancel" (Escape). A new
// document (another player moved) drops the move waiting.

import { html, useEffect, useRef, useState } from "./common.js";

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `send` guarded by a confirmation when `wanted`: returns the guarded send, the move
 * waiting (or null) and the bar to show while one waits. `legal` gives its label. */
export function useConfirm(send, legal, wanted, version) {
  const [waiting, setWaiting] = useState(null);
  useEffect(() => setWaiting(null), [version]);
  function guarded(action) {
    if (!wanted) return send(action);
    const found = legal.find((move) => same(move.action, action));
    setWaiting({ action, label: found ? found.label : "this move" });
    return Promise.resolve();
  }
  const bar = waiting
    ? html`<${ConfirmBar} label=${waiting.label}
        play=${() => { setWaiting(null); send(waiting.action); }}
        cancel=${() => setWaiting(null)} />`
    : null;
  return [guarded, waiting, bar];
}

function ConfirmBar({ label, play, cancel }) {
  const button = useRef(null);
  useEffect(() => {
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
