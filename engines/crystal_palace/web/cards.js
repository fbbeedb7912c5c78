// Crystal Palace's pictures: resources as small inline SVG icons (drawn here, no image
// files: the page loads nothing else; shapes only, no text inside them), effects and costs as icon chips, and the cards
// of the displays (patents, characters, research tiles, shares) as tiles with a
// coloured header, their numbers as chips and their longer rule text folded under a
// tap. Each chip group carries its effect in words as its accessible name and tooltip.

import { html } from "/static/common.js";
import {
  CHARACTERS,
  DATA,
  PATENTS,
  SHARES,
  TILES,
  characterDoes,
  costText,
  effectText,
  lastStep,
  tileText,
} from "./data.js";

/** A button that makes `entry`'s move. */
export function Move({ entry, send, cls = "", children }) {
  return html`<button type="button" class=${`cp-move ${cls}`} data-move aria-label=${entry.label}
    title=${entry.label} onClick=${() => send(entry.action)}>${children ?? lastStep(entry.label)}</button>`;
}

const PICTURES = {
  money: html`<circle cx="8" cy="8" r="7" fill="#e0b000" stroke="#8a6d00" />
    <circle cx="8" cy="8" r="4.2" fill="none" stroke="#8a6d00" stroke-width="1.2" />`,
  vp: html`<path d="M8 1l2.1 4.6 5 .5-3.8 3.3 1.1 4.9L8 11.8 3.6 14.3l1.1-4.9L.9 6.1l5-.5z"
    fill="#7d3c98" />`,
  gears: html`<circle cx="8" cy="8" r="5.2" fill="none" stroke="#6b6f76" stroke-width="3.4"
    stroke-dasharray="2.1 1.6" /><circle cx="8" cy="8" r="3.4" fill="#8d939b" />
    <circle cx="8" cy="8" r="1.3" fill="#fff" />`,
  energy: html`<path d="M9.5 .5L2.5 9h4.2L5.8 15.5 13.5 6.5H9.2z" fill="#f0a500" stroke="#9a6a00"
    stroke-width=".6" />`,
  buzz: html`<path d="M1.5 6h3l6-4v12l-6-4h-3z" fill="#e67e22" /><path d="M12.5 5.5q2 2.5 0 5"
    fill="none" stroke="#e67e22" stroke-width="1.4" />`,
  newspapers: html`<rect x="1.5" y="2.5" width="13" height="11" rx="1" fill="#fff" stroke="#555" />
    <path d="M3.5 5h9M3.5 7.5h5M3.5 10h9M10 7.5h2.5" stroke="#555" stroke-width="1.1" />`,
  income: html`<circle cx="8" cy="8" r="7" fill="#1e8449" /><path d="M8 3.5l3.5 4H9.3V12H6.7V7.5H4.5z"
    fill="#fff" />`,
  westminster: html`<path d="M1.5 6L8 1.5 14.5 6z" fill="#5d6d7e" /><path d="M2.5 14.5h11M3.5 7v6
    M6.5 7v6M9.5 7v6M12.5 7v6" stroke="#5d6d7e" stroke-width="1.6" />`,
  ticket: html`<path d="M1 4h14v2.5a1.5 1.5 0 000 3V12H1V9.5a1.5 1.5 0 000-3z" fill="#17a589" />
    <path d="M10.5 4.5v7" stroke="#fff" stroke-dasharray="1 1" />`,
  dice: html`<rect x="1.5" y="1.5" width="13" height="13" rx="3" fill="#fff" stroke="#333" />
    <circle cx="5" cy="5" r="1.3" /><circle cx="11" cy="11" r="1.3" /><circle cx="8" cy="8" r="1.3" />`,
  research: html`<rect x="2" y="2" width="12" height="12" rx="2" fill="#8e44ad" />
    <path d="M6 4.5h4M7 4.5v3l-2.5 4.5h7L9 7.5v-3" fill="none" stroke="#fff" stroke-width="1.1" />`,
  loans: html`<rect x="1.5" y="3.5" width="13" height="9" rx="1.5" fill="#b03a2e" />
    <path d="M5 8h6" stroke="#fff" stroke-width="1.8" />`,
  assistants: html`<circle cx="8" cy="5" r="3" fill="#555" /><path d="M2.5 15a5.5 5.5 0 0111 0z"
    fill="#555" />`,
};

/** A resource's picture; `name` as its words for a screen reader, or none (decorative). */
export function Icon({ kind, name = null }) {
  return html`<svg class="cp-icon" viewBox="0 0 16 16" role=${name ? "img" : null}
    aria-label=${name} aria-hidden=${name ? null : "true"}>${PICTURES[kind]}</svg>`;
}

function signed(n) {
  return n < 0 ? `−${-n}` : `+${n}`;
}

/** One chip: an icon and a number (or a word), red when it is a cost. */
function Chip({ kind, text, cost = false }) {
  return html`<span class=${`cp-ic${cost ? " cp-cost" : ""}`}><${Icon} kind=${kind} />${text}</span>`;
}

/** An effect map as icon chips (words for what has no icon: "per" amounts). */
export function Effect({ effect, harm = "pay" }) {
  const entries = Object.entries(effect || {});
  if (!entries.length) return html`<span class="cp-chips-none">—</span>`;
  const words = effectText(effect, harm);
  return html`<span class="cp-ics" role="img" aria-label=${words} title=${words}>${entries.map(([key, raw]) => {
    if (typeof raw === "object") return html`<span class="cp-ic cp-ic-words" aria-hidden="true">${effectText({ [key]: raw })}</span>`;
    if (key === "research") return html`<${Chip} kind="research" text=${raw} />`;
    if (key === "ticket") return html`<${Chip} kind="ticket" text="+1" />`;
    return html`<${Chip} kind=${key in PICTURES ? key : "vp"} text=${signed(raw)} cost=${raw < 0} />`;
  })}</span>`;
}

/** A cost map (gears, energy, money) as chips. */
export function Cost({ cost }) {
  const words = `costs ${costText(cost)}`;
  const parts = ["gears", "energy", "money"].filter((k) => cost[k]);
  return html`<span class="cp-ics" role="img" aria-label=${words} title=${words}>
    ${parts.length ? parts.map((k) => html`<${Chip} kind=${k} text=${cost[k]} cost />`) : "free"}</span>`;
}

/** A card tile: a header in the card type's colour, chips, and folded words. */
function Tile({ kind, title, entry, send, chips, more }) {
  const body = html`<span class="cp-card-head">${title}</span>
    <span class="cp-card-body">${chips}</span>`;
  const folded = more ? html`<details class="cp-more"><summary>rules</summary>${more}</details>` : null;
  return entry
    ? html`<div class=${`cp-card cp-${kind} cp-takes`}><${Move} entry=${entry} send=${send} cls="cp-take">${body}<//>${folded}</div>`
    : html`<div class=${`cp-card cp-${kind}`}>${body}${folded}</div>`;
}

export function PatentCard({ id, round, entry, send }) {
  const card = PATENTS[id];
  const link = card.link && CHARACTERS[card.link];
  const vp = card.vp[Math.min(round, 4)];
  return html`<${Tile} kind="patent" title=${card.name} entry=${entry} send=${send}
    chips=${html`<${Cost} cost=${card.cost} /><${Chip} kind="vp" text=${vp} />`}
    more=${html`<span>Build for ${costText(card.cost)}; ${vp} VP this season.</span>
      <span>Effect on a player: ${effectText(card.target, "lose")}.</span>
      ${link ? html`<span>+${DATA.prototype_link_vp} VP with ${link.name}.</span>` : null}`} />`;
}

export function CharacterCard({ id, round, entry, send }) {
  const card = CHARACTERS[id];
  const vp = card.vp[Math.min(round, 4)];
  return html`<${Tile} kind="character" title=${card.name} entry=${entry} send=${send}
    chips=${html`<${Chip} kind="money" text=${`${card.cost}`} cost /><span class="cp-ic" title="salary">salary £${card.salary}</span><${Chip} kind="vp" text=${vp} />`}
    more=${html`<span>Recruit for £${card.cost}, salary £${card.salary}, ${vp} VP now.</span>
      <span>${characterDoes(card)}.</span>`} />`;
}

export function TileCard({ id, number, entry, send }) {
  const tile = TILES[id];
  const when = !tile ? "" : tile.timing === "PERM" ? "always" : tile.timing === "IMM" ? "now" : "each phase 6";
  const chips = tile && tile.timing !== "PERM" ? html`<${Effect} effect=${tile.effect} />` : html`<span>${tileText(id)}</span>`;
  return html`<${Tile} kind="tile" title=${`Tile ${number} · ${when}`} entry=${entry} send=${send}
    chips=${chips} more=${null} />`;
}

export function ShareCard({ id, entry, send }) {
  const share = SHARES[id];
  return html`<${Tile} kind="share" title=${`Share · ${DATA.rounds[share.season]}`} entry=${entry}
    send=${send} chips=${html`<${Chip} kind="money" text=${share.price} cost /><${Effect} effect=${share.gain} />`}
    more=${null} />`;
}
