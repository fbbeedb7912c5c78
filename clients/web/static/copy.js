// A link to hand on (the room's, a private room's invitation): a field to select and a
// Copy button that says what it did, "Copied" or, where the browser lets no page write
// to the clipboard (a server reached over plain http by its address), how to copy it.

import { html, useEffect, useRef, useState } from "./common.js";

const SHOWN_MS = 4000;
const COPIED = "Copied";
const SELECTED = "The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.";
// What the button itself says meanwhile (its accessible name stays "Copy the …").
const SHORT = { [COPIED]: "Copied ✓", [SELECTED]: "Press Ctrl+C" };

/** Put `field`'s text on the clipboard: whether it is there. */
async function copied(field) {
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    return true;
  } catch {
    return document.execCommand("copy"); // where navigator.clipboard is missing or refused
  }
}

export function CopyLink({ id, label, link, className }) {
  const field = useRef(null);
  const [said, setSaid] = useState("");
  const timer = useRef(null);
  useEffect(() => () => clearTimeout(timer.current), []);
  async function copy() {
    setSaid(await copied(field.current) ? COPIED : SELECTED);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setSaid(""), SHOWN_MS);
  }
  return html`<div class=${className}>
    <label for=${id} class="inline">${label}</label>
    <input id=${id} type="text" readonly value=${link} ref=${field}
      onFocus=${(e) => e.currentTarget.select()} />
    <button type="button" class="secondary" onClick=${copy}
      aria-label=${`Copy the ${label.toLowerCase()}`}>${said ? SHORT[said] : "Copy"}</button>
    <span class="visually-hidden" role="status">${said}</span>
  </div>`;
}
