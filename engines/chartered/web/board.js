// Chartered: The Golden Age's board (clients/web/static/games/README.md's contract). The map of the canal
// ring with its blocks, canals and bridges (rules/chartered.md §5.2), each plot with its
// company, floors, HQ and flag; the stock market (values, bank shares, flags, share
// prices); the open market and the deck; this seat's hand with what each card would do
// now; every player's cash, shares, flags and hand as a count of backs.
//
// The fixed data (plot graph, canals and bridges, company names, prices) is
// board.json, generated from the engine by engines/chartered/web_data.py. Colours
// are presentation only: style.css, `.ch-co-<company>` and `.ch-seat-<n>`.
//
// Moves: a plot, a hand card, a market card, the deck or a company's button makes the
// move its legal entry says. A plot or card with several moves (a level card's targets,
// a founding's free warehouses) is selected first; its moves then show under the map or
// under your hand, brought into view, and the other spots sharing one of them become
// that move.

import { bringIntoView, followFocus, html, nameRun, nameText, useEffect, useMemo, useRef, useState, useUniqueId } from "/static/common.js";

const DATA = await fetch(new URL("./board.json", import.meta.url)).then((answer) => {
  if (!answer.ok) throw new Error(`board.json: HTTP ${answer.status}`);
  return answer.json();
});

const STEP = " → ";
const COMPANIES = Object.fromEntries(DATA.companies.map((c) => [c.id, c]));
const BLOCKS = "ABCDEFGH";
const STEPS = {
  buy: "buying a card",
  company: "choosing the company to found",
  layout: "placing the new company's two free warehouses",
  boost: "choosing which merging company gets +ƒ10",
  pair: "choosing which two companies merge first",
  survivor: "choosing the survivor of a tie",
  trade: "trading shares or buying a flag",
  forced: "selling shares to afford a card",
  sell: "selling shares for an event card",
};

const money = (n) => (n < 0 ? `−ƒ${-n}` : `ƒ${n}`);
const companyName = (id) => (COMPANIES[id] ? COMPANIES[id].name : String(id));
const letter = (id) => companyName(id)[0];
const seatName = (doc, s) => doc.seats[s] || `seat ${s + 1}`;
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const lastStep = (label) => label.split(STEP).pop();

/** The geometry of a board side: plots by number, canals with their bridge columns. */
function geometry(side) {
  const data = DATA.sides[side];
  const byPlot = Object.fromEntries(data.plots.map((p) => [p.plot, p]));
  const canals = data.canals.map((canal) => ({
    ...canal,
    columns: new Set(canal.bridges.map(([a]) => byPlot[a].column)),
  }));
  return { ...data, byPlot, canals };
}

const GEOMETRY = { harbor: geometry("harbor"), center: geometry("center") };

/** Occupied plots and every plot within the buffer of one: closed to new companies (§5.4). */
function closedPlots(game, geo) {
  const found = new Map();
  for (const p of geo.plots) if (game.plots[p.plot]) found.set(p.plot, 0);
  const queue = [...found.keys()];
  while (queue.length) {
    const plot = queue.shift();
    if (found.get(plot) === game.options.buffer) continue;
    for (const near of geo.byPlot[plot].neighbours) {
      if (!found.has(near)) {
        found.set(near, found.get(plot) + 1);
        queue.push(near);
      }
    }
  }
  return new Set(found.keys());
}

function canFound(game, geo, closed, hq) {
  if (closed.has(hq)) return false;
  if (Object.keys(game.companies).length >= DATA.companies.length) return false;
  if (game.supply < DATA.founding_warehouses) return false;
  return geo.byPlot[hq].neighbours.some((a) => !closed.has(a)
    && [...geo.byPlot[hq].neighbours, ...geo.byPlot[a].neighbours].some((b) => b !== hq && b !== a && !closed.has(b)));
}

function adjacentCompanies(game, geo, plot) {
  const near = new Set(geo.byPlot[plot].neighbours.map((n) => game.plots[n] && game.plots[n][0]).filter(Boolean));
  return [...near].sort();
}

/** What a card would do if built now, in the engine's words (engine.card_effect). */
function cardEffect(game, geo, closed, card) {
  const step = DATA.stock.step;
  if (card.kind === "level") {
    return { kind: "level", text: `+ƒ${card.level * step} to a company, on a height-${card.level - 1} plot` };
  }
  const plot = card.plot;
  if (game.finished) return { kind: "blocked", text: "not built: the game is over" };
  if (!geo.byPlot[plot]) return { kind: "blocked", text: "cannot be built now" };
  const held = game.plots[plot];
  if (held) {
    const cap = game.options.stack_cap;
    if (cap && held[1] >= cap) return { kind: "blocked", text: "cannot be built now" };
    return { kind: "stack", companies: [held[0]], text: `would stack on ${companyName(held[0])}, +ƒ${step}` };
  }
  const near = adjacentCompanies(game, geo, plot);
  if (near.length === 1) return { kind: "expand", companies: near, text: `would expand ${companyName(near[0])}, +ƒ${step}` };
  if (near.length > 1) return { kind: "merge", companies: near, text: `would merge ${near.map(companyName).join(" + ")}` };
  if (canFound(game, geo, closed, plot)) return { kind: "found", text: "would found a company" };
  return { kind: "blocked", text: "cannot be built now" };
}

/** The board spots a legal action belongs to: `plot:N`, `card:ID`, `market:I`, `deck`,
 * `company:ID`, or `other` (left to the move list and the action row). */
function spotsOf(action, hand) {
  switch (action.type) {
    case "build": {
      const card = (hand || []).find((c) => c.id === action.card);
      if (!card) return ["other"];
      if (card.kind === "plot") return [`card:${card.id}`, `plot:${card.plot}`];
      // The engine offers the first of identical level cards: any of them is the spot.
      const same = hand.filter((c) => c.kind === "level" && c.level === card.level);
      return [...same.map((c) => `card:${c.id}`), `plot:${action.plot}`];
    }
    case "layout":
      return action.plots.map((p) => `plot:${p}`);
    case "buy":
      return [action.from === "deck" ? "deck" : `market:${action.from}`];
    case "company":
    case "boost":
    case "survivor":
    case "sell":
    case "trade":
    case "flag":
      return [`company:${action.company}`];
    case "pair":
      return action.companies.map((c) => `company:${c}`);
    default:
      return ["other"];
  }
}

function useSpots(legal, hand) {
  return useMemo(() => {
    const spots = new Map();
    for (const entry of legal) {
      for (const key of spotsOf(entry.action, hand)) {
        if (!spots.has(key)) spots.set(key, []);
        spots.get(key).push(entry);
      }
    }
    return spots;
  }, [legal, hand]);
}

/** How a spot is drawn: a move (one entry), a selection (several), or nothing. */
function spotMode(key, spots, selected) {
  const entries = spots.get(key) || [];
  if (selected && selected !== key && spots.has(selected)) {
    const shared = entries.filter((e) => spots.get(selected).includes(e));
    if (shared.length === 1) return { move: shared[0], partner: true };
  }
  if (entries.length === 1) return { move: entries[0] };
  if (entries.length > 1) return { choose: entries };
  return null;
}

/** A spot's element: a move button, a selection button, or a plain element. */
function Spot({ mode, spotKey, selected, select, send, busy, cls, label, children, data = {} }) {
  if (mode && mode.move) {
    const { move } = mode;
    return html`<button type="button" class=${`${cls} ch-can${mode.partner ? " ch-partner" : ""}`} data-move="" aria-label=${move.label}
      title=${move.label} disabled=${busy} onClick=${() => send(move.action)} ...${data}>${children}</button>`;
  }
  if (mode && mode.choose) {
    const on = selected === spotKey;
    const text = `${label}: ${plural(mode.choose.length, "move")}, choose one`;
    return html`<button type="button" class=${`${cls} ch-choose${on ? " ch-selected" : ""}`}
      aria-pressed=${on ? "true" : "false"} aria-label=${text} title=${text}
      onClick=${() => select(on ? null : spotKey)} ...${data}>${children}</button>`;
  }
  return html`<div class=${cls} role="img" aria-label=${label} title=${label} ...${data}>${children}</div>`;
}

function Floors({ height }) {
  return html`<span class="ch-floors" aria-hidden="true">${Array.from({ length: height }, (_, i) => html`<i key=${i}></i>`)}</span>`;
}

function FlagIcon({ seat }) {
  return html`<svg class=${`ch-flag ch-seat-${seat}`} viewBox="0 0 12 14" aria-hidden="true">
    <path d="M2 1v12" /><path class="ch-flag-cloth" d="M2.5 1.5h8l-2 2.5 2 2.5h-8z" /></svg>`;
}

function Ship() {
  return html`<svg class="ch-ship" viewBox="0 0 40 24" aria-hidden="true">
    <path class="ch-hull" d="M3 15h34l-5 7H9z" /><path class="ch-mast" d="M20 2v13" />
    <path class="ch-sail" d="M21 3l10 10H21z" /><path class="ch-sail" d="M19 5l-8 8h8z" /></svg>`;
}

function plotText(doc, plot, held) {
  const game = doc.game;
  if (!held) return `plot ${plot}: empty`;
  const [company, height] = held;
  const hq = game.companies[company] && game.companies[company].hq === plot;
  const flag = hq && game.flags[company] !== undefined ? `, ${nameText(seatName(doc, game.flags[company]))}'s flag` : "";
  return `plot ${plot}: ${companyName(company)}${hq ? " headquarters" : ""}, ${plural(height, "floor")}${flag}`;
}

function MapView({ doc, geo, spots, selected, select, send, busy, mine }) {
  const game = doc.game;
  const rows = [];
  const columns = Array.from({ length: DATA.columns }, (_, c) => c);
  const atRow = (block, row) => geo.plots.filter((p) => p.block === block && p.row === row);
  rows.push(html`<div class="ch-label ch-water-label" aria-hidden="true">≈</div>
    <div class="ch-harbour"><span>Harbour</span><${Ship} /><${Ship} /></div>`);
  for (let block = 0; block < geo.blocks; block += 1) {
    for (const row of [0, 1]) {
      if (row === 0) rows.push(html`<div class="ch-label ch-block-label" title=${`block ${BLOCKS[block]}`}>${BLOCKS[block]}</div>`);
      for (const p of atRow(block, row)) {
        const held = game.plots[p.plot];
        const key = `plot:${p.plot}`;
        const company = held && held[0];
        const hq = held && game.companies[company] && game.companies[company].hq === p.plot;
        const flag = hq ? game.flags[company] : undefined;
        const cls = ["ch-plot", held ? `ch-co-${company}` : "ch-empty", hq ? "ch-hq" : "", mine.has(p.plot) ? "ch-mine" : ""].join(" ");
        rows.push(html`<${Spot} key=${key} mode=${spotMode(key, spots, selected)} spotKey=${key} selected=${selected}
          select=${select} send=${send} busy=${busy} cls=${cls} label=${plotText(doc, p.plot, held)}>
          <span class="ch-num">${p.plot}</span>
          ${held ? html`<span class="ch-letter">${letter(company)}</span><${Floors} height=${held[1]} />` : null}
          ${hq ? html`<span class="ch-hq-mark" aria-hidden="true">HQ</span>` : null}
          ${flag !== undefined ? html`<${FlagIcon} seat=${flag} />` : null}
        <//>`);
      }
    }
    const canal = geo.canals[block];
    if (canal) {
      const pairs = canal.bridges.map(([a, b]) => `${a}–${b}`).join(" and ");
      rows.push(html`<div class="ch-label ch-water-label" aria-hidden="true">≈</div>`);
      rows.push(html`<div class="ch-canal" role="img" aria-label=${`canal ${block + 1}, bridges between plots ${pairs}`}>
        ${columns.map((c) => html`<span key=${c} class=${canal.columns.has(c) ? "ch-bridge" : "ch-water"}></span>`)}</div>`);
    }
  }
  const plots = geo.plots.length;
  return html`<div class="ch-map-box">
    <div class="ch-map" role="group" aria-label=${`The ${game.board} board: ${plots} plots in ${geo.blocks} blocks of 2 rows of ${DATA.columns}, canals between the blocks, crossed only at the bridges`}>
      ${rows}
    </div>
    <p class="ch-legend muted">A letter is the company on the plot, the dots its floors;
      <span class="ch-hq-key">HQ</span> its headquarters; plots next to each other touch, and across
      a canal only at a bridge.${mine.size ? " A dashed outline: a plot card in your hand." : ""}${
      spots.size ? " An orange frame: a move to make there (several: click to choose); blue: the move that completes your choice." : ""}</p>
  </div>`;
}

// A board part that makes a move, or selects a spot with several.
const MOVE_PART = "button[data-move]:not([disabled]), button.ch-choose";

/** A step that goes on with this seat's own move (the company to found, its warehouses,
 * the trades after a build…) has its first control brought to the top of the screen when
 * it is above the screen or low on it (the controls after it would be out of view): on a
 * phone those sit screens away from the plot or button just tapped (the stock market
 * under the map, the map above it). The focus follows. */
function useNextStepInView(root, step, ready) {
  useEffect(() => {
    const first = step && ready && root.current && root.current.querySelector(MOVE_PART);
    if (!first) return;
    const box = first.getBoundingClientRect();
    if (box.top < 0 || box.top > globalThis.innerHeight * 0.6) bringIntoView(first, "start");
    followFocus(first, root.current);
  }, [step, ready]);
}

/** The moves of the selected plot or card, brought into view as they appear (on a phone
 * a card of your hand is near the bottom of the screen, and its moves come under it),
 * the focus on the first. */
function Choices({ selected, spots, send, busy, select, kind }) {
  const box = useRef(null);
  const shown = !!selected && selected.startsWith(`${kind}:`) && spots.has(selected);
  useEffect(() => {
    if (!shown || !box.current) return;
    bringIntoView(box.current);
    const first = box.current.querySelector(MOVE_PART);
    if (first) followFocus(first, box.current.closest(".ch-board"));
  }, [shown, selected]);
  if (!shown) return null;
  const id = selected.split(":")[1];
  const first = spots.get(selected)[0].label.split(STEP)[0];
  const title = kind === "plot" ? `Plot ${id}` : `${first[0].toUpperCase()}${first.slice(1)} (or click a plot on the map)`;
  return html`<div class="ch-choices" ref=${box} role="group" aria-label=${`${title}: choose a move`}>
    <strong>${title}: choose</strong>
    ${spots.get(selected).map((entry) => html`<button type="button" data-move="" aria-label=${entry.label}
      title=${entry.label} disabled=${busy} onClick=${() => send(entry.action)}>${lastStep(entry.label)}</button>`)}
    <button type="button" class="secondary" onClick=${() => select(null)}>Cancel</button>
  </div>`;
}

// The bank's shares of a company as the view counts them: with hidden shares a count
// includes the other players' face-down shares that may be there ("up to"), but an empty
// bank is public and shown as such (engines/chartered/engine.py, _bank_shares_seen).
function bankShares(count, hidden) {
  if (count === 0) return "no shares left in the bank";
  return `${hidden ? "up to " : ""}${count} of ${DATA.shares_per_company} in the bank`;
}

function Stock({ doc, spots, send, busy }) {
  const titled = useUniqueId("ch-stock-title");
  const game = doc.game;
  const { min, max } = DATA.stock;
  const hidden = game.options.hidden_shares;
  const active = DATA.companies.filter((c) => game.companies[c.id]);
  const free = DATA.companies.filter((c) => !game.companies[c.id]);
  const moves = (id) => (spots.get(`company:${id}`) || []).map((entry) => html`<button type="button"
    class="ch-move" data-move="" aria-label=${entry.label} title=${entry.label} disabled=${busy}
    onClick=${() => send(entry.action)}>${shortMove(entry, id)}</button>`);
  return html`<section class="ch-stock" aria-labelledby=${titled}>
    <h3 id=${titled}>Stock market</h3>
    ${active.length === 0 ? html`<p class="muted">No company on the board yet.</p>` : null}
    <ul class="ch-companies">
      ${active.map((c) => {
        const info = game.companies[c.id];
        const flag = game.flags[c.id];
        const price = Math.max(DATA.prices.share_minimum, info.value);
        const share = ((info.value - min) / (max - min)) * 100;
        return html`<li key=${c.id} class=${`ch-company ch-co-${c.id}`}>
          <div class="ch-company-head">
            <span class="ch-swatch" aria-hidden="true">${letter(c.id)}</span>
            <span class="ch-company-name">${c.name} <span class="muted">(${c.commodity})</span></span>
            <strong class="ch-value">${money(info.value)}</strong>
          </div>
          <div class="ch-track" role="img" aria-label=${`value ${money(info.value)} on the chart from ${money(min)} to ${money(max)}`}>
            <span style=${{ width: `${Math.max(2, share)}%` }}></span></div>
          <p class="ch-company-facts">${`HQ on plot ${info.hq} · a share costs ${money(price)} · ${
            bankShares(game.bank_shares[c.id], hidden)}`}${flag !== undefined
            ? html` · <${FlagIcon} seat=${flag} /> ${nameRun(seatName(doc, flag))}'s flag` : null}</p>
          ${spots.has(`company:${c.id}`) ? html`<div class="ch-company-moves">${moves(c.id)}</div>` : null}
        </li>`;
      })}
    </ul>
    ${free.length
      ? html`<p class="ch-free-title muted">Not on the board${game.finished ? "" : " (free to found)"}:</p>
        <ul class="ch-free">${free.map((c) => html`<li key=${c.id} class=${`ch-co-${c.id}`}>
          <span class="ch-swatch" aria-hidden="true">${letter(c.id)}</span> ${c.name}
          <span class="muted">(${c.commodity})</span> ${moves(c.id)}</li>`)}</ul>`
      : null}
  </section>`;
}

/** A company button's short text: the label's last step, without the company's name. */
function shortMove(entry, company) {
  const a = entry.action;
  const price = (entry.label.match(/ƒ\d+/g) || []).pop() || "";
  switch (a.type) {
    case "trade":
      return a.op === "sell" ? `Sell 1 for ${price}` : `Buy 1${a.face_down ? " face down" : ""} for ${price}`;
    case "sell":
      return `Sell 1 for ${price}`;
    case "flag":
      return `Buy the flag for ${(entry.label.match(/ƒ\d+/) || [""])[0]}`;
    case "company":
      return "Found it";
    case "boost":
      return "Give it +ƒ10";
    case "survivor":
      return "Survives";
    case "pair":
      return `Merge with ${companyName(a.companies.find((c) => c !== company))} first`;
    default:
      return lastStep(entry.label);
  }
}

function Card({ card, effect, cls = "" }) {
  const head = card.kind === "level" ? `Level ${card.level}` : `Plot ${card.plot}`;
  return html`<span class=${`ch-card-face ch-${card.color} ch-${effect.kind} ${cls}`}>
    <span class="ch-card-head">${head}</span>
    <span class="ch-card-effect">${effect.text}</span>
  </span>`;
}

function Market({ doc, geo, closed, spots, send, busy, legal }) {
  const titled = useUniqueId("ch-market-title");
  const game = doc.game;
  const refresh = legal.find((e) => e.action.type === "refresh");
  const deck = spotMode("deck", spots, null);
  return html`<section class="ch-market" aria-labelledby=${titled}>
    <h3 id=${titled}>Open market <span class="muted">· ${money(DATA.prices.card)} a card</span></h3>
    <div class="ch-cards">
      <${Spot} mode=${deck} spotKey="deck" send=${send} busy=${busy} cls="ch-card ch-deck" label=${`the deck: ${plural(game.deck, "card")}, face down`}>
        <span class="ch-back" aria-hidden="true"></span>
        <span class="ch-deck-text">Deck<br />${plural(game.deck, "card")}</span>
      <//>
      ${game.market.map((card, i) => {
        const effect = cardEffect(game, geo, closed, card);
        const key = `market:${i}`;
        return html`<${Spot} key=${card.id} mode=${spotMode(key, spots, null)} spotKey=${key} cls="ch-card"
          label=${`market card ${i + 1}: ${card.kind === "level" ? `level ${card.level}` : `plot ${card.plot}`}, ${effect.text}`}
          data=${{ "data-card": card.id }} send=${send} busy=${busy}>
          <${Card} card=${card} effect=${effect} />
        <//>`;
      })}
      ${game.market.length ? null : html`<p class="muted">The market is empty.</p>`}
    </div>
    <p class="row ch-market-foot">
      <span class="muted">Discard pile: ${plural(game.discard, "card")}.</span>
      ${refresh
        ? html`<button type="button" class="secondary" data-move="" aria-label=${refresh.label} title=${refresh.label}
            disabled=${busy} onClick=${() => send(refresh.action)}>Replace the market (${money(DATA.prices.market_refresh)}) and buy</button>`
        : null}
    </p>
  </section>`;
}

function Hand({ game, geo, closed, spots, selected, select, send, busy }) {
  const titled = useUniqueId("ch-hand-title");
  const cards = [...game.hand].sort((a, b) => (a.kind === b.kind ? (a.plot ?? a.level) - (b.plot ?? b.level) : a.kind === "plot" ? -1 : 1));
  return html`<section class="ch-hand" aria-labelledby=${titled}>
    <h3 id=${titled}>Your hand <span class="muted">· ${plural(cards.length, "card")}, ${money(DATA.prices.card_left_in_hand)} each if still held at the end</span></h3>
    <div class="ch-cards">
      ${cards.map((card) => {
        const effect = cardEffect(game, geo, closed, card);
        const key = `card:${card.id}`;
        const label = `${card.kind === "level" ? `level ${card.level}` : `plot ${card.plot}`} in your hand: ${effect.text}`;
        return html`<${Spot} key=${card.id} mode=${spotMode(key, spots, selected)} spotKey=${key} selected=${selected}
          select=${select} send=${send} busy=${busy} cls="ch-card" label=${label} data=${{ "data-card": card.id }}>
          <${Card} card=${card} effect=${effect} />
        <//>`;
      })}
      ${cards.length ? null : html`<p class="muted">No cards in hand.</p>`}
    </div>
  </section>`;
}

function Backs({ count }) {
  const shown = Math.min(count, 12);
  return html`<span class="ch-backs" role="img" aria-label=${`${plural(count, "card")} in hand, face down`}>
    ${Array.from({ length: shown }, (_, i) => html`<i key=${i}></i>`)}
    <span class="ch-backs-count">${plural(count, "card")}</span></span>`;
}

function Player({ doc, seat, me }) {
  const game = doc.game;
  const acting = doc.status === "playing" && doc.to_act.includes(seat);
  const shares = Object.entries(game.shares[seat]).filter(([, n]) => n);
  const faceDown = game.face_down ? game.face_down[seat] : 0;
  const flags = Object.entries(game.flags).filter(([, owner]) => owner === seat).map(([c]) => c);
  const bought = game.flags_bought[seat];
  const lost = bought - flags.length;
  const left = DATA.flags_per_player - bought;
  const final = game.final && game.final[seat];
  return html`<li class=${`ch-player ch-seat-${seat}${acting ? " ch-acting" : ""}`}>
    <div class="ch-player-head">
      <${FlagIcon} seat=${seat} />
      <strong>${nameRun(seatName(doc, seat))}</strong>
      <span class="muted">seat ${seat + 1}${seat === me ? " · you" : ""}</span>
      ${acting ? html`<span class="badge waiting">${seat === me ? "your turn" : "to play"}</span>` : null}
      <strong class="ch-cash" aria-label=${`cash ${money(game.cash[seat])}`}>${money(game.cash[seat])}</strong>
    </div>
    ${seat === me && game.hand ? html`<p class="muted">${plural(game.hand_sizes[seat], "card")} in hand (below)</p>` : html`<${Backs} count=${game.hand_sizes[seat]} />`}
    <p class="ch-shares">${shares.length || faceDown
      ? shares.map(([c, n]) => html`<span key=${c} class=${`ch-share ch-co-${c}`} title=${`${plural(n, "share")} of ${companyName(c)}`}>
          <span class="ch-swatch" aria-hidden="true">${letter(c)}</span>${companyName(c)} × ${n}</span>`)
      : html`<span class="muted">no shares</span>`}
      ${faceDown && seat !== me ? html`<span class="ch-share ch-hidden-share">${plural(faceDown, "share")} face down (hidden)</span>` : null}
      ${faceDown && seat === me ? html`<span class="muted">(${faceDown} of them face down)</span>` : null}</p>
    <p class="ch-flags">${flags.map((c) => html`<span key=${c}><${FlagIcon} seat=${seat} /> flag on ${companyName(c)}</span>`)}
      ${left > 0 ? html`<span class="muted">${plural(left, "flag")} left (next ${money(DATA.prices.flags[bought])})</span>` : null}
      ${lost > 0 ? html`<span class="muted">${plural(lost, "flag")} lost in mergers</span>` : null}</p>
    ${final
      ? html`<p class="ch-final">${`Final: cash ${money(final.cash)}, cards left in hand ${money(final.hand_penalty)}, shares ${
          money(final.shares)}, flags ${money(final.flags)} = `}<strong>${money(final.total)}</strong></p>`
      : null}
  </li>`;
}

function Status({ doc, me }) {
  const game = doc.game;
  const total = DATA.setup[String(game.players)].supply;
  const pending = game.pending;
  let doing;
  if (game.finished) doing = "The game is over.";
  else {
    const seat = pending && pending.seat !== undefined ? pending.seat : game.turn;
    let what = pending ? STEPS[pending.step] || pending.step : "build, or buy a card";
    if (pending && pending.step === "trade" && pending.trades) what += ` (${pending.trades} of ${DATA.trades_per_window} trades made)`;
    if (pending && pending.step === "sell" && pending.count) what += ` (${plural(pending.count, "share")} to sell)`;
    if (pending && pending.step === "buy" && pending.paid) what = "taking a market card, already paid";
    const name = html`<strong>${nameRun(seatName(doc, seat))}</strong>`;
    if (seat === me) doing = pending ? html`<strong>You</strong> are ${what}.` : html`<strong>Your turn</strong>: ${what}.`;
    else doing = pending ? html`${name} is ${what}.` : html`${name} is to play: ${what}.`;
  }
  const options = [
    game.options.events ? "event cards in the deck" : "no event cards",
    game.options.hidden_shares ? "shares may be bought face down" : "all shares face up",
    `buffer zone of ${game.options.buffer} plots around companies`,
  ];
  return html`<div class="ch-status">
    <p>${doing}</p>
    <p class="ch-supply">
      <span>Warehouses in the supply: <strong>${game.supply}</strong> of ${total}</span>
      <span class="ch-track ch-supply-track" role="img" aria-label=${`${game.supply} of ${total} warehouses left; the game ends when none is left`}>
        <span style=${{ width: `${(game.supply / total) * 100}%` }}></span></span>
    </p>
    <p class="muted ch-options">${game.board === "harbor" ? "Harbor" : "Center"} side · ${options.join(" · ")}</p>
  </div>`;
}

/** A seat's score details (the result's `details`) in words: see clients/web/static/games/README.md. */
export function resultDetails(final) {
  if (!final) return "";
  return `${money(final.cash)} cash, ${money(final.hand_penalty)} for cards left in hand, ${
    money(final.shares)} for shares and ${money(final.flags)} for flags, sold at their companies' values.`;
}

/** Board({doc, seat, legal, send}): Chartered's map, stock market, cards and players. */
export function Board({ doc, seat, legal, send }) {
  const playersTitle = useUniqueId("ch-players-title");
  const game = doc.game;
  const geo = GEOMETRY[game.board];
  const [selected, select] = useState(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => select(null), [legal]);
  const spots = useSpots(legal, game.hand);
  const closed = useMemo(() => closedPlots(game, geo), [game.plots, game.options, geo]);
  const mine = useMemo(
    () => new Set((game.hand || []).filter((c) => c.kind === "plot").map((c) => c.plot)),
    [game.hand],
  );
  async function move(action) {
    setBusy(true);
    try {
      await send(action);
    } finally {
      setBusy(false);
    }
  }
  const common = { spots, selected, select, send: move, busy };
  const others = legal.filter((e) => ["done", "pass"].includes(e.action.type));
  const root = useRef(null);
  const pending = game.pending && seat !== null && game.pending.seat === seat ? game.pending.step : null;
  useNextStepInView(root, pending, legal.length > 0);
  return html`<div class="ch-board" ref=${root}>
    <${Status} doc=${doc} me=${seat} />
    <div class="ch-top">
      <div class="ch-map-col">
        <${MapView} doc=${doc} geo=${geo} mine=${mine} ...${common} />
        <${Choices} kind="plot" ...${common} />
      </div>
      <div class="ch-side">
        ${others.length
          ? html`<p class="row">${others.map((e) => html`<button type="button" class="secondary" data-move=""
              aria-label=${e.label} title=${e.label} disabled=${busy} onClick=${() => move(e.action)}>${
                e.action.type === "done" ? (game.pending && game.pending.trades ? "End the turn" : "End the turn without trading") : "Pass"}</button>`)}</p>`
          : null}
        <${Stock} doc=${doc} ...${common} />
      </div>
    </div>
    <${Market} doc=${doc} geo=${geo} closed=${closed} legal=${legal} ...${common} />
    ${seat !== null && game.hand ? html`<${Hand} game=${game} geo=${geo} closed=${closed} ...${common} />
      <${Choices} kind="card" ...${common} />` : null}
    <section aria-labelledby=${playersTitle}>
      <h3 id=${playersTitle}>Players</h3>
      <ul class="ch-players">${doc.seats.map((_, s) => html`<${Player} key=${s} doc=${doc} seat=${s} me=${seat} />`)}</ul>
    </section>
  </div>`;
}
