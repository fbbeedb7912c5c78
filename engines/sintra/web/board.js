// The board of Azul: Stained Glass of Sintra (engine `sintra`), per clients/web/static/games/README.md.
// It draws the engine's view (docs/protocol.md §10): the round track and its bonus
// colours, the factory displays and the centre with the start tile, the bag and the
// glass tower as counts, and every player's palace: score, broken-glass track, the
// glazier, the eight pattern strips, the windows with their points and the final bonus.
// Names, points and tracks come from the view's `printed` data, never from this file.
// Every colour has its own fill AND its own shape, so the board reads without colour.
// A move is two clicks: pieces (a colour on a factory or in the centre), then a strip of
// your palace; a third choice (wild spaces, the colour kept) appears next to it. After
// the first click the page scrolls your strips into view (a phone's first screen holds
// the table only), smoothly unless you ask for reduced motion, and the focus goes to the
// first strip (from a strip, to its first way), so the keyboard goes on from there.

import { bringIntoView, html, nameRun, useEffect, useMemo, useRef, useState } from "/static/common.js";

const STEP = " → ";
const ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"];
const WILD = -1;

/** The shape drawn on each colour (0..4), so colours differ without colour vision. */
function Shape({ color }) {
  switch (color) {
    case 0: return html`<circle cx="10" cy="10" r="5.2" />`;
    case 1: return html`<path d="M10 3.6 L16.4 15.4 L3.6 15.4 Z" />`;
    case 2: return html`<rect x="5" y="5" width="10" height="10" />`;
    case 3: return html`<path d="M10 2.8 L17.2 10 L10 17.2 L2.8 10 Z" />`;
    case 4: return html`<path d="M8 3 h4 v5 h5 v4 h-5 v5 h-4 v-5 h-5 v-4 h5 Z" />`;
    default: return html`<path d="M10 4 v12 M4 10 h12 M5.8 5.8 l8.4 8.4 M14.2 5.8 l-8.4 8.4" />`;
  }
}

/** A glass piece, an empty printed space (`empty`), or an empty wild space (color -1). */
function Glass({ color, names, empty = false, label = null }) {
  const wild = color === WILD;
  const cls = wild ? "sn-glass sn-wild" : `sn-glass sn-c${color}${empty ? " sn-empty" : ""}`;
  const name = wild ? "wild space: any colour" : empty ? `empty ${names[color]} space` : `${names[color]} glass`;
  return html`<span class=${cls} role="img" aria-label=${label ?? name} title=${label ?? name}>
    <svg viewBox="0 0 20 20" aria-hidden="true" focusable="false"><${Shape} color=${color} /></svg>
  </span>`;
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

function signed(n) {
  return n < 0 ? `−${-n}` : `+${n}`;
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function seatName(doc, s) {
  return doc.seats[s] || `seat ${s + 1}`;
}

/** The moves of `legal` sorted for the board: picks (source, colour) and the reset. */
function plan(legal) {
  const picks = new Map();
  let reset = null;
  for (const entry of legal) {
    const a = entry.action;
    if (a.type === "reset") reset = entry;
    if (a.type !== "take") continue;
    const key = `${a.factory ?? "centre"}:${a.color}`;
    const steps = entry.label.split(STEP);
    if (!picks.has(key)) picks.set(key, { key, what: steps[0], entries: [] });
    picks.get(key).entries.push({ entry, steps });
  }
  return { picks, reset };
}

/** A pick's moves by target strip (slot, or "break" when nothing fits). */
function targets(pick) {
  const bySlot = new Map();
  if (!pick) return bySlot;
  for (const item of pick.entries) {
    const slot = item.entry.action.strip ?? "break";
    if (!bySlot.has(slot)) bySlot.set(slot, { where: item.steps[1] || item.entry.label, items: [] });
    bySlot.get(slot).items.push(item);
  }
  return bySlot;
}

/** A button taking a pick's pieces (the move, or its first step), around `children`. */
function PickButton({ pick, chosen, onPick, cls, children }) {
  return html`<button type="button" class=${`${cls} sn-pick${chosen ? " sn-chosen" : ""}`}
    data-move="take" aria-pressed=${chosen ? "true" : "false"}
    aria-label=${`Take ${pick.what}`} title=${`Take ${pick.what}`} onClick=${() => onPick(pick)}>${children}</button>`;
}

/** A factory's pieces one by one (each piece of a colour takes them all). */
function FactoryPieces({ counts, f, names, picks, picked, onPick }) {
  const pieces = counts.flatMap((n, color) => Array.from({ length: n }, () => color));
  return pieces.map((color, i) => {
    const key = `${f}:${color}`;
    const pick = picks.get(key);
    const glass = html`<${Glass} color=${color} names=${names} />`;
    return pick
      ? html`<${PickButton} key=${i} pick=${pick} chosen=${picked === key} onPick=${onPick} cls="sn-one">${glass}<//>`
      : html`<span key=${i} class="sn-one">${glass}</span>`;
  });
}

/** The centre's pieces by colour, with their counts. */
function CentrePieces({ counts, names, picks, picked, onPick }) {
  return counts.map((n, color) => {
    if (!n) return null;
    const key = `centre:${color}`;
    const pick = picks.get(key);
    const inner = html`<${Glass} color=${color} names=${names} label=${plural(n, names[color])} /><span class="sn-count" aria-hidden="true">×${n}</span>`;
    return pick
      ? html`<${PickButton} key=${color} pick=${pick} chosen=${picked === key} onPick=${onPick} cls="sn-group">${inner}<//>`
      : html`<span key=${color} class="sn-group">${inner}</span>`;
  });
}

function Rounds({ game, names }) {
  const rounds = game.printed.rounds;
  const left = game.indicator;
  const first = rounds - left.length;
  return html`<div class="sn-rounds" role="list" aria-label="Round track">
    ${Array.from({ length: rounds }, (_, r) => {
      const color = r >= first ? left[r - first] : null;
      const now = !game.finished && r === game.round - 1;
      const said = `round ${r + 1}${color === null ? ": played" : `: bonus colour ${names[color]}`}${now ? " (now)" : ""}`;
      return html`<div key=${r} role="listitem" class=${`sn-round${now ? " sn-now" : ""}${color === null ? " sn-past" : ""}`}
        aria-label=${said} title=${said}>
        <span class="sn-roman">${ROMAN[r] || r + 1}</span>
        ${color === null ? html`<span class="sn-done" aria-hidden="true">✓</span>` : html`<${Glass} color=${color} names=${names} label=${said} />`}
      </div>`;
    })}
  </div>`;
}

function Table({ doc, game, seat, names, picks, picked, onPick }) {
  const bonus = !game.finished && game.indicator.length ? game.indicator[0] : null;
  const empty = game.factories.every((f) => !f.some(Boolean)) && !game.center.some(Boolean);
  return html`<section class="sn-table" aria-label="The table">
    <div class="sn-head">
      <p><strong>${game.finished ? `Game over after ${game.printed.rounds} rounds` : `Round ${game.round} of ${game.printed.rounds}`}</strong>
        ${bonus === null ? null : html` · colour bonus: <${Glass} color=${bonus} names=${names} /> <strong>${names[bonus]}</strong>${" "}<span class="muted">(+1 for each piece of it on a strip you complete)</span>`}</p>
      <p class="muted">Palace side ${game.options.side} · bag ${plural(game.bag, "piece")} (hidden) ·
        glass tower ${plural(game.tower, "piece")}</p>
    </div>
    <${Rounds} game=${game} names=${names} />
    <div class="sn-key" aria-label="Colours">
      ${names.map((name, c) => html`<span key=${c} class="sn-keyitem"><${Glass} color=${c} names=${names} />${name}</span>`)}
      <span class="sn-keyitem"><${Glass} color=${WILD} names=${names} />wild (any)</span>
    </div>
    <div class="sn-sources">
      ${game.factories.map((counts, f) => html`<div key=${f} class=${`sn-factory${counts.some(Boolean) ? "" : " sn-bare"}`}
          role="group" aria-label=${`Factory ${f + 1}${counts.some(Boolean) ? "" : ": empty"}`}>
        <span class="sn-fno" aria-hidden="true">${f + 1}</span>
        <div class="sn-fpieces">
          ${counts.some(Boolean)
            ? html`<${FactoryPieces} counts=${counts} f=${f} names=${names} picks=${picks} picked=${picked} onPick=${onPick} />`
            : html`<span class="muted sn-fempty">empty</span>`}
        </div>
      </div>`)}
      <div class="sn-centre" role="group" aria-label="Centre">
        <span class="sn-clabel">Centre</span>
        <div class="sn-cpieces">
          ${game.center_tile
            ? html`<span class="sn-start" role="img" aria-label="start tile: the first to take from the centre gets it (one step down the broken-glass track) and starts the next round"
                title="start tile: the first to take from the centre gets it (one step down the broken-glass track) and starts the next round">1</span>`
            : null}
          <${CentrePieces} counts=${game.center} names=${names} picks=${picks} picked=${picked} onPick=${onPick} />
          ${!game.center.some(Boolean) && !game.center_tile ? html`<span class="muted">empty</span>` : null}
        </div>
      </div>
    </div>
    ${empty && !game.finished ? html`<p class="muted">The displays are refilled at the start of the next round.</p>` : null}
    ${doc.status === "playing" && doc.to_act.includes(game.turn)
      ? html`<p class="sn-whose">${game.turn === seat
          ? html`<strong>Your turn.</strong>` : html`<strong>${nameRun(seatName(doc, game.turn))}</strong> to play.`}</p>`
      : null}
  </section>`;
}

function Track({ board, track }) {
  const here = board.track;
  const said = `Broken glass: step ${here} of ${track.length - 1}, ${track[here]} at the end`
    + (board.wraps ? `; reached the bottom ${plural(board.wraps, "time")} (${track[track.length - 1]} each)` : "");
  return html`<div class="sn-track" role="img" aria-label=${said} title=${said}>
    <span class="sn-tlabel">Broken glass</span>
    <span class="sn-steps">
      ${track.map((value, i) => html`<span key=${i} class=${`sn-step${i === here ? " sn-here" : ""}${i === track.length - 1 ? " sn-bottom" : ""}`}>${value === 0 ? "0" : `−${-value}`}</span>`)}
    </span>
    ${board.wraps ? html`<span class="sn-wraps">hit bottom ×${board.wraps}</span>` : null}
  </div>`;
}

/** Side A's ornaments (filled spaces → points) or side B's windows × best colour. */
function bonusNow(game, board) {
  const p = game.printed;
  if (game.options.side === "A") {
    return p.ornaments.map((pair) => {
      const filled = pair.reduce((n, w) => n + board.windows[w].filter((x) => x !== null).length, 0);
      return { pair, filled, points: p.ornament_points[filled] };
    });
  }
  return null;
}

function sideB(board, names) {
  const full = board.windows.filter((w) => w[1] !== null).length;
  const counts = names.map((_, c) => board.windows.reduce((n, w) => n + w.filter((x) => x === c).length, 0));
  const best = Math.max(0, ...counts);
  const color = counts.indexOf(best);
  return { full, best, name: best ? names[color] : "any colour", points: full * best };
}

function StripSpaces({ strip, names }) {
  return strip.pattern.map((printed, i) => {
    const piece = strip.pieces[i];
    return html`<${Glass} key=${i} color=${piece ?? printed} names=${names} empty=${piece === null && printed !== WILD} />`;
  });
}

function Column({ slot, board, names, points, target, onTarget, chosen, reachable }) {
  const strip = board.strips[slot];
  const glazier = board.glazier === slot;
  const window = board.windows[slot];
  const spaces = strip
    ? html`<${StripSpaces} strip=${strip} names=${names} />`
    : html`<span class="sn-gone">strip gone</span>`;
  const said = strip
    ? `strip ${slot + 1}: ${strip.pieces.filter((x) => x !== null).length} of 5 filled`
    : `strip ${slot + 1}: left the game`;
  return html`<div class=${`sn-col${reachable ? "" : " sn-out"}`}>
    <span class="sn-slot">${slot + 1}</span>
    <span class=${`sn-glazier${glazier ? " sn-on" : ""}`} aria-label=${glazier ? "the glazier stands here" : ""}
      title=${glazier ? "the glazier: you place on this strip or one to its right" : ""}>${glazier ? "▼" : ""}</span>
    ${target
      ? html`<button type="button" class=${`sn-strip sn-target${chosen ? " sn-chosen" : ""}`} data-move="place"
          aria-pressed=${chosen ? "true" : "false"}
          aria-label=${target.label} title=${target.label} onClick=${onTarget}>${spaces}</button>`
      : html`<div class="sn-strip" role="group" aria-label=${said}>${spaces}</div>`}
    <div class="sn-window" role="group" aria-label=${`window ${slot + 1}: ${window.filter((x) => x !== null).map((c) => names[c]).join(" and ") || "empty"}, ${points} points`}>
      ${window.map((c, i) => (c === null
        ? html`<span key=${i} class="sn-pane" aria-hidden="true"></span>`
        : html`<${Glass} key=${i} color=${c} names=${names} />`))}
    </div>
    <span class="sn-pts">${points} pt</span>
  </div>`;
}

function Palace({ doc, game, s, mine, names, pick, reset, onSend }) {
  const board = game.boards[s];
  const printed = game.printed;
  const [slotChosen, setSlotChosen] = useState(null);
  useEffect(() => setSlotChosen(null), [pick]);
  const reach = useRef(null);
  useEffect(() => {
    if (!(mine && pick && reach.current)) return;
    bringIntoView(reach.current);
    // The focus follows the move (for the keyboard: a dozen Tab stops saved): from the
    // pieces to the first strip (or breaking them), from a strip to its first way.
    const next = reach.current.querySelector(slotChosen === null
      ? "[data-move='place'], [data-move='break']" : "[data-move='choose']");
    if (next && document.activeElement && document.activeElement.closest(".sn-board")) {
      next.focus({ preventScroll: true });
    }
  }, [pick, slotChosen]);
  const bySlot = useMemo(() => targets(pick), [pick]);
  const toPlay = doc.status === "playing" && doc.to_act.includes(s);
  const holdsStart = !game.center_tile && game.start === s && !game.finished;
  const ornaments = bonusNow(game, board);
  const b = game.options.side === "B" ? sideB(board, names) : null;
  const chosen = slotChosen === null ? null : bySlot.get(slotChosen);

  function onTarget(slot) {
    const group = bySlot.get(slot);
    if (group.items.length === 1) onSend(group.items[0].entry.action);
    else setSlotChosen(slot);
  }

  const breakAll = bySlot.get("break");
  return html`<section class=${`sn-palace${toPlay ? " sn-turn" : ""}${mine ? " sn-mine" : ""}`}
      aria-label=${`${seatName(doc, s)}'s palace`}>
    <div class="sn-phead">
      <h3>${nameRun(seatName(doc, s))}${mine ? " (you)" : ""} <span class="muted">seat ${s + 1}</span></h3>
      <span class="sn-score" aria-label=${`score ${board.score}`}>${board.score} pts</span>
      ${toPlay ? html`<span class="badge waiting">${mine ? "your turn" : "to play"}</span>` : null}
      ${holdsStart ? html`<span class="sn-start sn-small" role="img" aria-label="holds the start tile: starts the next round"
          title="holds the start tile: starts the next round">1</span>` : null}
    </div>
    <${Track} board=${board} track=${printed.track} />
    ${reset
      ? html`<p class="row"><button type="button" class="secondary" data-move="reset" aria-label=${reset.label}
          title=${`${reset.label} (a whole turn, instead of taking glass)`}
          onClick=${() => onSend(reset.action)}>▼ ${capital(reset.label)}</button></p>`
      : null}
    <div class="sn-reach" ref=${reach}>
      ${pick && mine
        ? html`<div class="sn-ask" role="group" aria-label="Your move">
            <p><strong>Taking ${pick.what}.</strong> ${breakAll
              ? "No strip you can reach takes this colour: every piece breaks."
              : chosen ? `${chosen.where}: choose how.` : "Choose a highlighted strip."}</p>
            <div class="row">
              ${breakAll
                ? html`<button type="button" data-move="break" aria-label=${`${pick.what}${STEP}${breakAll.where}`}
                    onClick=${() => onSend(breakAll.items[0].entry.action)}>${breakAll.where}</button>`
                : null}
              ${chosen
                ? chosen.items.map(({ entry, steps }, i) => html`<button key=${i} type="button" data-move="choose"
                    aria-label=${entry.label} title=${entry.label} onClick=${() => onSend(entry.action)}>${steps.slice(2).join(STEP) || entry.label}</button>`)
                : null}
            </div>
          </div>`
        : null}
      <div class="sn-cols">
        ${board.strips.map((_, slot) => {
          const group = mine ? bySlot.get(slot) : null;
          return html`<${Column} key=${slot} slot=${slot} board=${board} names=${names}
            points=${printed.window_points[slot]} reachable=${slot >= board.glazier || !board.strips[slot]}
            target=${group ? { label: `${pick.what}${STEP}${group.where}` } : null}
            chosen=${slotChosen === slot} onTarget=${() => onTarget(slot)} />`;
        })}
        ${ornaments
          ? ornaments.map(({ pair, filled, points }, i) => html`<div key=${`o${i}`} class=${`sn-orn${filled >= 2 ? " sn-lit" : ""}`}
              style=${{ gridColumn: `${Math.min(...pair) + 1} / ${Math.max(...pair) + 2}` }}
              aria-label=${`ornament between windows ${pair.map((w) => w + 1).join(" and ")}: ${filled} of 4 spaces, ${points} points at the end`}
              title=${`ornament: ${filled} of 4 spaces filled, ${points} points at the end`}>◆ ${filled}/4 · ${points}\u00a0pt</div>`)
          : null}
      </div>
    </div>
    ${b ? html`<p class="muted">End bonus (side B): ${plural(b.full, "full window")} × ${b.best} ${b.name} = ${b.points} pt</p>` : null}
    ${board.final
      ? html`<p class="sn-final">Final scoring: ${board.final.before_final} before,
          leftover glass ${signed(board.final.leftover)}, broken glass ${signed(board.final.broken_glass)},
          palace bonus ${signed(board.final.palace_bonus)} → <strong>${board.score} pts</strong>${
            floored(board.final, board.score) ? " (a score never drops below 0)" : ""}</p>`
      : null}
  </section>`;
}

/** Whether the final scoring's steps add up to less than the score: it stopped at 0. */
function floored(final, score) {
  return final.before_final + final.leftover + final.broken_glass + final.palace_bonus !== score;
}

/** A seat's score details (the result's `details`) in words: see clients/web/static/games/README.md. */
export function resultDetails(final, { score }) {
  if (!final) return "";
  const steps = `${final.before_final} points before the final scoring, ${signed(final.leftover)} for glass left on
    the strips, ${signed(final.broken_glass)} for broken glass, ${signed(final.palace_bonus)} palace bonus`;
  const floor = floored(final, score) ? " (a score never drops below 0)" : "";
  return `${steps.replace(/\s+/g, " ")}${floor}; tie-break: ${plural(final.glass_lost, "point")} lost to broken glass over the whole game, each −18 at the bottom included (fewer is better).`;
}

/** Board({doc, seat, legal, send}): see clients/web/static/games/README.md. */
export function Board({ doc, seat, legal, send }) {
  const game = doc.game;
  const names = game.printed.colors;
  const { picks, reset } = useMemo(() => plan(legal), [legal]);
  const [picked, setPicked] = useState(null);
  useEffect(() => setPicked(null), [legal]);
  const pick = picked === null ? null : picks.get(picked) || null;

  function onPick(p) {
    if (p.entries.length === 1) send(p.entries[0].entry.action);
    else setPicked(picked === p.key ? null : p.key);
  }

  const order = game.boards.map((_, s) => s);
  if (seat !== null) order.sort((a, b) => (a === seat ? -1 : b === seat ? 1 : a - b));
  return html`<div class="sn-board">
    <${Table} doc=${doc} game=${game} seat=${seat} names=${names} picks=${picks} picked=${picked} onPick=${onPick} />
    ${seat !== null && legal.length && !pick
      ? html`<p class="muted sn-hint">Click a colour on a factory or in the centre, then one of your strips.</p>`
      : null}
    <div class="sn-palaces">
      ${order.map((s) => html`<${Palace} key=${s} doc=${doc} game=${game} s=${s} mine=${s === seat}
        names=${names} pick=${s === seat ? pick : null} reset=${s === seat ? reset : null} onSend=${send} />`)}
    </div>
  </div>`;
}
