// Crystal Palace's words for option choices that are ids of printed components (the
// publisher tiles), for the lobby's form: {option: {choice: words}}.

export async function choiceWords() {
  const answer = await fetch(new URL("./board.json", import.meta.url));
  if (!answer.ok) throw new Error(`the game's data could not be loaded (${answer.status})`);
  const { publishers } = await answer.json();
  const sided = (id) => `tile ${id.slice(0, -1)}, side ${id.slice(-1)}`;
  return { publisher: Object.fromEntries(publishers.map((p) => [p.id, `${p.name} (${sided(p.id)})`])) };
}
