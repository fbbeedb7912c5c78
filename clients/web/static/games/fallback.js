// The fallback board: the engine's view (doc.game) as readable data, for an engine that
// has no board of its own yet. It follows the Board contract of games/README.md.

import { html, shown, words } from "../common.js";

const OPEN_DEPTH = 2;

function isScalar(value) {
  return value === null || typeof value !== "object";
}

function Value({ value, depth }) {
  if (isScalar(value)) return html`<span>${shown(value)}</span>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<span class="muted">none</span>`;
    if (value.every(isScalar)) return html`<span>${value.map(shown).join(", ")}</span>`;
    // Items are counted from 1 for people.
    return html`<div>${value.map((item, i) => html`<${Entry} key=${i} name=${`${i + 1}`}
      value=${item} depth=${depth + 1} />`)}</div>`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return html`<span class="muted">none</span>`;
  return html`<dl>${entries.map(([key, item]) => isScalar(item) || (Array.isArray(item) && item.every(isScalar))
    ? html`<dt>${words(key)}</dt><dd><${Value} value=${item} depth=${depth + 1} /></dd>`
    : html`<dt>${words(key)}</dt><dd><${Entry} name=${`${words(key)}`} value=${item} depth=${depth + 1} bare /></dd>`)}</dl>`;
}

function Entry({ name, value, depth, bare }) {
  if (isScalar(value)) return html`<div>${name}: ${shown(value)}</div>`;
  const size = Array.isArray(value) ? `${value.length} items` : `${Object.keys(value).length} fields`;
  return html`<details open=${depth <= OPEN_DEPTH}>
    <summary>${bare ? size : `${name} (${size})`}</summary>
    <${Value} value=${value} depth=${depth} />
  </details>`;
}

/** Board({doc, seat, legal, send}): the view as data; moves are made from the move list. */
export function Board({ doc, seat }) {
  return html`<div class="data">
    <p class="muted">${`This game has no board drawing yet: here is everything ${seat === null ? "a spectator" : "your seat"} can see, as data.`}</p>
    <${Value} value=${doc.game} depth=${0} />
  </div>`;
}

export { Board as FallbackBoard };
