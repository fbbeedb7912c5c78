// Bots for a room's free seats, from the room page. Its owner (the browser that created
// it) gets "Play against bots" while it waits for players. In a room quick play opened,
// which has no owner, the player waiting alone is offered, after BOTS_AFTER seconds with
// nobody joining, to fill the empty seats with the game's strongest bots in one click (the
// server lets only a player seated alone there do it: docs/protocol.md §9). The wait is
// `?bots_after=SECONDS` in the page's address when given (a demo, a test).

import { html, lobby, problemSentence, useEffect, useState } from "./common.js";

/** Seconds a lone quick play player waits before bots are offered. */
const BOTS_AFTER = 20;

/** The wait: the page address's `bots_after` when it is a number of seconds, else BOTS_AFTER. */
function botsAfter() {
  const asked = new URLSearchParams(globalThis.location.search).get("bots_after");
  const seconds = asked === null || asked === "" ? NaN : Number(asked);
  return seconds >= 0 ? seconds : BOTS_AFTER;
}

/** Whether `mySeat` is the one person seated in `doc` (bots aside). */
function alone(doc, mySeat) {
  const people = doc.seats
    .map((name, seat) => (name !== null && !(doc.presence && doc.presence[seat] && doc.presence[seat].bot) ? seat : null))
    .filter((seat) => seat !== null);
  return people.length === 1 && people[0] === mySeat;
}

/** The offer to a player waiting alone in a quick play room: after the wait, one click
 * seats the game's strongest bots (`game.bots[0]`) in every free seat. */
export function OfferBots({ roomId, doc, mySeat, credential, game }) {
  const [due, setDue] = useState(false);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const waiting = alone(doc, mySeat);
  useEffect(() => {
    setDue(false);
    if (!waiting) return;
    const timer = setTimeout(() => setDue(true), botsAfter() * 1000);
    return () => clearTimeout(timer);
  }, [waiting]);
  if (!waiting || !due) return null;
  async function fill() {
    setBusy(true);
    setError(null);
    try {
      await lobby.addBots(roomId, { kind: game ? game.bots[0].kind : undefined, ...credential });
    } catch (e) {
      setError(problemSentence(e));
      setBusy(false);
    }
  }
  return html`<div class="o-offer-bots banner">
    <p>Nobody has joined yet. Play now against bots, or keep waiting for people.</p>
    <p class="row"><button type="button" disabled=${busy} onClick=${fill}>Fill the empty seats with bots</button></p>
    <p class="error" role="alert">${error || ""}</p>
  </div>`;
}

/** The owner's bots for a room's free seats: the game's own kinds, as the lobby offers
 * them (`game.bots`, the strongest first and the default). */
export function FillWithBots({ roomId, credential, game }) {
  const [picked, setKind] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const kinds = game ? game.bots : [];
  const kind = picked ?? (kinds.length ? kinds[0].kind : undefined);
  async function fill(event) {
    event.preventDefault();
    setBusy(true);
    try {
      await lobby.addBots(roomId, { kind, ...credential });
    } catch (e) {
      setError(problemSentence(e));
    }
    setBusy(false);
  }
  return html`<form class="card o-join" onSubmit=${fill}>
    <h2>Play against bots</h2>
    <label for="bot-kind">Bot strength</label>
    <select id="bot-kind" value=${kind} disabled=${!kinds.length} onChange=${(e) => setKind(e.currentTarget.value)}>
      ${kinds.map((b, i) => html`<option value=${b.kind}>${b.kind} — ${b.strength}${i === 0 ? " (default)" : ""}</option>`)}
    </select>
    <p class="row actions"><button type="submit" disabled=${busy || !kinds.length}>Fill the free seats with bots</button></p>
    <p class="error" role="alert">${error || ""}</p>
  </form>`;
}
