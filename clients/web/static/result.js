// The room page's result (room.js): who won and where this seat finished, each seat's
// rank, score and how it was scored (the board module's `resultDetails` when it has
// one), the way to the rematch: a player's keeps their seat, also in a rematch
// another player opened first; a spectator may watch it; and the replay, or why a game
// too long to keep whole has none. Once the room is gone (the
// server closed it or no longer has it), none of that: a new game instead (`Gone`), as
// on the page of a link to a room that does not exist (`NoRoom`).

import {
  heldInvite,
  heldSeat,
  holdInvite,
  holdOwner,
  holdSeat,
  html,
  listedNames,
  nameRun,
  lobby,
  ownedRoom,
  problemSentence,
  roomPath,
  savedName,
  seatName,
  shown,
  useEffect,
  useState,
  words,
} from "./common.js";

/** A number as the boards write them: a true minus sign (−25), never a hyphen. */
function signed(n) {
  return typeof n === "number" && n < 0 ? `−${-n}` : String(n);
}

function details(value) {
  if (value === null || typeof value !== "object") return shown(value);
  if (Array.isArray(value)) return value.map(details).join(", ");
  return Object.entries(value).map(([k, v]) => `${words(k)}: ${details(v)}`).join("; ");
}

function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
}

/** The result's first line: who won, and for a seat's page where it finished (`mySeat`
 * null: a spectator's, a replay's). */
export function headline(doc, result, mySeat) {
  const others = result.winners.filter((s) => s !== mySeat).map((s) => seatName(doc, s));
  if (mySeat !== null && result.winners.includes(mySeat)) {
    return others.length ? html`You share the win with ${listedNames(others)}: well played!` : "You won: well played!";
  }
  const won = html`${listedNames(others)} ${others.length > 1 ? "share the win" : "wins"}.`;
  if (mySeat === null) return won;
  const place = result.ranks[mySeat];
  const tied = result.ranks.filter((r) => r === place).length > 1;
  return html`${won} You finished ${ordinal(place)}${tied ? " (tied)" : ""} of ${result.ranks.length}.`;
}

/** The result: ranks, scores and each seat's score details in words (the board module's
 * `resultDetails` when it has one), and the way to the rematch: a player's keeps their
 * seat, also in a rematch another player opened first; a spectator may watch it. The
 * replay once the room's record was read (`replayable` true); `false`: the game was too
 * long to keep whole, and the page says so. In a room that is `gone`, only the way to a
 * rematch opened before: `Gone` offers the rest. */
export function Result({ roomId, doc, result, mySeat, token, describe, gone, replayable }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [lost, setLost] = useState(false);
  const unranked = !result.ranks || result.ranks.length === 0;
  const order = unranked ? [] : doc.seats.map((_, seat) => seat).sort((a, b) => result.ranks[a] - result.ranks[b]);
  const said = (seat) => {
    const detail = result.details && result.details[seat];
    return describe ? describe(detail, { doc, seat, score: result.scores[seat] }) : details(detail);
  };

  async function rematch() {
    setBusy(true);
    try {
      const room = await lobby.rematch(roomId, { token });
      holdSeat({ room: room.id, seat: room.seat, token: room.token }, heldSeat(roomId)?.name);
      // The rematch keeps this room's owner and invitation.
      const owned = ownedRoom(roomId);
      if (owned) holdOwner(room.id, owned);
      else if (heldInvite(roomId)) holdInvite(room.id, heldInvite(roomId));
      globalThis.location.assign(roomPath(room.id));
    } catch (e) {
      setLost(e.code === "seat_taken");
      setError(e.code === "seat_taken"
        ? "Your seat in the rematch is taken already: its hold for you has ended. You can still watch it."
        : problemSentence(e));
      setBusy(false);
    }
  }

  const watch = doc.rematch
    ? html`<a class="button" href=${roomPath(doc.rematch)}>Watch the rematch</a>`
    : null;

  return html`<section class="card result o-result" aria-labelledby="result-title">
    <h2 id="result-title">Result</h2>
    ${unranked
      ? html`<p><strong>The game ended without a winner: ${result.abandoned ? "everyone left" : "it reached the move limit"}.</strong></p>`
      : html`<p><strong>${headline(doc, result, mySeat)}</strong></p>`}
    ${unranked ? null : html`<table class="ranking">
      <thead><tr><th scope="col">Rank</th><th scope="col">Player</th><th scope="col">Score</th><th scope="col">How it was scored</th></tr></thead>
      <tbody>${order.map((seat) => html`<tr class=${seat === mySeat ? "mine" : ""}>
        <td class="rank">${ordinal(result.ranks[seat])}</td>
        <td class="who">${nameRun(seatName(doc, seat))}${seat === mySeat ? " (you)" : ""}</td>
        <td class="score">${signed(result.scores[seat])}</td>
        <td class="how">${said(seat)}</td>
      </tr>`)}</tbody>
    </table>`}
    <p class="row actions">
      ${!token
        ? watch
        : doc.rematch && heldSeat(doc.rematch)
          ? html`<a class="button" href=${roomPath(doc.rematch)}>Go to your seat in the rematch</a>`
          : lost || gone
            ? watch
            : html`<button type="button" disabled=${busy} onClick=${rematch}>${
                doc.rematch ? "Go to the rematch" : "Rematch"}</button>`}
      ${gone ? null : html`${replayable
        ? html`<a class="button secondary" href=${`${roomPath(roomId)}/replay`}>Replay the game</a>` : null}
        <a class="button secondary" href="/">Back to the lobby</a>`}
    </p>
    ${replayable === false && !gone ? html`<p class="muted">This game was too long to keep its replay.</p>` : null}
    ${token || doc.rematch || gone
      ? null
      : html`<p class="muted">A rematch is for the players of this game: once one of them opens it, you can watch it from here.</p>`}
    <p class="error" role="alert">${error || ""}</p>
  </section>`;
}

/** Quick play of `engine` for this browser, under the name it played under in `roomId`
 * (else the one it last gave the lobby): `[play, busy, error]`; `play` goes to the seat. */
function useQuickPlay(roomId, engine) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  async function play() {
    setBusy(true);
    setError(null);
    const name = heldSeat(roomId)?.name || savedName();
    try {
      const reservation = await lobby.quickplay({ engine, name });
      holdSeat(reservation, name);
      globalThis.location.assign(roomPath(reservation.room));
    } catch (e) {
      setError(problemSentence(e));
      setBusy(false);
    }
  }
  return [play, busy, error];
}

/** What a room the server closed or no longer has offers instead of actions on it: a
 * seat in another game of `engine` (quick play, under the name this browser played
 * under here, or last gave the lobby: "Play again" for its player, the game by its name
 * for someone who watched), and the lobby. */
export function Gone({ roomId, engine, title }) {
  const [again, busy, error] = useQuickPlay(roomId, engine);
  const played = !!heldSeat(roomId);
  const offer = played ? "Play again" : `Play ${title}`;
  return html`<section class="card o-gone" aria-labelledby="gone-title">
    <h2 id="gone-title">This room is gone</h2>
    <p class="muted">Nothing more can be done in it.${!engine ? "" : played
      ? ` Play again for a seat in another game of ${title}, beside a player waiting if there is one.`
      : ` You can play a game of ${title} yourself: quick play seats you beside a player waiting if there is one.`}</p>
    <p class="row actions">
      ${engine ? html`<button type="button" disabled=${busy} onClick=${again}>${offer}</button>` : null}
      <a class="button secondary" href="/">Back to the lobby</a>
    </p>
    <p class="error" role="alert">${error || ""}</p>
  </section>`;
}

/** A link to a room that does not exist (swept, or lost in a restart): a new game of
 * `engine` when the link or this browser's seat there named it (and the server has that
 * game), else the lobby. */
export function NoRoom({ roomId, engine }) {
  const [game, setGame] = useState(null);
  const [play, busy, error] = useQuickPlay(roomId, game && game.id);
  useEffect(() => {
    if (engine) lobby.games().then((games) => setGame(games.find((g) => g.id === engine) || null), () => {});
  }, [engine]);
  return html`<section class="card o-no-room" aria-labelledby="no-room-title">
    <h1 id="no-room-title">No such room</h1>
    <p>Room ${roomId} does not exist: finished rooms are removed after a while, and rooms
      nobody filled after an hour.${game
        ? ` You can play a new game of ${game.title}: quick play seats you beside a player waiting if there is one.` : ""}</p>
    <p class="row actions">
      ${game ? html`<button type="button" disabled=${busy} onClick=${play}>Play ${game.title}</button>` : null}
      <a class=${game ? "button secondary" : "button"} href="/">Back to the lobby</a>
    </p>
    <p class="error" role="alert">${error || ""}</p>
  </section>`;
}
