// The boards of the games: engine id → a function loading its module (games/README.md).
// An engine without an entry is drawn by the fallback board (games/fallback.js).
export const boards = {
  sintra: () => import("./sintra.js"),
};
