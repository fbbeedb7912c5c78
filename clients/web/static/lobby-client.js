// lobby-client.js: the HTTP JSON lobby client of the browser SDK (re-exported by
// tablewire.js), and the rule both it and RoomConnection follow to wait out the server's
// limits (§8): a 429 (or a 503 with Retry-After), a `rate_limited` reject or error is
// sent again once the wait the server gives is over, within a patience; an intent
// rejected `store_unavailable` or `owner_unavailable` (a Redis restart, a failover) is
// sent again with its id every UNAVAILABLE_WAIT_S too (the server applies an id once).
// A request that takes seats (a seat, quick play, bots, a rematch) carries an
// Idempotency-Key of its own, the same on every try: a 503 store_unavailable or
// owner_unavailable then says when to try again, and a repeat whose first answer was lost
// is answered that seat again, never a second one.
//
//   Lobby          the lobby of docs/protocol.md §9: games, rooms, seats, bots.
//   LobbyError     a refusal of the lobby, with its stable error code.
//   httpRefusal, frameRefusal, nextWait  what a refusal asks, and whether to wait for it.

import { isMap } from "./mirror.js";

/** Seconds to wait when a refusal does not say how long (an older server). */
export const DEFAULT_WAIT_S = 1;
/** How long a refused request is sent again: at most `attempts` tries in all, and no wait
 * that would take the time spent waiting past `within` seconds. */
export const PATIENCE = Object.freeze({ attempts: 30, within: 120 });
/** Reject codes of an intent the server could not record or forward for now. */
export const UNAVAILABLE = Object.freeze(["store_unavailable", "owner_unavailable"]);
/** Seconds between two tries of an intent rejected with one of UNAVAILABLE when the reject
 * does not say (a server before the reject's `retry_after`). */
export const UNAVAILABLE_WAIT_S = 0.5;

/** A new Idempotency-Key: 128 random bits as 22 characters of base64url. */
export function requestKey() {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  const text = btoa(String.fromCharCode(...bytes));
  return text.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function waitSeconds(value) {
  const seconds = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** The `{code, seconds}` of a lobby answer that asks to come back later (a 429, or a 503
 * with Retry-After), else null: the body's `retry_after`, else the header, else 1 s. */
export function httpRefusal(status, headers, data) {
  if (status !== 429 && status !== 503) return null;
  const error = (isMap(data) && isMap(data.error) && data.error) || {};
  const header = headers.get("retry-after");
  if (status === 503 && header === null && error.retry_after === undefined) return null;
  const seconds = waitSeconds(error.retry_after) ?? waitSeconds(header) ?? DEFAULT_WAIT_S;
  return { code: error.code || (status === 429 ? "rate_limited" : "busy"), seconds };
}

/** The `{code, seconds}` of a non-fatal `reject` or `error` frame `rate_limited` (its
 * `retry_after`, else 1 s), or of a `reject` with a code of UNAVAILABLE (its
 * `retry_after`, else UNAVAILABLE_WAIT_S), else null. */
export function frameRefusal(frame) {
  if (frame.t === "reject" && UNAVAILABLE.includes(frame.code)) {
    return { code: frame.code, seconds: waitSeconds(frame.retry_after) ?? UNAVAILABLE_WAIT_S };
  }
  if (frame.code !== "rate_limited" || frame.fatal) return null;
  return { code: frame.code, seconds: waitSeconds(frame.retry_after) ?? DEFAULT_WAIT_S };
}

/**
 * The one retry rule: whether a request refused with `refusal` may wait and be sent again,
 * given its `tally` (`{tries, waited}`, counted here) and `patience`. Returns the wait
 * (`{what, code, seconds, attempt}`, what `onWait` and the "wait" event get) or null.
 */
export function nextWait(what, refusal, tally, patience) {
  if (refusal === null) return null;
  tally.tries = (tally.tries || 0) + 1;
  tally.waited = tally.waited || 0;
  if (tally.tries >= patience.attempts || tally.waited + refusal.seconds > patience.within) {
    return null;
  }
  tally.waited += refusal.seconds;
  return { what, code: refusal.code, seconds: refusal.seconds, attempt: tally.tries };
}

/** The lobby refused a request; `code` is the API's stable error code (§8), `reason` the
 * server's words for a person ("" when it sent none), `retryAfter` the seconds after
 * which the same request may succeed when the server says (or null). */
export class LobbyError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.reason = message || "";
    this.retryAfter = retryAfter;
  }
}

/**
 * The HTTP JSON lobby of docs/protocol.md §9, at `base` ("" = this page's server).
 *
 * A request the server refuses for a while (429, or 503 with Retry-After: one of its
 * limits) is sent again once the wait it gives is over, within `patience` (`PATIENCE`);
 * `onWait({what, code, seconds, attempt})` is called before each wait, so a page can
 * show it. Past the patience, the refusal is thrown as a LobbyError.
 */
export class Lobby {
  constructor(base = "", {
    fetch: fetcher = globalThis.fetch.bind(globalThis),
    patience = PATIENCE,
    onWait = null,
  } = {}) {
    this.base = base.replace(/\/$/, "");
    this.fetch = fetcher;
    this.patience = patience;
    this.onWait = onWait;
  }

  /** One request, sent again while the server asks to wait; `key`: its Idempotency-Key. */
  async call(method, path, body, { key = null } = {}) {
    const init = { method, headers: { accept: "application/json" } };
    if (key !== null) init.headers["idempotency-key"] = key;
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const tally = {};
    for (;;) {
      const response = await this.fetch(this.base + path, init);
      const data = await response.json().catch(() => ({}));
      if (response.ok) return data;
      const refusal = httpRefusal(response.status, response.headers, data);
      const wait = nextWait(`${method} ${path}`, refusal, tally, this.patience);
      if (wait === null) {
        const error = data.error || {};
        throw new LobbyError(
          response.status, error.code || "http_error", error.message || "", waitSeconds(error.retry_after));
      }
      if (this.onWait) this.onWait(wait);
      await new Promise((resolve) => setTimeout(resolve, wait.seconds * 1000));
    }
  }

  /** A POST that takes seats, with an Idempotency-Key of its own (the same on every try). */
  takeSeats(path, body) {
    return this.call("POST", path, body, { key: requestKey() });
  }

  /** Every engine: `[{id, title, kind, min_players, max_players, options}]`. */
  games() {
    return this.call("GET", "/api/games");
  }

  /** Public rooms, newest first, one page (`limit`, at most the server's `list_limit`;
   * `after`: the cursor of the `Link` header's next page); `engine` and `status` filter. */
  rooms({ engine, status, limit, after } = {}) {
    const query = new URLSearchParams();
    if (engine) query.set("engine", engine);
    if (status) query.set("status", status);
    if (limit) query.set("limit", String(limit));
    if (after) query.set("after", after);
    const text = query.toString();
    return this.call("GET", `/api/rooms${text ? `?${text}` : ""}`);
  }

  room(id) {
    return this.call("GET", `/api/rooms/${encodeURIComponent(id)}`);
  }

  /** The game's record: its narrated `log` (`[{v, text}]`), `moves`, and once it is over
   * each move's `action` and `label` and the `seed`; with `views`, the spectator's document
   * at the start and after each move (docs/protocol.md, section 9); with `kept`, a game too
   * long to keep whole answers what is kept of it (`trimmed`: true) rather than `record_trimmed`. */
  record(id, { views = false, kept = false } = {}) {
    const query = [views ? "views=1" : "", kept ? "kept=1" : ""].filter(Boolean).join("&");
    return this.call("GET", `/api/rooms/${encodeURIComponent(id)}/record${query ? `?${query}` : ""}`);
  }

  /** `{engine, seats?, options?, private?, seed?, bots?: {seats, kind}, name?}` → the room,
   * with, this once, its owner credential `owner_token` and, for a private room, `invite`
   * and `invite_url`: keep them (bots need the first, a seat of a private room either).
   * `name`: the name its creator will then sit under, refused here as the seat would be. */
  createRoom(body) {
    return this.call("POST", "/api/rooms", body);
  }

  /** A seat (`seat` from 0, or the first free one) → `{room, seat, token, ws}`. A private
   * room's seat needs its `invite` (or its owner's `ownerToken`). */
  reserve(id, { name, seat, invite, ownerToken } = {}) {
    const body = {};
    if (name) body.name = name;
    if (seat !== undefined && seat !== null) body.seat = seat;
    if (invite) body.invite = invite;
    if (ownerToken) body.owner_token = ownerToken;
    return this.takeSeats(`/api/rooms/${encodeURIComponent(id)}/seats`, body);
  }

  /** A seat in the fullest open public room of `engine`, or in a new one. */
  quickplay({ engine, name, seats } = {}) {
    const body = { engine };
    if (name) body.name = name;
    if (seats) body.seats = seats;
    return this.takeSeats("/api/quickplay", body);
  }

  /** Bots of `kind` ("random" or "greedy") in `seats` (default: every free seat). Only the
   * room's owner may (`ownerToken`); in a room without one (quick play's), a player
   * seated there (`token`). */
  addBots(id, { kind = "random", seats, ownerToken, token } = {}) {
    const body = { kind };
    if (seats) body.seats = seats;
    if (ownerToken) body.owner_token = ownerToken;
    if (token) body.token = token;
    return this.takeSeats(`/api/rooms/${encodeURIComponent(id)}/bots`, body);
  }

  /**
   * The rematch room of a finished room (the same for every caller), for its players: with
   * the `token` of a seat of the finished room, the same seat of the new room is taken
   * (`seat`, `token`). Without a token: 403 `player_required` (the finished room's
   * `rematch` names the room to watch); a seat taken already: 409 `seat_taken`.
   */
  rematch(id, { token } = {}) {
    const body = token ? { token } : {};
    return this.takeSeats(`/api/rooms/${encodeURIComponent(id)}/rematch`, body);
  }
}
