// Crystal Palace's board: the season and phase, the eight locations with their placement
// and action spaces (costs, fees, bonuses, the dice on them), the displays (patents,
// characters, research tiles, shares), the Black Market, the Westminster and buzz tracks,
// and every player's public area. Secret steps (phase 1's dice, the final repayment) show
// who is ready, never what another seat chose: the view does not carry it.
// Names, costs and effects come from the engine's component data (data.js); cards and
// resource icons are drawn by cards.js.
// It follows the Board contract of clients/web/static/games/README.md.

import { followFocus, html, listed, nameRun, nameText, useEffect, useRef, useState, useUniqueId } from "/static/common.js";
import { CharacterCard, Cost, Effect, Icon, Move, PatentCard, ShareCard, TileCard } from "./cards.js";
import {
  ACTIONS,
  CHARACTERS,
  DATA,
  NATIONS,
  PATENTS,
  PHASES,
  PUBLISHERS,
  SCORES,
  SHARES,
  TILES,
  bonusText,
  characterDoes,
  choiceText,
  costText,
  count,
  effectText,
  goalText,
  lastStep,
  layout,
  locationOrder,
  matching,
  minus,
  ordinal,
  seatName,
  tileText,
} from "./data.js";


function Die({ seat, value, label, cls = "" }) {
  const hidden = value === null || value === undefined;
  return html`<span class=${`cp-die cp-c${seat} ${hidden ? "cp-back" : ""} ${cls}`} role="img"
    aria-label=${label} title=${label}>${hidden ? "" : value}</span>`;
}

// -- the status line and the secret steps ---------------------------------------------------

function Status({ doc, game }) {
  const season = DATA.rounds[Math.min(game.round, DATA.rounds.length - 1)];
  const publisher = PUBLISHERS[game.publisher];
  return html`<div class="cp-status">
    <p><strong>${season}</strong> <span class="muted">· season ${Math.min(game.round + 1, DATA.rounds.length)} of ${DATA.rounds.length}</span>${game.finished ? html` · <strong>the game is over: the exhibition opens</strong>` : null}</p>
    <ol class="cp-phases" aria-label="Phases of the season">
      ${PHASES.map(([phase, text]) => html`<li class=${game.phase === phase ? "cp-now" : ""}
        aria-current=${game.phase === phase ? "step" : null}>${phase === "final" ? "end" : phase}: ${text}</li>`)}
    </ol>
    <p class="cp-order"><span class="muted">Player order: </span>
      ${game.order.map((s, i) => html`${i ? " → " : ""}<span class=${`cp-name cp-t${s}`}>${seatName(doc, s)}</span>`)}</p>
    <p class="muted">London Times publisher: <strong class="cp-ink">${publisher.name}</strong>${" "}
      (${publisher.choices.map((c) => effectText(c)).join(" or ")}${publisher.leftmost_bonus
        ? `; leftmost space: ${effectText(publisher.leftmost_bonus)}` : ""}) ·
      tickets at the Port: ${game.tickets} · loan tiles left: ${game.loans}</p>
  </div>`;
}

/** Phase 1, this seat's dice: a value chosen for each die in turn, kept on the page (a
 * choice may be taken back) until the last one, which plays them all as one choice (one
 * confirmation where the room asks for one), each die its own intent. */
function SetDice({ seat, mine, legal, send }) {
  const [draft, setDraft] = useState([]);
  const faces = matching(legal, { type: "die" });
  const group = useRef(null);
  const tookBack = useRef(false);
  // A die set (by this page or the move list) or a die added: start the choice again.
  useEffect(() => setDraft([]), [mine.secret.length, mine.dice]);
  useEffect(() => {
    if (tookBack.current && group.current) group.current.querySelector("button").focus();
    tookBack.current = false;
  }, [draft]);
  const left = mine.dice - mine.secret.length;
  const chosen = draft.slice(0, left);
  const play = (values) => {
    const actions = values.map((v) => faces.find((entry) => entry.action.value === v).action);
    const pips = [...mine.secret, ...values].reduce((a, b) => a + b, 0);
    if (actions.length === 1) return send(actions[0]);
    return send(actions, `set your ${mine.secret.length ? "other " : ""}dice to ${listed(values.map(String))} (${pips} pips in all, £1 each)`);
  };
  const pick = (value) => {
    const next = [...chosen, value];
    setDraft(next);
    if (next.length === left) play(next);
  };
  const shown = [...mine.secret, ...chosen];
  const which = shown.length + 1;
  return html`<div class="cp-mydice">
      <span class="muted">Your dice (nobody else sees them until all are ready):</span>
      ${Array.from({ length: mine.dice }, (_, i) => html`<${Die} seat=${seat} value=${shown[i] ?? null}
        cls=${i >= mine.secret.length && i < shown.length ? "cp-draft" : ""}
        label=${i < mine.secret.length ? `your die ${i + 1}: ${shown[i]}`
          : i < shown.length ? `your die ${i + 1}: ${shown[i]}, chosen, not played yet` : `your die ${i + 1}: not set`} />`)}
      <span class="muted">£${shown.reduce((a, b) => a + b, 0)} so far</span>
      ${chosen.length && faces.length ? html`<button type="button" class="secondary cp-back-one"
        onClick=${() => { tookBack.current = true; setDraft(chosen.slice(0, -1)); }}>Take back die ${shown.length}</button>` : null}
    </div>
    ${faces.length && chosen.length < left ? html`<p class="muted cp-small">Choose a value for each die: the last one plays them all${
      chosen.length ? "" : " (£1 a pip)"}.</p>
    <div class="cp-faces" role="group" aria-label=${`Choose die ${which} of ${mine.dice}`} ref=${group}>
      ${faces.map((entry) => html`<button type="button" class="cp-move cp-face" data-move
        aria-label=${`die ${which} of ${mine.dice}: ${entry.action.value}${which === mine.dice ? ", and play your dice" : ""}`}
        onClick=${() => pick(entry.action.value)}>
        <${Die} seat=${seat} value=${entry.action.value} label=${`${entry.action.value}`} /> <span>£${entry.action.value}</span></button>`)}
    </div>` : null}
    ${faces.length && left > 0 && chosen.length === left ? html`<div class="cp-actions">
      <button type="button" class="cp-move" data-move onClick=${() => play(chosen)}>Play these dice</button></div>` : null}`;
}

/** Phase 1 and the final repayment: who is ready, and this seat's own choices. */
function Secret({ doc, game, seat, legal, send }) {
  const kind = game.step.kind;
  if (game.finished || (kind !== "dice" && kind !== "repay")) return null;
  const title = kind === "dice" ? "Phase 1: everyone sets their dice in secret" : "End of the game: loans are repaid in secret";
  const mine = seat === null ? null : game.seats[seat];
  return html`<section class="cp-secret" aria-label="Secret step">
    <h3>${title}</h3>
    <ul class="cp-ready">
      ${game.seats.map((p, s) => html`<li class=${`cp-ready-${p.ready ? "yes" : "no"}`} data-seat=${s}>
        <span class=${`cp-name cp-t${s}`}>${seatName(doc, s)}</span>
        <span>${p.ready ? "✓ ready" : kind === "dice" ? "… setting dice" : "… deciding"}</span>
      </li>`)}
    </ul>
    ${kind === "dice" && mine ? html`<${SetDice} seat=${seat} mine=${mine} legal=${legal} send=${send} />` : null}
    ${kind === "repay" && mine ? html`<p class="muted">You hold ${mine.loans} ${mine.loans === 1 ? "loan" : "loans"}${mine.loan_values && mine.loan_values.length ? ` (${mine.loan_values.map(minus).join(", ")} VP)` : ""}; repaying one costs £${DATA.loans.repay_cost} and scores ${minus(DATA.loans.repaid_vp)} VP instead.</p>` : null}
    ${kind === "repay" && matching(legal, { type: "repay" }).length ? html`<div class="cp-actions" role="group" aria-label="Repay loans">
      ${matching(legal, { type: "repay" }).map((entry) => html`<${Move} entry=${entry} send=${send}>${entry.action.count ? `Repay ${entry.action.count}` : "Repay none"}<//>`)}
    </div>` : null}
  </section>`;
}

// -- the step to finish now -----------------------------------------------------------------

// The steps whose controls sit at the top of the board already: the secret steps and the
// tray of dice to place.
const OWN_CONTROLS = new Set(["dice", "repay", "place"]);
// A seat's moves at any step, kept in its own area rather than repeated here.
const MINOR = new Set(["loan", "exchange"]);
const STEP_WORDS = {
  assistant: "your assistant action (Black Market, goal track or none)",
  resolve: "your action here",
  salary: "pay your characters' salaries",
  abilities: "use your characters",
  build: "build prototypes",
  target: "a patent built against you",
};

/** The choices of the step this seat must finish now (an assistant action after an "A"
 * space, a location's action, building…), which the board otherwise shows where they
 * live, often screens away on a phone: all of them at the top, brought into view as
 * the step begins. */
function Pending({ game, legal, send }) {
  const titled = useUniqueId("cp-pending");
  const box = useRef(null);
  const kind = game.step.kind;
  const moves = game.finished || OWN_CONTROLS.has(kind) ? [] : legal.filter(({ action }) => !MINOR.has(action.type));
  const at = game.queue.length ? game.queue[0][0] : "";
  useEffect(() => {
    if (moves.length && box.current) box.current.scrollIntoView({ block: "nearest" });
  }, [moves.length > 0, kind, at]);
  if (!moves.length) return null;
  return html`<section class="cp-pending" ref=${box} aria-labelledby=${titled}>
    <h3 id=${titled}>Now: ${STEP_WORDS[kind] || "your choice"}</h3>
    <div class="cp-actions" role="group" aria-label="Your choices now">
      ${moves.map((entry) => html`<${Move} entry=${entry} send=${send}>${entry.label}<//>`)}
    </div>
  </section>`;
}

// -- the locations --------------------------------------------------------------------------

function Location({ doc, game, location, number, legal, send, chosen }) {
  const side = layout(location, game.players);
  const board = game.board[location];
  const next = game.queue.length && game.queue[0][0] === location ? game.queue[0][1] : null;
  const publisher = PUBLISHERS[game.publisher];
  const here = legal.filter(({ action }) => ["act", "ticket", "decline", "compensation"].includes(action.type));
  const acting = next !== null && here.length;
  const used = (game.menus_used && game.menus_used[location]) || [];
  return html`<article class=${`cp-loc${next !== null ? " cp-next" : ""}`} aria-label=${`${number}. ${side.name}`}>
    <h4><span class="cp-num">${number}</span> ${side.name}</h4>
    <p class="cp-does">${location === "london_times"
      ? `${publisher.name}: ${publisher.choices.map((c) => effectText(c)).join(" or ")}`
      : ACTIONS[side.kind]}</p>
    ${side.menu ? html`<ul class="cp-menu">${side.menu.map((id) => html`<li class=${used.includes(id) ? "cp-used" : ""}>
      ${DATA.menu_options[id].text}${used.includes(id) ? " (taken this round)" : ""}</li>`)}</ul>` : null}
    <div class="cp-spaces" role="list" aria-label="Placement spaces">
      <span class="cp-row-name">place</span>
      ${side.placement.map((space, i) => {
        const held = board.placed[i];
        const needs = `${space.min}+${space.assistant ? ", assistant action" : ""}${space.fee ? `, fee £${space.fee}` : ""}`;
        const entry = chosen === null ? null : matching(legal, { type: "place", location, space: i, value: chosen })[0];
        const body = html`<span class="cp-need">${space.min}+${space.assistant ? html` <span class="cp-asst" title="assistant action">A</span>` : ""}${space.fee ? ` £${space.fee}` : ""}</span>
          ${held ? html`<${Die} seat=${held[0]} value=${held[1]} label=${`${nameText(seatName(doc, held[0]))}'s ${held[1]}`} />` : html`<span class="cp-free"></span>`}`;
        return html`<div role="listitem" class=${`cp-space${next === i ? " cp-acting" : ""}`} title=${`placement space ${i + 1}: needs ${needs}`}>
          ${entry ? html`<${Move} entry=${entry} send=${send} cls="cp-spot">${body}<//>` : body}
        </div>`;
      })}
    </div>
    <div class="cp-spaces cp-act-row" role="list" aria-label="Action spaces">
      <span class="cp-row-name">act</span>
      ${side.action.map((bonus, i) => {
        const held = board.acted[i];
        const shown = location === "london_times" && i === 0 && publisher.leftmost_bonus ? publisher.leftmost_bonus : bonus;
        return html`<div role="listitem" class="cp-space cp-action" title=${`action space ${i + 1}: ${bonusText(shown)}`}>
          <span class="cp-need">${Object.keys(shown).length ? html`<${Effect} effect=${shown} />` : html`<span class="muted">no bonus</span>`}</span>
          ${held ? html`<${Die} seat=${held[0]} value=${held[1]} label=${`${nameText(seatName(doc, held[0]))}'s ${held[1]}`} />` : html`<span class="cp-free"></span>`}
        </div>`;
      })}
    </div>
    ${acting ? html`<div class="cp-actions" role="group" aria-label=${`Your action at ${side.name}`}>
      ${here.map((entry) => html`<${Move} entry=${entry} send=${send}>${choiceText(entry)}<//>`)}
    </div>` : null}
  </article>`;
}

function Locations({ doc, game, seat, legal, send }) {
  const titled = useUniqueId("cp-locations");
  const places = matching(legal, { type: "place" });
  const values = [...new Set(places.map((e) => e.action.value))].sort((a, b) => b - a);
  const [picked, pick] = useState(null);
  const chosen = values.includes(picked) ? picked : values.length ? values[0] : null;
  const pass = matching(legal, { type: "pass" })[0];
  return html`<section aria-labelledby=${titled}>
    <h3 id=${titled}>London: the eight locations, resolved in this order</h3>
    <p class="muted cp-small">Place: the spaces a die may take (5+ = showing at least 5; A = then an
      assistant action; £2 = a fee). Act: the action spaces, filled left to right in phase 3, with their bonus.</p>
    ${values.length || pass ? html`<div class="cp-tray" role="group" aria-label="Your dice to place">
      <span>Place a die: pick one, then a placement space it may take.</span>
      ${values.map((v) => html`<button type="button" class=${`cp-pick${v === chosen ? " cp-picked" : ""}`}
        aria-pressed=${v === chosen} aria-label=${`use your ${v}`} onClick=${() => pick(v)}>
        <${Die} seat=${seat} value=${v} label=${`${v}`} /></button>`)}
      ${pass ? html`<${Move} entry=${pass} send=${send}>Pass<//>` : null}
    </div>` : null}
    <div class="cp-locs">
      ${locationOrder(game.options).map((location, i) => html`<${Location} key=${location} doc=${doc} game=${game}
        location=${location} number=${i + 1} legal=${legal} send=${send} chosen=${chosen} />`)}
    </div>
  </section>`;
}

// -- the displays ---------------------------------------------------------------------------

function pickFor(legal, field, id) {
  return legal.find(({ action }) => (action.type === "act" || action.type === "ticket") && action[field] === id);
}

function Displays({ game, legal, send }) {
  const titled = useUniqueId("cp-displays");
  const round = game.round;
  const pile = (stack, what) => html`<div class="cp-card cp-stack">
    <span class="cp-card-head">${stack.stack} ${what}</span>
    <span class="cp-card-body muted">${stack.top ? `in the stack; on top: ${(PATENTS[stack.top] || CHARACTERS[stack.top]).name}` : "in the stack"}</span>
  </div>`;
  return html`<section aria-labelledby=${titled}>
    <h3 id=${titled}>Patents, characters, research and shares</h3>
    <h4>Patent Office: patents</h4>
    <div class="cp-cards">
      ${game.patents.row.map((id) => html`<${PatentCard} key=${id} id=${id} round=${round} entry=${pickFor(legal, "card", id)} send=${send} />`)}
      ${pile(game.patents, "patents")}
    </div>
    <h4>Reform Club: characters</h4>
    <div class="cp-cards">
      ${game.characters.row.map((id) => html`<${CharacterCard} key=${id} id=${id} round=${round} entry=${pickFor(legal, "card", id)} send=${send} />`)}
      ${pile(game.characters, "characters")}
    </div>
    <h4>British Museum: research tiles</h4>
    <div class="cp-cards">
      ${game.museum.map((id, i) => html`<${TileCard} key=${id} id=${id} number=${i + 1} entry=${pickFor(legal, "tile", id)} send=${send} />`)}
      <div class="cp-card cp-stack"><span class="cp-card-head">${game.green} green tiles</span>
        <span class="cp-card-body muted">face down; violet: ${game.violet.blue} blue box, ${game.violet.orange} orange box</span></div>
    </div>
    <h4>Bank of England: shares</h4>
    <div class="cp-cards">
      ${game.bank.map((id) => html`<${ShareCard} key=${id} id=${id} entry=${pickFor(legal, "share", id)} send=${send} />`)}
      <div class="cp-card cp-stack"><span class="cp-card-head">Shares to come</span>
        <span class="cp-card-body muted">${game.share_piles.map((n, s) => n ? `${DATA.rounds[s]}: ${n}` : null).filter(Boolean).join(" · ") || "none"}</span></div>
    </div>
  </section>`;
}

// -- the Black Market and the tracks --------------------------------------------------------

function Market({ doc, game, legal, send }) {
  const titled = useUniqueId("cp-market");
  const size = DATA.black_market.spaces_by_players[String(game.players)];
  const moves = legal.filter(({ action }) => action.type === "market");
  return html`<section aria-labelledby=${titled}>
    <h3 id=${titled}>Black Market</h3>
    <p class="muted">An assistant on a space costs its price; each phase 6 it gives its reward.</p>
    ${moves.length ? html`<div class="cp-actions" role="group" aria-label="Assistant actions">
      ${moves.map((entry) => html`<${Move} entry=${entry} send=${send}>${entry.label.replace(/^Black Market: /, "").replace(/ \(each phase 6.*$/, "")}<//>`)}
    </div>` : null}
    <ol class="cp-market">
      ${DATA.black_market.spaces.slice(0, size).map((space, i) => {
        const holder = game.market[i];
        return html`<li class="cp-mspace">
          <span class="cp-num">${i + 1}</span>
          <span>£${space.cost}</span>
          <${Effect} effect=${space.reward} />
          ${game.market_gears.includes(i) ? html`<span class="cp-gear" title="+1 gear for the first assistant here">+1 gear</span>` : null}
          ${holder === null || holder === undefined ? null
            : html`<span class=${`cp-token cp-c${holder}`} role="img" aria-label=${`${seatName(doc, holder)}'s assistant`}></span>`}
        </li>`;
      })}
    </ol>
  </section>`;
}

function Tracks({ doc, game }) {
  const titled = useUniqueId("cp-tracks");
  const track = DATA.westminster_track;
  const top = DATA.limits.buzz;
  return html`<section aria-labelledby=${titled}>
    <h3 id=${titled}>Tracks</h3>
    <h4>Westminster</h4>
    <ol class="cp-west">
      ${track.map((bonus, i) => html`<li>
        <span class="cp-num">${i + 1}</span><${Effect} effect=${bonus} />
        <span class="cp-tokens">${game.seats.map((p, s) => p.westminster === i + 1
          ? html`<span class=${`cp-token cp-c${s}`} role="img" aria-label=${`${seatName(doc, s)} is here`}></span>` : null)}</span>
      </li>`)}
    </ol>
    <p class="muted">Beyond step ${track.length}: ${effectText(DATA.westminster_beyond)} a step.</p>
    <h4>Buzz</h4>
    <div class="cp-buzz" role="img" aria-label=${game.seats.map((p, s) => `${seatName(doc, s)}: ${p.buzz} buzz`).join(", ")}>
      <span class="cp-mark" style=${{ left: "0%" }}>0</span>
      ${DATA.buzz_thresholds.map(([at, bonus]) => html`<span class="cp-mark" style=${{ left: `${(100 * at) / top}%` }}
        title=${`${at} buzz: ${effectText(bonus)}`}>${at}</span>`)}
      ${game.seats.map((p, s) => html`<span class=${`cp-token cp-c${s} cp-on`}
        style=${{ left: `${(100 * Math.min(p.buzz, top)) / top}%`, top: `${4 + 9 * s}px` }}></span>`)}
    </div>
    <p class="muted cp-small">First reaching ${DATA.buzz_thresholds.map(([at, bonus]) => `${at}: ${effectText(bonus)}`).join(" · ")}</p>
  </section>`;
}

// -- the players ----------------------------------------------------------------------------

function Chips({ title, items }) {
  if (!items.length) return null;
  return html`<div class="cp-chips"><span class="muted">${title}:</span>
    ${items.map(([text, tip]) => html`<span class="cp-chip" title=${tip}>${text}</span>`)}</div>`;
}

function DiceLine({ doc, game, s, p, mine }) {
  if (game.phase === 1 && !game.finished) {
    if (mine) return null;
    return html`<p class="cp-dice">Dice: ${Array.from({ length: p.dice }, (_, i) => html`<${Die} seat=${s} value=${null}
      label=${`hidden die ${i + 1}`} />`)} <span class="muted">${p.ready ? "ready (values hidden)" : "setting…"}</span></p>`;
  }
  if (!p.rolled.length) return html`<p class="cp-dice muted">${p.dice} dice</p>`;
  const left = [...p.unplaced];
  return html`<p class="cp-dice">Dice: ${p.rolled.map((v) => {
    const at = left.indexOf(v);
    if (at >= 0) left.splice(at, 1);
    return html`<${Die} seat=${s} value=${v} cls=${at >= 0 ? "" : "cp-placed"}
      label=${`${v}${at >= 0 ? ", not placed yet" : ", placed on the board"}`} />`;
  })} ${p.passed ? html`<span class="muted">passed</span>` : null}</p>`;
}

function Player({ doc, game, s, seat, legal, send }) {
  const p = game.seats[s];
  const mine = s === seat;
  const nation = NATIONS[p.nation];
  const acting = doc.status === "playing" && doc.to_act.includes(s);
  const secretStep = ["dice", "repay"].includes(game.step.kind) && !game.finished;
  const free = mine ? legal.filter(({ action }) => ["loan", "exchange", "pay", "accept", "skip", "goal", "done"].includes(action.type)) : [];
  const abilities = mine ? matching(legal, { type: "ability" }) : [];
  const builds = mine ? matching(legal, { type: "build" }) : [];
  const stats = [
    ["money", `£${p.money}`, "money", "money"],
    ["loans", game.finished && p.repaid ? `${p.loans} (${p.repaid} repaid)` : p.loans, "loans: +£10 each, VP lost at the end", "loans"],
    ["gears", p.gears, "gears", "gears"], ["energy", p.energy, "energy", "energy"],
    ["newspapers", `${p.newspapers}/${DATA.limits.newspapers}`, "newspapers", "newspapers"],
    ["income", p.income, "income step", "income"], ["buzz", p.buzz, "buzz", "buzz"],
    ["VP", p.vp, "victory points so far", "vp"],
    ["Westminster", p.westminster, "Westminster step", "westminster"],
    ["assistants", p.assistants, "assistants in hand", "assistants"],
    ["tickets", p.tickets, "tickets", "ticket"],
  ];
  return html`<article class=${`cp-player cp-b${s}${acting ? " cp-acting" : ""}`} data-seat=${s}
    aria-label=${`${seatName(doc, s)}, seat ${s + 1}`}>
    <h4><span class=${`cp-token cp-c${s}`} aria-hidden="true"></span> ${nameRun(seatName(doc, s))}${mine ? " (you)" : ""}
      <span class="muted cp-small">seat ${s + 1} · ${nation.name}${game.order.includes(s) ? ` · ${ordinal(game.order.indexOf(s) + 1)} in turn order` : ""}</span>
      ${acting ? html`<span class="badge waiting">${secretStep ? "choosing" : mine ? "your turn" : "to play"}</span>` : null}</h4>
    <dl class="cp-stats">${stats.map(([name, value, tip, kind]) => html`<div title=${tip}><dt><${Icon} kind=${kind} name=${name} /></dt><dd>${value}</dd></div>`)}</dl>
    <p class="cp-small">Goal (${nation.name}): level ${p.goal} of ${DATA.limits.goal_levels}, ${DATA.goal_vp[p.goal]} VP
      · next: ${goalText(nation, p.goal)}${p.goal < DATA.limits.goal_levels ? ` (${DATA.goal_vp[p.goal + 1]} VP)` : ""}</p>
    ${mine && !game.finished && p.loan_values && p.loan_values.length ? html`<p class="cp-small">Your loans score ${p.loan_values.map(minus).join(", ")} VP at the end <span class="muted">(others see only how many)</span></p>` : null}
    <${DiceLine} doc=${doc} game=${game} s=${s} p=${p} mine=${mine} />
    ${game.step.kind === "repay" && !game.finished ? html`<p class="cp-small muted">${mine ? `repaid: ${p.repaid}` : "what they repay stays hidden until everyone is ready"}</p>` : null}
    ${p.patents.length ? html`<div class="cp-chips"><span class="muted">Patents to build:</span>
      ${p.patents.map((id) => {
        const here = builds.filter((e) => e.action.card === id);
        return html`<span class="cp-chip" title=${`build for ${costText(PATENTS[id].cost)}; effect on a player: ${effectText(PATENTS[id].target, "lose")}`}>${PATENTS[id].name}
          ${here.map((entry) => html` <${Move} entry=${entry} send=${send} cls="cp-mini">build, effect on ${entry.action.target === seat ? "you" : nameRun(seatName(doc, entry.action.target))}<//>`)}</span>`;
      })}</div>` : null}
    <${Chips} title="Prototypes" items=${p.prototypes.map((id) => [PATENTS[id].name, `built: effect ${effectText(PATENTS[id].target, "lose")}`])} />
    ${p.characters.length ? html`<div class="cp-chips"><span class="muted">Characters:</span>
      ${p.characters.map((id) => {
        const entry = abilities.find((e) => e.action.card === id);
        const card = CHARACTERS[id];
        return entry ? html`<${Move} entry=${entry} send=${send} cls="cp-mini">use ${card.name}<//>`
          : html`<span class="cp-chip" title=${`salary £${card.salary}; ${characterDoes(card)}`}>${card.name}</span>`;
      })}</div>` : null}
    <${Chips} title=${`Research (${p.research.length} of ${DATA.limits.research_spaces})`} items=${p.research.map((id) => [tileText(id), TILES[id] ? `${TILES[id].color} tile` : ""])} />
    <${Chips} title="Shares" items=${p.shares.map((id) => [`${DATA.rounds[SHARES[id].season]} share`, effectText(SHARES[id].gain)])} />
    ${free.length ? html`<div class="cp-actions" role="group" aria-label="Your other moves">
      ${free.map((entry) => html`<${Move} entry=${entry} send=${send} cls=${["loan", "exchange"].includes(entry.action.type) ? "cp-minor" : ""}>${short(entry)}<//>`)}
    </div>` : null}
  </article>`;
}

function short(entry) {
  const { action, label } = entry;
  if (action.type === "loan") return "Take a loan (+£10)";
  if (action.type === "exchange") return label.replace(/^spend /, "Spend ");
  if (action.type === "skip") return "No assistant action";
  if (action.type === "goal") return "Advance on the goal track";
  if (action.type === "done") return "Build nothing more";
  return label.split(":")[0].replace(/^./, (c) => c.toUpperCase());
}

function Final({ doc, game }) {
  const titled = useUniqueId("cp-final");
  if (!game.final) return null;
  return html`<section aria-labelledby=${titled}>
    <h3 id=${titled}>Final scoring</h3>
    <div class="scroll-x"><table class="cp-score">
      <thead><tr><th scope="col">VP from</th>${doc.seats.map((_, s) => html`<th scope="col"><span class=${`cp-name cp-t${s}`}>${seatName(doc, s)}</span></th>`)}</tr></thead>
      <tbody>
        ${SCORES.map(([key, text]) => html`<tr><th scope="row">${text}</th>${game.final.map((f) => html`<td>${minus(f[key])}</td>`)}</tr>`)}
        <tr class="cp-total"><th scope="row">total</th>${game.final.map((f) => html`<td>${minus(f.total)}</td>`)}</tr>
        <tr><th scope="row">money left (tie-break)</th>${game.final.map((f) => html`<td>£${f.money}</td>`)}</tr>
      </tbody>
    </table></div>
  </section>`;
}

/** A seat's score details (the result's `details`) in words: see clients/web/static/games/README.md. */
export function resultDetails(final) {
  if (!final) return "";
  const parts = SCORES.filter(([key]) => final[key]).map(([key, text]) => `${minus(final[key])} ${key === "play" ? text : `for ${text}`}`);
  return `${parts.length ? parts.join(", ") : "no VP"}; tie-break: £${final.money} left, then Westminster step ${final.westminster}.`;
}

// The controls of the decision this seat makes now, first to last on the board: a step
// to finish (after an assistant space…), a die to set or loans to repay in secret, the
// die picked to place (or Pass).
const NEXT = ".cp-pending [data-move], .cp-secret [data-move], .cp-tray .cp-picked, .cp-tray [data-move]";

/** Board({doc, seat, legal, send}): Crystal Palace as a player at the table sees it. */
export function Board({ doc, seat, legal, send }) {
  const playersTitle = useUniqueId("cp-players");
  const root = useRef(null);
  // As this seat's moves change (a move made, its turn come), a keyboard player goes on
  // from its next decision (the next die to set…), not from the board's frame.
  useEffect(() => {
    const next = root.current && root.current.querySelector(NEXT);
    if (next && !document.activeElement?.matches(NEXT)) followFocus(next, root.current);
  }, [legal]);
  const game = doc.game;
  const seats = game.seats.map((_, s) => s);
  const ordered = seat === null ? seats : [seat, ...seats.filter((s) => s !== seat)];
  return html`<div class="cp-board" ref=${root}>
    <${Pending} game=${game} legal=${legal} send=${send} />
    <${Secret} doc=${doc} game=${game} seat=${seat} legal=${legal} send=${send} />
    <${Status} doc=${doc} game=${game} />
    <${Final} doc=${doc} game=${game} />
    <${Locations} doc=${doc} game=${game} seat=${seat} legal=${legal} send=${send} />
    <section aria-labelledby=${playersTitle}>
      <h3 id=${playersTitle}>Players</h3>
      <div class="cp-players">
        ${ordered.map((s) => html`<${Player} key=${s} doc=${doc} game=${game} s=${s} seat=${seat} legal=${legal} send=${send} />`)}
      </div>
    </section>
    <${Displays} game=${game} legal=${legal} send=${send} />
    <div class="cp-two">
      <${Market} doc=${doc} game=${game} legal=${legal} send=${send} />
      <${Tracks} doc=${doc} game=${game} />
    </div>
  </div>`;
}
