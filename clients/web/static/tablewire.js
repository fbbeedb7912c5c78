// tablewire.js: the browser SDK of tablewire (docs/web.md), its entry: import everything
// from here. ES modules, no build step; this file holds RoomConnection and re-exports the
// lobby client (lobby-client.js), the room session without I/O (session.js, the twin of
// protocol/session.py) and the document mirror (mirror.js).
//
//   Lobby          the HTTP JSON lobby (docs/protocol.md §9): games, rooms, seats, bots.
//   RoomConnection one room over its WebSocket (binary msgpack): hello, a mirror kept by
//                  snapshots and patches (§6, §7), resync on a gap, reconnection with
//                  backoff (token and `since`), intents with ids that make retries safe,
//                  legal moves with their labels, and events for everything that happens.
//   Both wait out the server's limits (§8): a 429 (or a 503 with Retry-After), a
//                  `rate_limited` reject or error is sent again once the wait the server
//                  gives is over, within a patience; `onWait` / the "wait" event show it.
//   Session        the same room session without I/O (session.js): the frames to send,
//                  what each frame received means; RoomConnection moves its bytes.
//   applyPatch / Mirror  the patch semantics of §6, usable on their own; expandOps and
//                  readFrame: protocol 2's compact frames (§6.2) in protocol 1's terms.
//
// It runs in browsers and in Node 20+ (pass `WebSocket` where the runtime has none global).

import { decode, encode } from "./vendor/msgpack/index.mjs";

import { Lobby, PATIENCE, frameRefusal, nextWait } from "./lobby-client.js";
import { readFrame } from "./mirror.js";
import { Session } from "./session.js";

export {
  DEFAULT_WAIT_S,
  Lobby,
  LobbyError,
  PATIENCE,
  UNAVAILABLE,
  UNAVAILABLE_WAIT_S,
  frameRefusal,
  httpRefusal,
  requestKey,
} from "./lobby-client.js";
export { Mirror, PatchError, applyPatch, expandOps, readFrame } from "./mirror.js";
export { PROTOCOL, Session } from "./session.js";

/** The server refused an intent (a `reject` frame) or sent an `error` frame. */
export class ServerError extends Error {
  constructor(frame) {
    super(frame.message || frame.code);
    this.code = frame.code;
    this.frame = frame;
  }
}

/** The WebSocket base URL (`ws://host:port`) of an http(s) base, or of this page's server. */
export function wsBase(httpBase = "") {
  const base = httpBase || `${globalThis.location.protocol}//${globalThis.location.host}`;
  return base.replace(/^http/, "ws").replace(/\/$/, "");
}

/** Chat lines a connection holds (the server sends a joiner its last 50). */
const CHAT_LINES = 50;

/** Fatal error codes after which reconnecting cannot help (docs/protocol.md §2, How a
 * connection ends): a bad first frame, a room or token refused, a room the server closed. */
const FINAL = new Set([
  "malformed_frame", "frame_too_large", "text_frame", "not_a_map", "unknown_type", "bad_field",
  "hello_required", "unsupported_protocol", "no_such_room", "bad_token", "room_closed",
  "protocol_error",
]);

/** Close codes that, like a bad first frame, say the same frames would be refused again
 * (§2): 1002 (the WebSocket protocol broken), 1007 (invalid UTF-8), 1009 (a frame above
 * 1 MiB). They end the connection with a `protocol_error`, a final code. */
const REFUSED_CLOSES = new Set([1002, 1007, 1009]);

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
 *   "chat"    (lines, history) chat lines said in the room (`{seat, name, text, at}`); with
 *                             `history`, the room's recent lines after a join, which
 *                             replace `conn.chat` (a `say` refused: an "error" of "say")
 *   "error"   (frame)         an error frame (fatal ones end or restart the connection)
 *   "wait"    (wait)          a limit of the server: an intent or legal refused as
 *                             `rate_limited`, an intent refused as `store_unavailable` or
 *                             `owner_unavailable`, or a lobby call (429), is sent again
 *                             after `wait.seconds` (`{what, code, seconds, attempt}`),
 *                             within `patience`; past it, the intent's promise rejects
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
    this.session = new Session({ token });
    this.result = null;
    this.state = "closed";
    this.lastError = null;
    this.attempts = 0;
    this.ws = null;
    this.listeners = new Map();
    this.pending = new Map(); // intent id -> {resolve, reject} (its frame: the session's)
    this.legalQueue = [];
    this.chat = []; // the room's chat lines held, oldest first (at most CHAT_LINES)
    this.stopped = true;
    this.timers = new Set();
    this.lastHeard = 0;
  }

  get mirror() {
    return this.session.mirror;
  }

  get welcome() {
    return this.session.welcome;
  }

  get resyncs() {
    return this.session.resyncs;
  }

  get resyncing() {
    return this.session.resyncing;
  }

  get doc() {
    return this.mirror.doc;
  }

  get version() {
    return this.mirror.version;
  }

  /** This connection's seat (from 0), or null for a spectator or before `welcome`. */
  get seat() {
    return this.session.seat;
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
    return this.session.synced;
  }

  /**
   * Connect; resolves with the `welcome` frame once the mirror has caught up with it,
   * rejects if the server refuses for good (`code`: no_such_room, bad_token, room_closed...).
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
      this.sendFrame(this.session.hello());
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
    ws.onclose = (event) => {
      if (ws === this.ws && REFUSED_CLOSES.has(event.code)) {
        const message = `the server closed the connection (${event.code}): it cannot take what was sent`;
        this.lastError = new ServerError({ t: "error", code: "protocol_error", message, fatal: true });
      }
      this.lost(ws);
    };
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
    this.session.lost();
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
    this.session.clear();
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
    const read = this.session.receive(frame);
    if (frame.t === "welcome") {
      this.attempts = 0;
      this.lastError = null;
      this.setState("open");
      this.emit("welcome", frame);
    }
    for (const out of read.send) this.sendFrame(out);
    if (read.changed) this.changed(frame.t === "snapshot");
    for (const { id, v } of read.settled) {
      const intent = this.pending.get(id);
      this.pending.delete(id);
      if (intent) intent.resolve({ id, v });
    }
    if (read.synced) this.emit("synced", this.mirror.version);
    switch (frame.t) {
      case "welcome":
        this.beat();
        break;
      case "reject": {
        const intent = this.pending.get(frame.id);
        const wait = intent ? nextWait("intent", frameRefusal(frame), intent, this.patience) : null;
        if (wait !== null) {
          this.emit("wait", wait);
          this.later(() => {
            const again = this.pending.get(frame.id) === intent && this.session.again(frame.id);
            if (again) this.sendFrame(again);
          }, wait.seconds * 1000);
          break; // a reconnect meanwhile sends it again as well: the same id, applied once
        }
        this.pending.delete(frame.id);
        this.session.forget(frame.id);
        this.emit("reject", frame);
        if (intent) intent.reject(new ServerError(frame));
        break;
      }
      case "event":
        for (const event of frame.events) this.emit("event", event, frame.v);
        break;
      case "chat":
        this.chat = [...(frame.history ? [] : this.chat), ...frame.lines].slice(-CHAT_LINES);
        this.emit("chat", frame.lines, !!frame.history);
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
      default:
        break; // the session's frames, and message types of later protocol versions
    }
  }

  /** The mirror changed; a snapshot of a finished room without its result yet: fetch it
   * (a game that ends live, by a patch, has its `result` frame right behind). */
  changed(snapshot) {
    this.emit("doc", this.mirror.doc, this.mirror.version);
    const doc = this.mirror.doc;
    if (snapshot && doc && doc.status === "finished" && !this.result) this.fetchResult();
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
      if (this.state !== "closed") this.lastError = error; // not over why the connection ended
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
    const { id, frame } = this.session.intent(action);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.state === "open") this.sendFrame(frame);
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

  /** Say `text` to everyone in the room (docs/protocol.md §3, Chat): plain text, 1-300
   * characters. Returns whether it was sent (false while disconnected); the line comes
   * back as a "chat" event, or an "error" event with `of` "say" says why it was refused. */
  say(text) {
    return this.state === "open" && this.sendFrame({ t: "say", text });
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
