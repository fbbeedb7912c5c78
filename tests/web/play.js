// Helpers of the SDK tests (tests/web/*.test.js): wait for a room connection to reach a
// state, and play a game to its end with the seats' connections.

/** Resolve when `predicate(room)` holds, checked after every change of the room. */
export function until(room, predicate) {
  return new Promise((resolve) => {
    if (predicate(room)) return resolve(room.doc);
    const offs = [];
    const check = () => {
      if (predicate(room)) {
        for (const off of offs) off();
        resolve(room.doc);
      }
    };
    offs.push(room.on("doc", check), room.on("state", check), room.on("result", check), room.on("synced", check));
  });
}

/** Play to the end: the seat to act (by the latest mirror) takes its first legal move. */
export async function playOut(seats, pick = (moves) => moves[0]) {
  let latest = seats[0];
  let moves = 0;
  while (latest.doc.status !== "finished") {
    const doc = latest.doc;
    const room = seats.find((s) => s.seat === doc.to_act[0]);
    await until(room, (r) => r.version >= latest.version);
    const options = await room.legal();
    await room.send(pick(options).action);
    latest = room;
    moves += 1;
  }
  return moves;
}
