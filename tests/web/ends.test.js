// How a connection of the browser SDK (clients/web/static/tablewire.js) ends: the fatal
// errors of docs/protocol.md §2 after which it reconnects and those after which it does
// not, and a room the server removes under its connections (room_closed).
// Run: node --experimental-websocket --test tests/web/ends.test.js  (tests/web/test_web_sdk.py does).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { connect, Lobby, RoomConnection } from "../../clients/web/static/tablewire.js";
import { playOut, until } from "./play.js";
import { Server } from "./spawn.js";

/** A WebSocket that never connects: the test hands the connection its frames and close. */
class SilentSocket {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
  }

  send() {}

  close() {
    this.readyState = 3;
  }
}

describe("the fatal errors of docs/protocol.md §2 (How a connection ends)", () => {
  /** The state after a fatal `error` of `code` and the close that follows it. */
  function endedBy(code) {
    const conn = new RoomConnection("r", {
      base: "http://tablewire.test", WebSocket: SilentSocket, heartbeat: 0, backoff: { first: 60000, max: 60000 },
    });
    conn.connect().catch(() => {}); // a final code rejects it
    const socket = conn.ws;
    conn.handle({ t: "error", code, message: "", fatal: true });
    socket.onclose({ code: 1008 });
    const { state } = conn;
    conn.close();
    return state;
  }

  test("after a final code the connection stays closed: no reconnect", () => {
    const final = [
      "malformed_frame", "frame_too_large", "text_frame", "not_a_map", "unknown_type",
      "bad_field", "hello_required", "unsupported_protocol", "no_such_room", "bad_token",
      "room_closed",
    ];
    for (const code of final) assert.equal(endedBy(code), "closed", code);
  });

  test("a close code that refuses the frames sent (1002, 1007, 1009) is final too", () => {
    for (const code of [1002, 1007, 1009, 1006, 1011, 1012]) {
      const conn = new RoomConnection("r", {
        base: "http://tablewire.test", WebSocket: SilentSocket, heartbeat: 0, backoff: { first: 60000, max: 60000 },
      });
      conn.connect().catch(() => {});
      conn.ws.onclose({ code });
      const final = [1002, 1007, 1009].includes(code);
      assert.equal(conn.state, final ? "closed" : "reconnecting", String(code));
      if (final) assert.equal(conn.lastError.code, "protocol_error");
      conn.close();
    }
  });

  test("a reconnect whose handshake is closed so (before welcome) ends too: no reconnect again", async () => {
    for (const code of [1002, 1007, 1009]) {
      let reopened;
      const second = new Promise((resolve) => { reopened = resolve; });
      const sockets = [];
      class Counted extends SilentSocket {
        constructor(url) {
          super(url);
          sockets.push(this);
          if (sockets.length === 2) reopened(this);
        }
      }
      const conn = new RoomConnection("r", {
        base: "http://tablewire.test", WebSocket: Counted, heartbeat: 0, backoff: { first: 1, max: 1 },
      });
      conn.connect().catch(() => {});
      conn.handle({ t: "welcome", protocol: 2, room: "r", engine: "e", seat: null, version: 0, keys: [] });
      conn.handle({ t: "snapshot", v: 0, doc: {} });
      sockets[0].onclose({ code: 1006 }); // lost: it reconnects
      assert.equal(conn.state, "reconnecting");
      (await second).onclose({ code }); // the reconnect's handshake, refused before welcome
      assert.equal(conn.state, "closed", String(code));
      assert.equal(conn.lastError.code, "protocol_error", String(code));
      assert.equal(conn.timers.size, 0, `no reconnect is due after ${code}`);
      assert.equal(sockets.length, 2);
      conn.close();
    }
  });

  test("after the others it reconnects", () => {
    const retried = [
      "hello_timeout", "too_many_connections", "store_unavailable", "too_slow", "rate_limited",
      "internal_error",
    ];
    for (const code of retried) assert.equal(endedBy(code), "reconnecting", code);
  });
});

describe("the result of a finished room", () => {
  /** A spectator's connection whose lobby calls are counted and refused (no_such_room). */
  function counted() {
    const asked = [];
    const refused = Promise.reject(Object.assign(new Error("no such room"), { code: "no_such_room" }));
    refused.catch(() => {});
    const conn = new RoomConnection("r", { base: "http://tablewire.test", WebSocket: SilentSocket, heartbeat: 0 });
    conn.lobby.room = (roomId) => {
      asked.push(roomId);
      return refused;
    };
    conn.connect().catch(() => {});
    conn.handle({ t: "welcome", protocol: 1, room: "r", engine: "e", seat: null, version: 1 });
    return { conn, asked, refused };
  }

  test("a game that ends live is not asked of the lobby: its result frame follows", async () => {
    const { conn, asked } = counted();
    conn.handle({ t: "snapshot", v: 1, doc: { status: "playing" } });
    conn.handle({ t: "patch", from: 1, to: 2, ops: [[0, ["status"], "finished"]] });
    conn.handle({ t: "error", code: "room_closed", message: "room closed", fatal: true });
    conn.ws.onclose({ code: 1008 });
    assert.deepEqual(asked, []);
    assert.equal(conn.lastError.code, "room_closed");
  });

  test("a snapshot of a finished room without its result asks the lobby", async () => {
    const { conn, asked, refused } = counted();
    conn.handle({ t: "snapshot", v: 1, doc: { status: "finished" } });
    conn.handle({ t: "error", code: "room_closed", message: "room closed", fatal: true });
    conn.ws.onclose({ code: 1008 });
    await refused.catch(() => {}); // the connection's own wait for it is answered first
    assert.deepEqual(asked, ["r"]);
    assert.equal(conn.lastError.code, "room_closed", "the lobby's refusal does not replace it");
  });
});

describe("against a real server", () => {
  // Finished rooms are removed at the first sweep after the game ends.
  const server = new Server({ env: { TABLEWIRE_FINISHED_TTL: "0", TABLEWIRE_SWEEP_INTERVAL: "0.05" } });

  before(() => server.start());
  after(() => server.stop());

  test("a frame above 1 MiB is refused with close code 1009: final, no reconnect", async () => {
    const lobby = new Lobby(server.url);
    const room = await lobby.createRoom({ engine: "turn-relay", options: { moves: 12 } });
    const watcher = await connect(room.id, { base: server.url, backoff: { first: 10, max: 10 } });
    const states = [];
    watcher.on("state", (state) => states.push(state));
    watcher.say("x".repeat(1 << 21));
    await until(watcher, (r) => r.state === "closed");
    assert.deepEqual(states, ["closed"]);
    assert.equal(watcher.lastError.code, "protocol_error");
  });

  test("a room the server removes (room_closed) ends every connection to it for good: no reconnect, room_closed is the last error", async () => {
    const lobby = new Lobby(server.url);
    const room = await lobby.createRoom({ engine: "turn-relay", options: { moves: 12 } });
    const tokens = [];
    for (let i = 0; i < 4; i += 1) tokens.push((await lobby.reserve(room.id)).token);
    const backoff = { first: 10, max: 10 };
    const conns = await Promise.all(tokens.map((token) => connect(room.id, { token, base: server.url, backoff })));
    const watcher = await connect(room.id, { base: server.url, backoff });
    const states = [];
    watcher.on("state", (state) => states.push(state));
    await playOut(conns);
    await Promise.all([...conns, watcher].map((c) => until(c, (r) => r.state === "closed")));
    assert.deepEqual(states, ["closed"]);
    for (const conn of [...conns, watcher]) assert.equal(conn.lastError.code, "room_closed");
    assert.ok(watcher.result, "the result came before the room closed");
  });
});
