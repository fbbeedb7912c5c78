// session.js: one room's session without I/O, the browser SDK's twin of
// protocol/session.py (re-exported by tablewire.js).
//
// A Session holds what a connection carries from one socket to the next: the mirror,
// the welcome, the intents sent and not yet settled, whether a resync is under way. It
// makes the frames to send (hello, intent, resync) and reads each frame received into
// what it means (`receive`). RoomConnection (tablewire.js) moves the bytes, keeps the
// timers and the promises, and emits the events.

import { Mirror } from "./mirror.js";

export const PROTOCOL = 2;

/** The data of the ping that follows a resync: its pong closes the catch-up. */
export const RESYNC_DONE = "tablewire:resync-done";

/**
 * A first intent id. Ids must be unique for the seat across every connection and
 * reload: start at a random 48-bit number (a safe integer in JavaScript and a msgpack
 * int on the wire).
 */
export function randomId() {
  const words = new Uint32Array(2);
  globalThis.crypto.getRandomValues(words);
  return (words[0] & 0xffff) * 2 ** 32 + words[1];
}

export class Session {
  constructor({ token = null, protocol = PROTOCOL } = {}) {
    this.token = token;
    this.protocol = protocol;
    this.mirror = new Mirror();
    this.welcome = null;
    this.intents = new Map(); // intent id -> {action, acked: version | null}
    this.nextId = randomId();
    this.resyncing = false;
    this.resyncs = 0;
  }

  /** The seat (from 0), or null for a spectator or before `welcome`. */
  get seat() {
    return this.welcome ? this.welcome.seat : null;
  }

  /** Whether the mirror holds the version the server announced in `welcome` (or later). */
  get synced() {
    const version = this.mirror.version;
    return this.welcome !== null && version !== null && version >= this.welcome.version;
  }

  /** The first frame on every socket: the token, and the version held (`since`). */
  hello() {
    return { t: "hello", protocol: this.protocol, token: this.token, since: this.mirror.version };
  }

  /** A new intent: its id, and its frame (sent again after a reconnect until answered). */
  intent(action) {
    const id = this.nextId;
    this.nextId += 1;
    this.intents.set(id, { action, acked: null });
    return { id, frame: { t: "intent", id, action } };
  }

  /** The frame of intent `id` to send again (same id: applied at most once), or null. */
  again(id) {
    const intent = this.intents.get(id);
    return intent && intent.acked === null ? { t: "intent", id, action: intent.action } : null;
  }

  /** Intent `id` was refused for good: no more sending it. */
  forget(id) {
    this.intents.delete(id);
  }

  /** The socket is gone: a resync under way ends with it (the next hello has `since`). */
  lost() {
    this.resyncing = false;
  }

  /** The socket is gone for good: every intent is forgotten. */
  clear() {
    this.intents.clear();
  }

  /**
   * Read one server frame (a map: `readFrame` first). The answer says what it meant:
   * `changed` (the mirror moved), `send` (frames to send now: unanswered intents after a
   * welcome, a resync on a gap), `settled` (`[{id, v}]`: intents acknowledged whose move
   * the mirror now holds), `synced` (a resync's catch-up is over).
   */
  receive(frame) {
    const out = { frame, changed: false, send: [], settled: [], synced: false };
    switch (frame.t) {
      case "welcome":
        this.welcome = frame;
        this.mirror.keys = frame.protocol >= 2 ? frame.keys : null;
        for (const [id, intent] of this.intents) {
          if (intent.acked === null) out.send.push({ t: "intent", id, action: intent.action });
        }
        break;
      case "snapshot":
        this.resyncing = false;
        this.mirror.snapshot(frame.v, frame.doc);
        out.changed = true;
        break;
      case "patch": {
        const outcome = this.mirror.patch(frame.from, frame.to, frame.ops);
        if (outcome === "applied") {
          this.resyncing = false;
          out.changed = true;
        } else if (outcome !== "duplicate" && !this.resyncing) {
          // A gap: the patches after the version held; an op that does not fit: a snapshot.
          this.resyncing = true;
          this.resyncs += 1;
          const since = outcome === "gap" ? this.mirror.version : null;
          // The server answers a resync with nothing when there is nothing newer; frames
          // come in order, so the pong of this ping closes the catch-up either way.
          out.send.push({ t: "resync", since }, { t: "ping", data: RESYNC_DONE });
        }
        break;
      }
      case "ack": {
        const intent = this.intents.get(frame.id);
        if (intent) intent.acked = frame.v;
        break;
      }
      case "pong":
        if (frame.data === RESYNC_DONE && this.resyncing) {
          this.resyncing = false;
          out.synced = true;
        }
        break;
      default:
        break;
    }
    if (out.changed || frame.t === "ack") out.settled = this.settle();
    return out;
  }

  settle() {
    const version = this.mirror.version ?? -1;
    const settled = [];
    for (const [id, intent] of this.intents) {
      if (intent.acked !== null && version >= intent.acked) {
        this.intents.delete(id);
        settled.push({ id, v: intent.acked });
      }
    }
    return settled;
  }
}
