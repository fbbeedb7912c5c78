// One paragraph of help in a room, under what is being asked: what the game's current
// phase or step is about, from the game's own `web/help.json` (games/README.md), with a
// link to the section of its how-to-play page (/rules/{engine}) that says more.

import { html, useEffect, useState } from "./common.js";
import { loadHelp } from "./games/index.js";

/** The game's help data, null while it loads and for a game without one. */
export function useHelp(engine) {
  const [help, setHelp] = useState(null);
  useEffect(() => {
    setHelp(null);
    if (engine) loadHelp(engine).then(setHelp, () => {});
  }, [engine]);
  return help;
}

/** The name of the step a view is at: the values at the help's `step` paths ("a.b"),
 * each "" when missing, joined by a space. */
export function stepName(help, view) {
  const at = (path) => path.split(".").reduce((value, key) => (value == null ? null : value[key]), view);
  return help.step.map((path) => {
    const value = at(path);
    return value == null ? "" : String(value);
  }).join(" ");
}

/** The help paragraph for a game in play, or nothing (no help, no game, a finished one).
 * It speaks to the player who acts ("you"): only their page shows it; the others (other
 * players, spectators) are waiting, which the page says above it. */
export function StepHelp({ help, doc, seat, rules }) {
  if (!help || !doc || doc.status !== "playing" || !doc.game) return null;
  if (seat === null || seat === undefined || !(doc.to_act || []).includes(seat)) return null;
  const found = help.steps[stepName(help, doc.game)];
  if (!found) return null;
  return html`<p class="o-help">${found.text}${rules
    ? html` <a href=${`${rules}#${found.section}`} target="_blank" rel="noopener">More in the rules</a>`
    : null}</p>`;
}
