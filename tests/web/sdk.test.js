// The browser SDK (clients/web/static/tablewire.js) on its own: patch semantics (§6, §7),
// the session without I/O, then against a real `tablewire serve`: the lobby, whole games with seats and spectators,
// gaps and misfits, intents cut off by a drop, a server restart, refusals.
// Run: node --experimental-websocket --test tests/web/sdk.test.js  (tests/web/test_web_sdk.py does).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  applyPatch,
  connect,
  expandOps,
  frameRefusal,
  Lobby,
  LobbyError,
  Mirror,
  PatchError,
  readFrame,
  RoomConnection,
  Session,
  UNAVAILABLE_WAIT_S,
} from "../../clients/web/static/tablewire.js";
import { decode } from "../../clients/web/static/vendor/msgpack/index.mjs";
import { playOut, until } from "./play.js";
import { haveRedis, Redis, Server } from "./spawn.js";

describe("applyPatch (§6)", () => {
  const doc = () => ({ to_act: [1], game: { center: [3, 4], log: [] }, seats: ["ana", null] });

  test("the example of §6 sets, sets and extends", () => {
    const ops = [[0, ["to_act", 0], 0], [0, ["game", "center", 1], 0], [3, ["game", "log"], [5]]];
    assert.deepEqual(applyPatch(doc(), ops), {
      to_act: [0], game: { center: [3, 0], log: [5] }, seats: ["ana", null],
    });
  });

  test("set adds a map key, remove drops it, truncate shortens, an empty path replaces", () => {
    let d = applyPatch(doc(), [[0, ["game", "round"], 2], [1, ["seats"]], [2, ["game", "center"], 1]]);
    assert.deepEqual(d, { to_act: [1], game: { center: [3], log: [], round: 2 } });
    d = applyPatch(d, [[0, [], { status: "waiting" }], [0, ["seats"], [null]]]);
    assert.deepEqual(d, { status: "waiting", seats: [null] });
    assert.deepEqual(applyPatch([1, 2, 3], [[2, [], 5]]), [1, 2, 3]);
  });

  test("the document given is not changed, and unchanged subtrees are shared", () => {
    const before = doc();
    const frozen = JSON.stringify(before);
    const after = applyPatch(before, [[0, ["game", "center", 0], 9]]);
    assert.equal(JSON.stringify(before), frozen);
    assert.equal(after.seats, before.seats);
    assert.notEqual(after.game, before.game);
    assert.equal(after.game.log, before.game.log);
  });

  test("ops that do not fit throw a PatchError and leave the document as it was", () => {
    const misfits = [
      [[0, ["nope", "x"], 1]], // a missing key on the way
      [[0, ["to_act", 1], 0]], // an index == length
      [[0, ["to_act", -1], 0]], // a negative index
      [[0, ["game", 0], 0]], // an index into a map
      [[0, ["to_act", "0"], 0]], // a key into an array
      [[1, ["game", "missing"]]], // remove a key that is not there
      [[1, ["to_act", 0]]], // remove is for map keys only
      [[2, ["game"], 0]], // truncate a map
      [[3, ["to_act"], 5]], // extend with no array
      [[7, ["to_act"]]], // unknown kind
      [[0, ["to_act", 0], 5], [0, ["game", "center", 9], 0]], // the second op of two
      ["not an op"],
    ];
    for (const ops of misfits) {
      const before = doc();
      assert.throws(() => applyPatch(before, ops), PatchError, JSON.stringify(ops));
      assert.deepEqual(before, doc());
    }
  });

  test("values are taken as they are: false is not 0", () => {
    assert.deepEqual(applyPatch({ a: 0 }, [[0, ["a"], false]]), { a: false });
  });
});

describe("Mirror (§7)", () => {
  test("a snapshot, then patches in order; duplicates are ignored; a gap or misfit is told", () => {
    const mirror = new Mirror();
    assert.equal(mirror.patch(0, 1, []), "gap");
    mirror.snapshot(3, { n: [0] });
    assert.equal(mirror.patch(3, 4, [[0, ["n", 0], 1]]), "applied");
    assert.equal(mirror.patch(3, 4, [[0, ["n", 0], 2]]), "duplicate");
    assert.equal(mirror.patch(5, 6, []), "gap");
    assert.equal(mirror.patch(4, 5, [[1, ["m"]]]), "misfit");
    assert.deepEqual([mirror.version, mirror.doc], [4, { n: [1] }]);
  });
});

describe("the session without I/O (session.js)", () => {
  const welcome = { t: "welcome", protocol: 1, seat: 0, version: 1 };

  test("hello carries the token and the version held", () => {
    const session = new Session({ token: "tok" });
    assert.deepEqual(session.hello(), { t: "hello", protocol: 2, token: "tok", since: null });
    session.receive({ t: "snapshot", v: 3, doc: { a: 1 } });
    assert.equal(session.hello().since, 3);
  });

  test("an intent settles once acknowledged and its move is in the mirror", () => {
    const session = new Session();
    session.receive(welcome);
    session.receive({ t: "snapshot", v: 1, doc: { a: 1 } });
    const { id, frame } = session.intent({ type: "go" });
    assert.deepEqual(frame, { t: "intent", id, action: { type: "go" } });
    assert.deepEqual(session.receive({ t: "ack", id, v: 2 }).settled, []);
    const read = session.receive({ t: "patch", from: 1, to: 2, ops: [[0, ["a"], 2]] });
    assert.equal(read.changed, true);
    assert.deepEqual(read.settled, [{ id, v: 2 }]);
    assert.equal(session.again(id), null);
  });

  test("a welcome sends again every intent not acknowledged, with its id", () => {
    const session = new Session();
    const { id, frame } = session.intent({ type: "go" });
    assert.deepEqual(session.receive(welcome).send, [frame]);
    session.receive({ t: "ack", id, v: 5 });
    assert.deepEqual(session.receive(welcome).send, []);
  });

  test("a gap asks once for the patches after the version held; the pong ends it", () => {
    const session = new Session();
    session.receive({ t: "snapshot", v: 1, doc: {} });
    const gap = session.receive({ t: "patch", from: 2, to: 3, ops: [] });
    assert.deepEqual(gap.send.map((f) => f.t), ["resync", "ping"]);
    assert.equal(gap.send[0].since, 1);
    assert.deepEqual(session.receive({ t: "patch", from: 3, to: 4, ops: [] }).send, []);
    const pong = session.receive({ t: "pong", data: gap.send[1].data });
    assert.equal(pong.synced, true);
    assert.equal(session.resyncs, 1);
  });
});

describe("protocol 2's compact frames (§6.2)", () => {
  const keys = [["game", "center"], ["game"], ["log"], ["to_act"]];

  test("the documented patch reads as protocol 1's ops", () => {
    // docs/protocol.md §11: 95 00 0d 93 fc 00 00 93 ff 01 00 94 c0 03 fd 91 05
    const bytes = Uint8Array.from("95000d93fc000093ff0100 94c003fd9105".replace(/ /g, "")
      .match(/../g).map((h) => parseInt(h, 16)));
    const frame = readFrame(decode(bytes));
    assert.deepEqual([frame.t, frame.from, frame.to], ["patch", 12, 13]);
    assert.deepEqual(expandOps(keys, frame.ops), [
      [0, ["to_act", 0], 0],
      [0, ["game", "center", 1], 0],
      [3, ["log"], [5]],
    ]);
    assert.deepEqual(readFrame([1, "m-7", 13]), { t: "ack", id: "m-7", v: 13 });
    assert.deepEqual(readFrame([9, 1]), { t: "unknown" });
  });

  test("a mirror with a key table applies compact ops; a bad reference is a misfit", () => {
    const mirror = new Mirror();
    mirror.keys = keys;
    mirror.snapshot(12, { to_act: [1], game: { center: [3, 3] }, log: [] });
    assert.equal(mirror.patch(12, 13, [[-4, 0, 0], [-1, 1, 0], [null, 3, -3, [5]]]), "applied");
    assert.deepEqual(mirror.doc, { to_act: [0], game: { center: [3, 0] }, log: [5] });
    assert.equal(mirror.patch(13, 14, [[-9, 1]]), "misfit");
    assert.throws(() => expandOps(keys, [[null, 7, -1]]), PatchError);
  });
});

describe("against a real server", () => {
  const server = new Server();
  let lobby;

  before(async () => {
    await server.start();
    lobby = new Lobby(server.url);
  });
  after(() => server.stop());

  const open = (roomId, token = null) =>
    connect(roomId, { token, base: server.url, backoff: { first: 20, max: 200 } });

  async function seated(engine, seats, options = {}) {
    const room = await lobby.createRoom({ engine, seats, options });
    const tokens = [];
    for (let i = 0; i < seats; i += 1) tokens.push((await lobby.reserve(room.id, { name: `p${i + 1}` })).token);
    return { room, conns: await Promise.all(tokens.map((token) => open(room.id, token))) };
  }

  test("the lobby lists games, creates rooms and seats, and refuses with stable codes", async () => {
    const games = await lobby.games();
    const sintra = games.find((g) => g.id === "sintra");
    assert.equal(sintra.kind, "game");
    assert.deepEqual(sintra.options.side.choices, ["A", "B"]);
    const room = await lobby.createRoom({ engine: "sintra", seats: 2, options: { side: "B" } });
    assert.equal(room.options.side, "B");
    const seat = await lobby.reserve(room.id, { name: "ana", seat: 1 });
    assert.equal(seat.seat, 1);
    assert.ok((await lobby.rooms({ engine: "sintra", status: "waiting" })).some((r) => r.id === room.id));
    await assert.rejects(lobby.createRoom({ engine: "chess" }), (e) => e instanceof LobbyError && e.code === "unknown_engine" && e.status === 400);
    await assert.rejects(lobby.reserve(room.id, { seat: 1 }), (e) => e.code === "seat_taken");
    const quick = await lobby.quickplay({ engine: "sintra", name: "bo", seats: 2 });
    assert.ok(quick.token);
  });

  test("bots need the owner's credential, a private room's seat its invitation", async () => {
    const room = await lobby.createRoom({ engine: "sintra", seats: 3 });
    assert.ok(room.owner_token);
    assert.equal(room.invite, undefined);
    await assert.rejects(lobby.addBots(room.id, { seats: [2] }), (e) => e.status === 403 && e.code === "owner_required");
    const seat = await lobby.reserve(room.id, { name: "ana" });
    await assert.rejects(lobby.addBots(room.id, { seats: [2], token: seat.token }), (e) => e.code === "owner_required");
    const filled = await lobby.addBots(room.id, { seats: [2], ownerToken: room.owner_token });
    assert.equal(filled.bots[2], "random");

    const quick = await lobby.quickplay({ engine: "chartered", name: "bo", seats: 3 });
    await assert.rejects(lobby.addBots(quick.room, {}), (e) => e.code === "owner_required");
    assert.equal((await lobby.addBots(quick.room, { token: quick.token })).taken, 3);

    const secret = await lobby.createRoom({ engine: "sintra", seats: 3, private: true, seed: 5 });
    assert.equal(secret.invite_url, `/rooms/${secret.id}?invite=${secret.invite}`);
    assert.equal((await lobby.room(secret.id)).seed_chosen, true);
    await assert.rejects(lobby.reserve(secret.id, { name: "eve" }), (e) => e.status === 403 && e.code === "invite_required");
    await assert.rejects(lobby.reserve(secret.id, { invite: "not-it" }), (e) => e.code === "invite_required");
    assert.equal((await lobby.reserve(secret.id, { name: "cy", invite: secret.invite })).seat, 0);
    assert.equal((await lobby.reserve(secret.id, { ownerToken: secret.owner_token })).seat, 1);
  });

  test("a rematch is for the players: their seats are held, a second ask is refused", async () => {
    const { room, conns } = await seated("turn-relay", 4, { moves: 12 });
    await until(conns[0], (r) => r.doc && r.doc.status === "playing");
    await playOut(conns);
    await assert.rejects(lobby.rematch(room.id), (e) => e.status === 403 && e.code === "player_required");
    const again = await lobby.rematch(room.id, { token: conns[0].token });
    assert.equal(again.seat, 0);
    assert.ok(again.token);
    await assert.rejects(lobby.rematch(room.id, { token: conns[0].token }), (e) => e.status === 409 && e.code === "seat_taken");
    await assert.rejects(
      lobby.reserve(again.id, { seat: 1 }),
      (e) => e.status === 409 && e.code === "seat_held" && e.retryAfter > 0,
    );
    for (const conn of conns) conn.close();
  });

  test("a whole Sintra game: every mirror equals a fresh snapshot, events have sentences", async () => {
    const { room, conns } = await seated("sintra", 2);
    const watcher = await open(room.id);
    const events = [];
    watcher.on("event", (event) => events.push(event));
    const results = [];
    watcher.on("result", (result) => results.push(result));
    await until(conns[0], (r) => r.doc && r.doc.status === "playing");
    const moves = await playOut(conns);
    assert.ok(moves > 10);
    const end = conns.find((c) => c.doc.status === "finished").version;
    for (const conn of [...conns, watcher]) await until(conn, (r) => r.version === end);
    const fresh = await open(room.id);
    assert.equal(fresh.version, end);
    for (const conn of [...conns, watcher]) assert.deepEqual(conn.doc, fresh.doc);
    await until(watcher, (r) => r.result !== null);
    assert.deepEqual(results[0].ranks.length, 2);
    await until(fresh, (r) => r.result !== null); // a room that ended before: fetched
    assert.deepEqual(fresh.result, watcher.result);
    assert.ok(events.length >= moves);
    assert.ok(events.every((e) => typeof e.text === "string" && e.text.length > 0));
    for (const conn of [...conns, watcher, fresh]) conn.close();
  });

  test("a gap asks for the patches after the version held; a misfit for a snapshot", async () => {
    const { room, conns } = await seated("turn-relay", 4, { moves: 12 });
    const watcher = await open(room.id);
    const sent = [];
    const send = watcher.ws.send.bind(watcher.ws);
    watcher.ws.send = (data) => { sent.push(data); send(data); };
    const v = watcher.version;
    watcher.handle({ t: "patch", from: v + 3, to: v + 4, ops: [] });
    assert.equal(watcher.resyncs, 1);
    watcher.handle({ t: "patch", from: v + 4, to: v + 5, ops: [] }); // no second resync meanwhile
    assert.equal(watcher.resyncs, 1);
    await until(watcher, (r) => !r.resyncing);
    watcher.handle({ t: "patch", from: watcher.version, to: watcher.version + 1, ops: [[1, ["nothing"]]] });
    assert.equal(watcher.resyncs, 2);
    await until(watcher, (r) => !r.resyncing);
    assert.deepEqual(sent.map((data) => decode(data).t), ["resync", "ping", "resync", "ping"]);
    await playOut(conns);
    const fresh = await open(room.id);
    await until(watcher, (r) => r.version === fresh.version);
    assert.deepEqual(watcher.doc, fresh.doc);
    for (const conn of [...conns, watcher, fresh]) conn.close();
  });

  test("an intent cut off by a drop is sent again with its id and applied once", async () => {
    const { conns } = await seated("turn-relay", 4, { moves: 12 });
    const seat = conns.find((c) => c.myTurn);
    const [move] = await seat.legal();
    const states = [];
    seat.on("state", (state) => states.push(state));
    const done = seat.send(move.action);
    seat.ws.close(); // the frame is out; its ack may never come on this socket
    const ack = await done;
    assert.deepEqual(states.slice(0, 2), ["reconnecting", "open"]);
    assert.equal(seat.doc.game.moveCount, 1);
    assert.ok(seat.version >= ack.v); // presence changes may follow the move
    const queued = seat.send((await seat.legal())[0]?.action ?? move.action).catch((e) => e);
    seat.ws.close();
    const outcome = await queued; // the seat is not to act any more: refused, not lost
    assert.equal(outcome.code, "not_your_turn");
    for (const conn of conns) conn.close();
  });

  test("spectators cannot act; a bad token and an unknown room end the connection", async () => {
    const { room, conns } = await seated("turn-relay", 4, { moves: 12 });
    const watcher = await open(room.id);
    assert.equal(watcher.seat, null);
    await assert.rejects(watcher.legal(), (e) => e.code === "spectator");
    await assert.rejects(watcher.send({ take: 0, colour: 0 }), (e) => e.code === "spectator");
    await assert.rejects(open(room.id, "not-a-token"), (e) => e.code === "bad_token");
    const lost = new RoomConnection("nowhere", { base: server.url });
    await assert.rejects(lost.connect(), (e) => e.code === "no_such_room");
    assert.equal(lost.state, "closed");
    for (const conn of [...conns, watcher]) conn.close();
  });

  test("presence and clock read the document's fields and are null without them", async () => {
    const { conns } = await seated("turn-relay", 4, { moves: 12 });
    const conn = conns[0];
    assert.equal(conn.presence, conn.doc.presence ?? null);
    assert.equal(conn.clock, conn.doc.clock ?? null);
    for (const c of conns) c.close();
  });
});

describe("on the Redis store", { skip: haveRedis() ? false : "redis-server is not installed" }, () => {
  const redis = new Redis();
  let server;

  before(async () => {
    await redis.start();
    server = await new Server({ env: { TABLEWIRE_REDIS_URL: redis.url } }).start();
  });
  after(async () => {
    redis.resume();
    await server.stop();
    await redis.stop();
  });

  /** A turn-relay room of 12 moves, its four seats taken and connected. */
  async function fourSeats(options = {}) {
    const lobby = new Lobby(server.url);
    const room = await lobby.createRoom({ engine: "turn-relay", options: { moves: 12 } });
    const tokens = [];
    for (let i = 0; i < 4; i += 1) tokens.push((await lobby.reserve(room.id)).token);
    const conns = await Promise.all(tokens.map((token) =>
      connect(room.id, { token, base: server.url, ...options })));
    return { room, conns };
  }

  test("a server restart is survived: the seats reconnect with token and since, and the game goes on", async () => {
    const { room, conns } = await fourSeats({ backoff: { first: 50, max: 300 } });
    const watcher = await connect(room.id, { base: server.url, backoff: { first: 50, max: 300 } });
    const seat = conns.find((c) => c.myTurn);
    await seat.send((await seat.legal())[0].action);
    const reconnected = Promise.all([...conns, watcher].map((c) =>
      until(c, (r) => r.state === "reconnecting").then(() => until(c, (r) => r.state === "open"))));
    await server.stop();
    await server.start();
    await reconnected;
    await playOut(conns);
    const fresh = await connect(room.id, { base: server.url });
    await until(watcher, (r) => r.version === fresh.version);
    assert.deepEqual(watcher.doc, fresh.doc);
    assert.equal(fresh.doc.game.moveCount, 12);
    for (const conn of [...conns, watcher, fresh]) conn.close();
  });

  test("with Redis hung, an intent rejected store_unavailable is sent again with its id and lands once", async () => {
    const { conns } = await fourSeats();
    const seat = conns.find((c) => c.myTurn);
    const { action } = (await seat.legal())[0];
    const before = seat.version;
    const waits = [];
    const rejects = [];
    seat.on("reject", (frame) => rejects.push(frame.code));
    seat.on("wait", (wait) => {
      waits.push([wait.what, wait.code, wait.seconds]);
      redis.resume(); // Redis answers again once the client has been told to wait
    });
    redis.pause();
    await seat.send(action);
    assert.deepEqual(waits[0], ["intent", "store_unavailable", UNAVAILABLE_WAIT_S]);
    assert.deepEqual(rejects, [], "a wait is no reject");
    for (const conn of conns) await until(conn, (c) => c.version === before + 1);
    for (const conn of conns) conn.close();
  });
});

describe("the rate limit", () => {
  let server;

  before(async () => {
    const env = { TABLEWIRE_QUERY_RATE: "20", TABLEWIRE_QUERY_BURST: "2", TABLEWIRE_ADDRESS_FACTOR: "0" };
    server = await new Server({ env }).start();
  });
  after(async () => {
    await server.stop();
  });

  test("a legal() the limit refuses is asked again and resolves", async () => {
    const lobby = new Lobby(server.url);
    const room = await lobby.createRoom({ engine: "turn-relay", options: { moves: 12 } });
    const tokens = [];
    for (let i = 0; i < 4; i += 1) tokens.push((await lobby.reserve(room.id)).token);
    const conns = await Promise.all(tokens.map((token) => connect(room.id, { token, base: server.url })));
    try {
      const seat = conns.find((c) => c.myTurn);
      const refused = [];
      seat.on("error", (frame) => refused.push(frame));
      // The first 4 asks at a version are free of the limit; a burst of 2 more, then refused.
      const answers = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(() => seat.legal()));
      assert.ok(answers.every((moves) => moves.length > 0));
      assert.ok(refused.some((f) => f.code === "rate_limited" && f.of === "legal"), JSON.stringify(refused));
    } finally {
      for (const conn of conns) conn.close();
    }
  });
});

describe("the server's limits are waited out", () => {
  let server;

  before(async () => {
    // One room, then one a second; one intent a second per connection.
    const env = {
      TABLEWIRE_ROOM_RATE: "1",
      TABLEWIRE_ROOM_BURST: "1",
      TABLEWIRE_INTENT_RATE: "1",
      TABLEWIRE_INTENT_BURST: "1",
    };
    server = await new Server({ env }).start();
  });
  after(async () => {
    await server.stop();
  });

  test("a room refused with 429 is created after the wait, and onWait shows it", async () => {
    const waits = [];
    const lobby = new Lobby(server.url, { onWait: (wait) => waits.push(wait) });
    const first = await lobby.createRoom({ engine: "sintra", seats: 2 });
    const second = await lobby.createRoom({ engine: "sintra", seats: 2 });
    assert.notEqual(first.id, second.id);
    assert.deepEqual(waits.map((w) => [w.what, w.code, w.attempt]), [["POST /api/rooms", "rate_limited", 1]]);
    assert.ok(waits[0].seconds > 0);
    const impatient = new Lobby(server.url, { patience: { attempts: 1, within: 120 } });
    await assert.rejects(impatient.createRoom({ engine: "sintra" }), (error) => {
      assert.ok(error instanceof LobbyError);
      assert.equal(error.code, "rate_limited");
      return true;
    });
  });

  test("an intent refused as rate_limited is sent again after a wait event", async () => {
    const lobby = new Lobby(server.url);
    const room = await lobby.createRoom({ engine: "sintra", seats: 2 }); // may wait too
    const { token } = await lobby.reserve(room.id);
    const seat = await connect(room.id, { token, base: server.url });
    try {
      const waits = [];
      const rejects = [];
      seat.on("wait", (wait) => waits.push(wait));
      seat.on("reject", (frame) => rejects.push(frame.code));
      const refusedTwice = [seat.send({ not: "an action" }), seat.send({ not: "an action" })];
      for (const sent of refusedTwice) {
        await assert.rejects(sent, (error) => error.code === "not_started");
      }
      assert.deepEqual(waits.map((w) => [w.what, w.code]), [["intent", "rate_limited"]]);
      assert.deepEqual(rejects, ["not_started", "not_started"], "a wait is no reject");
    } finally {
      seat.close();
    }
  });
});

describe("requests that take seats carry an Idempotency-Key", () => {
  /** A fetch that refuses the first try as a failover does (503, retry_after) and
   * records each try's headers. */
  function failingOnce() {
    const sent = [];
    const fetch = async (url, init) => {
      sent.push({ url, headers: init.headers });
      const body = sent.length === 1
        ? { error: { code: "store_unavailable", message: "no replica confirmed", retry_after: 0.01 } }
        : { room: "r", seat: 0, token: "t" };
      return new Response(JSON.stringify(body), { status: sent.length === 1 ? 503 : 201 });
    };
    return { sent, fetch };
  }

  test("a seat, quick play, bots and a rematch: one key per request, the same on each try", async () => {
    const calls = [
      (lobby) => lobby.reserve("r", { name: "ana" }),
      (lobby) => lobby.quickplay({ engine: "sintra" }),
      (lobby) => lobby.addBots("r", { ownerToken: "o" }),
      (lobby) => lobby.rematch("r", { token: "t" }),
    ];
    const keys = [];
    for (const call of calls) {
      const { sent, fetch } = failingOnce();
      const answer = await call(new Lobby("http://x", { fetch }));
      assert.equal(answer.seat, 0);
      const tried = sent.map((s) => s.headers["idempotency-key"]);
      assert.equal(tried.length, 2, "sent again after the wait");
      assert.equal(tried[0], tried[1], "the same key on the repeat");
      assert.match(tried[0], /^[A-Za-z0-9_-]{22}$/);
      keys.push(tried[0]);
    }
    assert.equal(new Set(keys).size, keys.length, "a key per request");
    const { sent, fetch } = failingOnce();
    await new Lobby("http://x", { fetch }).createRoom({ engine: "sintra" });
    assert.deepEqual(sent.map((s) => s.headers["idempotency-key"]), [undefined, undefined],
      "a creation carries none");
  });
});

describe("frameRefusal (§8)", () => {
  test("an unavailable reject waits what it says, else UNAVAILABLE_WAIT_S", () => {
    for (const code of ["store_unavailable", "owner_unavailable"]) {
      const frame = { t: "reject", id: 1, code, message: "for now" };
      assert.deepEqual(frameRefusal({ ...frame, retry_after: 2 }), { code, seconds: 2 });
      assert.deepEqual(frameRefusal(frame), { code, seconds: UNAVAILABLE_WAIT_S });
    }
    assert.equal(frameRefusal({ t: "reject", id: 1, code: "not_your_turn", message: "" }), null);
  });
});
