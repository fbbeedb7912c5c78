// The boards of the games: engine id → a function loading its module (games/README.md).
// An engine without an entry is drawn by the fallback board (games/fallback.js).
export const boards = {
  chartered: () => import("./chartered.js"),
  "crystal-palace": () => import("./crystal-palace.js"),
  sintra: () => import("./sintra.js"),
};
