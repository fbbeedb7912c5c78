// The boards of the games: engine id → a function loading its module (games/README.md).
// An engine without an entry is drawn by the fallback board (games/fallback.js).
export const boards = {
  chartered: () => import("./chartered.js"),
  "crystal-palace": () => import("./crystal-palace.js"),
  sintra: () => import("./sintra.js"),
};

// Words for option choices that are ids of printed components, for the lobby's form:
// engine id → a function resolving to {option: {choice: words}}.
export const choiceWords = {
  "crystal-palace": async () => {
    const answer = await fetch(new URL("./crystal-palace.json", import.meta.url));
    if (!answer.ok) throw new Error(`the game's data could not be loaded (${answer.status})`);
    const { publishers } = await answer.json();
    const sided = (id) => `tile ${id.slice(0, -1)}, side ${id.slice(-1)}`;
    return { publisher: Object.fromEntries(publishers.map((p) => [p.id, `${p.name} (${sided(p.id)})`])) };
  },
};
