// The games' own web files, found through the lobby (games/README.md): each entry of
// GET /api/games names its board module (`web.board`), its style sheet (`web.style`), its
// words for option choices (`web.words`) and its in-room help (`web.help`), served from
// the game's folder at /games/<engine id>/. A game without a board is drawn by the fallback (games/fallback.js).

let listed = null;

/** The lobby's list of every engine (games and benchmarks), asked for once per page. */
function games() {
  listed ??= fetch("/api/games?kind=all").then((answer) => {
    if (!answer.ok) throw new Error(`the list of games could not be loaded (${answer.status})`);
    return answer.json();
  });
  return listed;
}

/** The URLs of an engine's web files: {board, style, words, help, rules}, each null when
 * absent. */
async function files(engine) {
  const game = (await games()).find((g) => g.id === engine);
  return (game && game.web) || { board: null, style: null, words: null, help: null, rules: null };
}

/** The engine's board module (its style sheet added to the page), or null without one. */
export async function loadBoard(engine) {
  const { board, style } = await files(engine);
  if (!board) return null;
  if (style && !document.querySelector(`link[href="${style}"]`)) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = style;
    document.head.append(link);
  }
  return import(board);
}

/** Words for option choices that are ids of printed components, for the lobby's form:
 * {option: {choice: words}}, empty for an engine without them. */
export async function choiceWords(engine) {
  const { words } = await files(engine);
  if (!words) return {};
  return (await import(words)).choiceWords();
}

/** The game's in-room help (its `web/help.json`: games/README.md), or null without one. */
export async function loadHelp(engine) {
  const { help } = await files(engine);
  if (!help) return null;
  const answer = await fetch(help);
  if (!answer.ok) throw new Error(`the game's help could not be loaded (${answer.status})`);
  return answer.json();
}
