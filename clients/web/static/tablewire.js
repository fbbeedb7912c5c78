// tablewire.js: the browser SDK of tablewire (docs/web.md). One ES module, no build step.
//
//   Lobby          the HTTP JSON lobby (docs/protocol.md §9): games, rooms, seats, bots.
//   RoomConnection one room over its WebSocket (binary msgpack): hello, a mirror kept by
//                  snapshots and patches (§6, §7), resync on a gap, reconnection with
//                  backoff (token and `since`), intents with ids that make retries safe,
//                  legal moves with their labels, and events for everything that happens.
//   Both wait out the server's limits (§8): a 429 (or a 503 with Retry-After), a
//                  `rate_limited` reject or error is sent again once the wait the server
//                  gives is over, within a patience; `onWait` / the "wait" event show it.
//   applyPatch / Mirror  the patch semantics of §6, usable on their own; expandOps and
//                  readFrame: protocol 2's compact frames (§6.2) in protocol 1's terms.
//
// It runs in browsers and in Node 20+ (pass `WebSocket` where the runtime has none global).

import { decode, encode } from "./vendor/msgpack/index.mjs";

export const PROTOCOL = 2;

const RESYNC_DONE = "tablewire:resync-done";

/** Seconds to wait when a refusal does not say how long (an older server). */
export const DEFAULT_WAIT_S = 1;
/** How long a refused request is sent again: at most `attempts` tries in all, and no wait
 * that would take the time spent waiting past `within` seconds. */
export const PATIENCE = Object.freeze({ attempts: 30, within: 120 });

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
 * `retry_after`, else 1 s), else null. */
export function frameRefusal(frame) {
  if (frame.code !== "rate_limited" || frame.fatal) return null;
  return { code: frame.code, seconds: waitSeconds(frame.retry_after) ?? DEFAULT_WAIT_S };
}

/**
 * The one retry rule: whether a request refused with `refusal` may wait and be sent again,
 * given its `tally` (`{tries, waited}`, counted here) and `patience`. Returns the wait
 * (`{what, code, seconds, attempt}`, what `onWait` and the "wait" event get) or null.
 */
function nextWait(what, refusal, tally, patience) {
  if (refusal === null) return null;
  tally.tries = (tally.tries || 0) + 1;
  tally.waited = tally.waited || 0;
  if (tally.tries >= patience.attempts || tally.waited + refusal.seconds > patience.within) {
    return null;
  }
  tally.waited += refusal.seconds;
  return { what, code: refusal.code, seconds: refusal.seconds, attempt: tally.tries };
}

const SET = 0;
const REMOVE = 1;
const TRUNCATE = 2;
const EXTEND = 3;

/** A patch op that does not fit the document (§6): the mirror is out of date. */
export class PatchError extends Error {}

function isMap(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function fits(container, key) {
  if (Array.isArray(container)) return Number.isInteger(key) && key >= 0 && key < container.length;
  return isMap(container) && typeof key === "string" && Object.hasOwn(container, key);
}

/**
 * Apply `ops` (§6) to `doc` and return the new document; `doc` itself is not changed.
 *
 * Copy on write: every map and array on a changed path is copied once per patch, the
 * rest is shared, so an unchanged subtree keeps its identity (cheap re-renders) and an
 * op that does not fit (a PatchError) leaves the caller's document as it was.
 */
export function applyPatch(doc, ops) {
  const fresh = new Set();
  const copy = (value) => {
    if (fresh.has(value)) return value;
    const made = Array.isArray(value) ? value.slice() : { ...value };
    fresh.add(made);
    return made;
  };
  let root = { doc };
  fresh.add(root);
  for (const op of ops) {
    if (!Array.isArray(op) || op.length < 2 || !Array.isArray(op[1])) {
      throw new PatchError(`not an op: ${JSON.stringify(op)}`);
    }
    const [kind, path] = op;
    if (kind === SET && path.length === 0) {
      if (op.length < 3) throw new PatchError("a set without a value");
      root = { doc: op[2] };
      fresh.add(root);
      continue;
    }
    // Walk to the container the op changes, copying each container on the way.
    const steps = kind === SET || kind === REMOVE ? path.slice(0, -1) : path;
    let parent = root;
    let key = "doc";
    for (const step of steps) {
      const container = (parent[key] = copy(parent[key]));
      if (!fits(container, step)) throw new PatchError(`path ${JSON.stringify(path)} not found`);
      parent = container;
      key = step;
    }
    const target = parent[key];
    if (kind === SET || kind === REMOVE) {
      if (op.length < (kind === SET ? 3 : 2)) throw new PatchError(`op ${kind} is too short`);
      const last = path[path.length - 1];
      const container = Array.isArray(target) || isMap(target) ? copy(target) : null;
      if (kind === SET) {
        const settable = Array.isArray(container)
          ? fits(container, last)
          : isMap(container) && typeof last === "string";
        if (!settable) throw new PatchError(`cannot set ${JSON.stringify(path)}`);
        container[last] = op[2];
      } else {
        if (!isMap(container) || !fits(container, last)) {
          throw new PatchError(`no map key to remove at ${JSON.stringify(path)}`);
        }
        delete container[last];
      }
      parent[key] = container;
    } else if (kind === TRUNCATE || kind === EXTEND) {
      if (!Array.isArray(target)) throw new PatchError(`no array at ${JSON.stringify(path)}`);
      const arg = op[2];
      if (kind === TRUNCATE) {
        if (!Number.isInteger(arg) || arg < 0) throw new PatchError(`bad length ${arg}`);
        parent[key] = target.slice(0, arg);
      } else {
        if (!Array.isArray(arg)) throw new PatchError("extend needs an array of items");
        parent[key] = target.concat(arg);
      }
      fresh.add(parent[key]);
    } else {
      throw new PatchError(`unknown op kind ${JSON.stringify(kind)}`);
    }
  }
  return root.doc;
}

/** Protocol 2 (§6.2): a compact path with its key-table references (ints < 0) spelled out. */
function expandPath(keys, path) {
  const out = [];
  for (const step of path) {
    if (Number.isInteger(step) && step < 0) {
      const entry = keys[-1 - step];
      if (!entry) throw new PatchError(`key table reference ${step} of ${keys.length} entries`);
      out.push(...entry);
    } else if (Number.isInteger(step) || typeof step === "string") {
      out.push(step);
    } else {
      throw new PatchError(`path element ${JSON.stringify(step)} is not a key or an index`);
    }
  }
  return out;
}

/** Protocol 2's ops (§6.2) as protocol 1's (§6), given the key table of `welcome.keys`. */
export function expandOps(keys, ops) {
  return ops.map((op) => {
    if (!Array.isArray(op) || op.length === 0) throw new PatchError(`not an op: ${op}`);
    if (op[0] !== null || op.length === 1) {
      return [SET, expandPath(keys, op.slice(0, -1)), op[op.length - 1]];
    }
    const kind = op[1];
    if (kind === REMOVE && op.length > 2) return [REMOVE, expandPath(keys, op.slice(2))];
    if ((kind === TRUNCATE || kind === EXTEND) && op.length > 2) {
      return [kind, expandPath(keys, op.slice(2, -1)), op[op.length - 1]];
    }
    throw new PatchError(`op of no known kind: ${JSON.stringify(op)}`);
  });
}

/**
 * A decoded server frame as a map: protocol 2's array frames (§6.2) become
 * `{t: "patch", from, to, ops}` (ops still compact) and `{t: "ack", id, v}`.
 */
export function readFrame(frame) {
  if (!Array.isArray(frame)) return frame;
  if (frame[0] === 0 && Number.isInteger(frame[1])) {
    return { t: "patch", from: frame[1] - 1, to: frame[1], ops: frame.slice(2) };
  }
  if (frame[0] === 1 && frame.length === 3) return { t: "ack", id: frame[1], v: frame[2] };
  return { t: "unknown" };
}

/**
 * A document and its version, kept by snapshots and patches exactly as §7 says.
 * `patch` answers what to do: "applied", "duplicate", "gap" (resync from the version
 * held) or "misfit" (an op did not fit: resync with a snapshot).
 */
export class Mirror {
  constructor() {
    this.version = null;
    this.doc = null;
    this.keys = null; // protocol 2: welcome.keys, and patches' ops are compact
  }

  snapshot(version, doc) {
    this.version = version;
    this.doc = doc;
  }

  patch(from, to, ops) {
    if (this.version !== null && to <= this.version) return "duplicate";
    if (from !== this.version) return "gap";
    try {
      this.doc = applyPatch(this.doc, this.keys ? expandOps(this.keys, ops) : ops);
    } catch (error) {
      if (error instanceof PatchError) return "misfit";
      throw error;
    }
    this.version = to;
    return "applied";
  }
}

/** The lobby refused a request; `code` is the API's stable error code (§8), `retryAfter`
 * the seconds after which the same request may succeed when the server says (or null). */
export class LobbyError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/** The server refused an intent (a `reject` frame) or sent an `error` frame. */
export class ServerError extends Error {
  constructor(frame) {
    super(frame.message || frame.code);
    this.code = frame.code;
    this.frame = frame;
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

  async call(method, path, body) {
    const init = { method, headers: { accept: "application/json" } };
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

  /** `{engine, seats?, options?, private?, seed?, bots?: {seats, kind}}` → the room, with,
   * this once, its owner credential `owner_token` and, for a private room, `invite` and
   * `invite_url`: keep them (bots need the first, a seat of a private room either). */
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
    return this.call("POST", `/api/rooms/${encodeURIComponent(id)}/seats`, body);
  }

  /** A seat in the fullest open public room of `engine`, or in a new one. */
  quickplay({ engine, name, seats } = {}) {
    const body = { engine };
    if (name) body.name = name;
    if (seats) body.seats = seats;
    return this.call("POST", "/api/quickplay", body);
  }

  /** Bots of `kind` ("random" or "greedy") in `seats` (default: every free seat). Only the
   * room's owner may (`ownerToken`); in a room without one (quick play's), a player
   * seated there (`token`). */
  addBots(id, { kind = "random", seats, ownerToken, token } = {}) {
    const body = { kind };
    if (seats) body.seats = seats;
    if (ownerToken) body.owner_token = ownerToken;
    if (token) body.token = token;
    return this.call("POST", `/api/rooms/${encodeURIComponent(id)}/bots`, body);
  }

  /**
   * The rematch room of a finished room (the same for every caller), for its players: with
   * the `token` of a seat of the finished room, the same seat of the new room is taken
   * (`seat`, `token`). Without a token: 403 `player_required` (the finished room's
   * `rematch` names the room to watch); a seat taken already: 409 `seat_taken`.
   */
  rematch(id, { token } = {}) {
    return this.call("POST", `/api/rooms/${encodeURIComponent(id)}/rematch`, token ? { token } : {});
  }
}

/** The WebSocket base URL (`ws://host:port`) of an http(s) base, or of this page's server. */
export function wsBase(httpBase = "") {
  const base = httpBase || `${globalThis.location.protocol}//${globalThis.location.host}`;
  return base.replace(/^http/, "ws").replace(/\/$/, "");
}

/** Fatal error codes after which reconnecting cannot help. */
const FINAL = new Set(["no_such_room", "bad_token", "unsupported_protocol", "hello_required"]);

function randomId() {
  // Intent ids must be unique for the seat across every connection and reload: start at
  // a random 48-bit number (a safe integer in JavaScript and a msgpack int on the wire).
  const words = new Uint32Array(2);
  globalThis.crypto.getRandomValues(words);
  return (words[0] & 0xffff) * 2 ** 32 + words[1];
}

/**
 * One room over its WebSocket, as a seat (`token`) or a spectator (no token).
 *
 * Events (`on(type, fn)` returns a function that unsubscribes):
 *   "state"   (state)         "connecting" | "open" | "reconnecting" | "closed"
 *   "welcome" (frame)         joined: seat, engine, options, seats, version
 *   "doc"     (doc, version)  the mirror changed (a snapshot or a patch)
 *   "event"   (event, v)      one game event, with `text`: a sentence of the game log
 *   "result"  (result)        the game's result (also fetched for a room that ended before)
 *   "reject"  (frame)         an intent was refused
 *   "error"   (frame)         an error frame (fatal ones end or restart the connection)
 *   "wait"    (wait)          a limit of the server: an intent or legal refused as
 *                             `rate_limited`, or a lobby call (429), is sent again after
 *                             `wait.seconds` (`{what, code, seconds, attempt}`), within
 *                             `patience`; past it, the intent's promise rejects
 */
export class RoomConnection {
  constructor(roomId, {
    token = null,
    base = "",
    WebSocket: Socket = globalThis.WebSocket,
    fetch: fetcher,
    backoff = { first: 250, max: 5000 },
    heartbeat = 15000,
    handshakeTimeout = 10000,
    patience = PATIENCE,
  } = {}) {
    this.roomId = roomId;
    this.token = token;
    this.base = base;
    this.url = `${wsBase(base)}/ws/rooms/${encodeURIComponent(roomId)}`;
    this.Socket = Socket;
    this.patience = patience;
    const onWait = (wait) => this.emit("wait", wait);
    this.lobby = new Lobby(base, { ...(fetcher ? { fetch: fetcher } : {}), patience, onWait });
    this.backoff = backoff;
    this.heartbeat = heartbeat;
    this.handshakeTimeout = handshakeTimeout;
    this.mirror = new Mirror();
    this.welcome = null;
    this.result = null;
    this.state = "closed";
    this.lastError = null;
    this.attempts = 0;
    this.resyncs = 0;
    this.ws = null;
    this.listeners = new Map();
    this.pending = new Map(); // intent id -> {action, resolve, reject, acked: v | null}
    this.legalQueue = [];
    this.nextId = randomId();
    this.stopped = true;
    this.resyncing = false;
    this.timers = new Set();
    this.lastHeard = 0;
  }

  get doc() {
    return this.mirror.doc;
  }

  get version() {
    return this.mirror.version;
  }

  /** This connection's seat (from 0), or null for a spectator or before `welcome`. */
  get seat() {
    return this.welcome ? this.welcome.seat : null;
  }

  /** Per-seat presence from the room document (`doc.presence`), or null if it has none. */
  get presence() {
    return (this.mirror.doc && this.mirror.doc.presence) ?? null;
  }

  /** The clock state from the room document (`doc.clock`), or null if it has none. */
  get clock() {
    return (this.mirror.doc && this.mirror.doc.clock) ?? null;
  }

  /** Whether this seat is expected to act now (in `doc.to_act`). */
  get myTurn() {
    const doc = this.mirror.doc;
    return this.seat !== null && !!doc && (doc.to_act || []).includes(this.seat);
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type).delete(fn);
  }

  emit(type, ...args) {
    for (const fn of this.listeners.get(type) || []) fn(...args);
  }

  setState(state) {
    if (state === this.state) return;
    this.state = state;
    this.emit("state", state);
  }

  /** Whether the mirror holds the version the server announced in `welcome` (or later). */
  get synced() {
    const version = this.mirror.version;
    return this.welcome !== null && version !== null && version >= this.welcome.version;
  }

  /**
   * Connect; resolves with the `welcome` frame once the mirror has caught up with it,
   * rejects if the server refuses for good (`code`: no_such_room, bad_token...).
   */
  connect() {
    this.stopped = false;
    return new Promise((resolve, reject) => {
      const offs = [];
      const settle = () => {
        if (this.state === "closed") {
          for (const off of offs) off();
          reject(this.lastError || new Error("connection closed"));
        } else if (this.state === "open" && this.synced) {
          for (const off of offs) off();
          resolve(this.welcome);
        }
      };
      offs.push(this.on("doc", settle), this.on("state", settle));
      this.open();
    });
  }

  /** Close for good: no reconnection; unanswered intents and legal requests fail. */
  close() {
    this.stopped = true;
    this.clearTimers();
    if (this.ws) this.ws.close(1000);
    this.ws = null;
    this.failAll(new Error("connection closed"));
    this.setState("closed");
  }

  open() {
    this.setState(this.attempts ? "reconnecting" : "connecting");
    const ws = new this.Socket(this.url);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      this.sendFrame({
        t: "hello",
        protocol: PROTOCOL,
        token: this.token,
        since: this.mirror.version,
      });
    };
    ws.onmessage = (message) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      let frame;
      try {
        frame = readFrame(decode(new Uint8Array(message.data)));
      } catch (error) {
        this.lastError = error;
        ws.close(4001); // not msgpack: reconnect
        return;
      }
      this.handle(frame);
    };
    // Browsers follow a failed connection's error with close; Node 20 does not: either ends it.
    ws.onclose = () => this.lost(ws);
    ws.onerror = () => this.lost(ws);
    this.later(() => {
      if (ws === this.ws && this.state !== "open") this.lost(ws); // a handshake that hangs
    }, this.handshakeTimeout);
  }

  lost(ws) {
    if (ws !== this.ws) return;
    this.dropped();
    if (ws.readyState < 2) ws.close(4002);
  }

  dropped() {
    this.ws = null;
    this.resyncing = false;
    this.clearTimers();
    const legal = this.legalQueue.splice(0);
    for (const waiter of legal) waiter.reject(new Error("connection lost"));
    if (this.stopped) return;
    const code = this.lastError instanceof ServerError ? this.lastError.code : null;
    if (FINAL.has(code)) {
      this.stopped = true;
      this.failAll(this.lastError);
      this.setState("closed");
      return;
    }
    const { first, max } = this.backoff;
    const delay = Math.min(max, first * 2 ** this.attempts) * (0.75 + Math.random() / 2);
    this.attempts += 1;
    this.setState("reconnecting");
    this.later(() => this.open(), delay);
  }

  later(fn, ms) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
    return timer;
  }

  clearTimers() {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  failAll(error) {
    for (const intent of this.pending.values()) intent.reject(error);
    this.pending.clear();
    for (const waiter of this.legalQueue.splice(0)) waiter.reject(error);
  }

  sendFrame(frame) {
    if (!this.ws || this.ws.readyState !== 1) return false;
    this.ws.send(encode(frame));
    return true;
  }

  /** Keep the connection honest: a ping when quiet, a reconnect when nothing comes back. */
  beat() {
    if (!this.heartbeat) return;
    this.later(() => {
      if (!this.ws || this.state !== "open") return;
      if (Date.now() - this.lastHeard > 2 * this.heartbeat) {
        this.ws.close(4000); // silent too long: the socket is dead, reconnect
        return;
      }
      this.sendFrame({ t: "ping", data: null });
      this.beat();
    }, this.heartbeat);
  }

  handle(frame) {
    switch (frame.t) {
      case "welcome":
        this.welcome = frame;
        this.mirror.keys = frame.protocol >= 2 ? frame.keys : null;
        this.attempts = 0;
        this.lastError = null;
        this.setState("open");
        this.emit("welcome", frame);
        for (const [id, intent] of this.pending) {
          if (intent.acked === null) this.sendFrame({ t: "intent", id, action: intent.action });
        }
        this.beat();
        break;
      case "snapshot":
        this.resyncing = false;
        this.mirror.snapshot(frame.v, frame.doc);
        this.changed();
        break;
      case "patch": {
        const outcome = this.mirror.patch(frame.from, frame.to, frame.ops);
        if (outcome === "applied") {
          this.resyncing = false;
          this.changed();
        } else if (outcome !== "duplicate" && !this.resyncing) {
          // A gap: the patches after the version held; an op that does not fit: a snapshot.
          this.resyncing = true;
          this.resyncs += 1;
          const since = outcome === "gap" ? this.mirror.version : null;
          this.sendFrame({ t: "resync", since });
          // The server answers a resync with nothing when there is nothing newer; frames
          // come in order, so the pong of this ping closes the catch-up either way.
          this.sendFrame({ t: "ping", data: RESYNC_DONE });
        }
        break;
      }
      case "ack": {
        const intent = this.pending.get(frame.id);
        if (intent) {
          intent.acked = frame.v;
          this.settleAcks();
        }
        break;
      }
      case "reject": {
        const intent = this.pending.get(frame.id);
        const wait = intent ? nextWait("intent", frameRefusal(frame), intent, this.patience) : null;
        if (wait !== null) {
          this.emit("wait", wait);
          this.later(() => {
            if (this.pending.get(frame.id) === intent) {
              this.sendFrame({ t: "intent", id: frame.id, action: intent.action });
            }
          }, wait.seconds * 1000);
          break; // a reconnect meanwhile sends it again as well: the same id, applied once
        }
        this.pending.delete(frame.id);
        this.emit("reject", frame);
        if (intent) intent.reject(new ServerError(frame));
        break;
      }
      case "event":
        for (const event of frame.events) this.emit("event", event, frame.v);
        break;
      case "result":
        this.setResult(frame.result);
        break;
      case "legal": {
        const waiter = this.legalQueue.shift();
        const moves = frame.actions.map((action, i) => ({ action, label: frame.labels[i] }));
        if (waiter) waiter.resolve(moves);
        break;
      }
      case "error":
        if (frame.fatal) this.lastError = new ServerError(frame);
        else if (frame.of === "legal" && this.legalQueue.length) {
          const waiter = this.legalQueue.shift();
          const wait = nextWait("legal", frameRefusal(frame), waiter, this.patience);
          if (wait !== null) this.askAgain(waiter, wait);
          else waiter.reject(new ServerError(frame));
        }
        this.emit("error", frame);
        break;
      case "pong":
        if (frame.data === RESYNC_DONE && this.resyncing) {
          this.resyncing = false;
          this.emit("synced", this.mirror.version);
        }
        break;
      default:
        break; // message types of later protocol versions
    }
  }

  changed() {
    this.emit("doc", this.mirror.doc, this.mirror.version);
    this.settleAcks();
    const doc = this.mirror.doc;
    if (doc && doc.status === "finished" && !this.result) this.fetchResult();
  }

  settleAcks() {
    const version = this.mirror.version ?? -1;
    for (const [id, intent] of this.pending) {
      if (intent.acked !== null && version >= intent.acked) {
        this.pending.delete(id);
        intent.resolve({ id, v: intent.acked });
      }
    }
  }

  setResult(result) {
    if (this.result) return;
    this.result = result;
    this.emit("result", result);
  }

  /** A room that finished before this connection: the lobby keeps its result. */
  async fetchResult() {
    if (this.fetchingResult) return;
    this.fetchingResult = true;
    try {
      const room = await this.lobby.room(this.roomId);
      if (room.result) this.setResult(room.result);
    } catch (error) {
      this.lastError = error;
    } finally {
      this.fetchingResult = false;
    }
  }

  /**
   * Submit `action` for this seat. Resolves with `{id, v}` once the server acknowledged it
   * and the mirror holds version `v` (the move is in `doc`); rejects with a ServerError
   * (`code`) when refused. Sent again with the same id after a reconnect until answered,
   * so a move is applied at most once.
   */
  send(action) {
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { action, resolve, reject, acked: null });
      if (this.state === "open") this.sendFrame({ t: "intent", id, action });
    });
  }

  /** This seat's legal actions now: `[{action, label}]` (a spectator's call rejects; one
   * over the rate limit is asked again once its wait is over: a "wait" event). */
  legal() {
    return new Promise((resolve, reject) => {
      if (this.state !== "open") {
        reject(new Error("not connected"));
        return;
      }
      this.askLegal({ resolve, reject });
    });
  }

  askLegal(waiter) {
    this.legalQueue.push(waiter);
    this.sendFrame({ t: "legal" });
  }

  /** A `legal` the rate limit refused: asked again after `wait` on this connection
   * (answers come in the order asked, so the waiter joins the end of the queue then). */
  askAgain(waiter, wait) {
    this.emit("wait", wait);
    setTimeout(() => {
      if (this.state === "open") this.askLegal(waiter);
      else waiter.reject(new Error("connection lost"));
    }, wait.seconds * 1000);
  }

  /** Ask for a snapshot (or the patches after the version held, with `fromVersion`). */
  resync(fromVersion = false) {
    this.sendFrame({ t: "resync", since: fromVersion ? this.mirror.version : null });
  }
}

/** Connect to a room: `await connect(roomId, {token})` → an open RoomConnection. */
export async function connect(roomId, options = {}) {
  const room = new RoomConnection(roomId, options);
  await room.connect();
  return room;
}
