// The game viewer: /rooms/{id}/replay steps through a room's game, /replay through a
// record file exported from it. The record (`GET /api/rooms/{id}/record?views=1`,
// docs/protocol.md section 9) holds the spectator's document at the start and after
// each move; the game's own board draws the one chosen, read-only. First, previous,
// next, last, a slider and the keyboard (Home, ←, →, End; with Alt, Ctrl or Meta they
// are the browser's) step; `#move=N` in the address opens move N and is the link to it;
// "Export" saves the record as a file that /replay opens again, without the server
// knowing the room. The header links the lobby, the room and the game's how-to-play page.

import { FallbackBoard } from "./games/fallback.js";
import { loadBoard } from "./games/index.js";
import { html, isolateNames, lobby, nameRun, problem, render, useEffect, useKeptFocus, useLayoutEffect, useRef, useState } from "./common.js";
import { useChangeHighlight } from "./highlight.js";
import { headline } from "./result.js";

const roomId = (globalThis.location.pathname.match(/^\/rooms\/([^/]+)\/replay$/) || [])[1] || null;
const NOTHING = () => Promise.resolve();

function moveInAddress(count, hash = globalThis.location.hash) {
  const found = hash.match(/^#move=(\d+)$/);
  return found ? Math.min(Number(found[1]), count) : count;
}

function useBoardOf(engine) {
  const [Board, setBoard] = useState(null);
  useEffect(() => {
    loadBoard(engine).then(
      (module) => setBoard(() => (module ? module.Board : FallbackBoard)),
      () => setBoard(() => FallbackBoard),
    );
  }, [engine]);
  return Board;
}

/** The link to the how-to-play page of `engine`, once the server named it (or null). */
function useRulesOf(engine) {
  const [rules, setRules] = useState(null);
  useEffect(() => {
    lobby.games().then((games) => {
      const game = games.find((g) => g.id === engine);
      setRules((game && game.web && game.web.rules) || null);
    }, () => {});
  }, [engine]);
  return rules;
}

function seatName(record, seat) {
  const player = record.players[seat];
  return (player && player.name) || `seat ${seat + 1}`;
}

function seatWords(record, seat) {
  return `${seatName(record, seat)} (seat ${seat + 1})`;
}

/** :func:`seatWords` drawn: the name its own bidi run (common.js's `nameRun`). */
function seatRun(record, seat) {
  return html`${nameRun(seatName(record, seat))} (seat ${seat + 1})`;
}

/** What move `n` did, in words for a viewer: its sentences, which name the player (a
 * label is written for the seat that chose it: "you receive…"); a move that told nothing
 * as its player's choice, quoted once the game is over (until then it has no seat). */
function moveWords(record, n) {
  if (n === 0) return "The start of the game.";
  const move = record.moves[n - 1];
  if (move.seat === undefined) return "A move kept secret until the game is over.";
  const zombie = move.by === "zombie" ? " (A bot played for them.)" : "";
  if (move.text.length) return `${move.text.join(" ")}${zombie}`;
  return `${seatWords(record, move.seat)} chose “${move.label || "a move"}”.${zombie}`;
}

function exportRecord(record) {
  const blob = new Blob([JSON.stringify(record)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `tablewire-${record.engine}-${record.room}.json`;
  link.click();
  URL.revokeObjectURL(link.href);
}

function Viewer({ record }) {
  const count = record.views.length - 1;
  const [step, setStep] = useState(() => moveInAddress(count));
  const Board = useBoardOf(record.engine);
  const rules = useRulesOf(record.engine);
  const drawn = useRef(null);
  const single = useRef(false);
  const shown = useRef(step);
  single.current = Math.abs(step - shown.current) === 1; // a jump would light up half the board
  shown.current = step;
  useChangeHighlight(drawn, !!Board, record.views[step], single);
  // A step button out of use (« First at the first move…) is disabled: its focus goes on
  // to the slider, where ← and → step.
  const [controls, slider] = [useRef(null), useRef(null)];
  useKeptFocus(controls, slider);
  const go = (n) => setStep(Math.max(0, Math.min(count, n)));
  // From the step now, not the one drawn when this listener was made: a second press
  // before the listener is made again is a second step.
  const by = (d) => setStep((now) => Math.max(0, Math.min(count, now + d)));

  // Listening as the viewer is drawn, not after the next paint: a key pressed as soon as
  // the first step shows must step.
  useLayoutEffect(() => {
    const keys = { Home: () => go(0), End: () => go(count), ArrowLeft: () => by(-1), ArrowRight: () => by(1) };
    const onKey = (event) => {
      if (event.target instanceof HTMLInputElement) return; // the slider steps by itself
      if (event.altKey || event.ctrlKey || event.metaKey) return; // the browser's (Alt+← is Back)
      const act = keys[event.key];
      if (act) { event.preventDefault(); act(); }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [count]);
  // A link to another move of this replay, followed here, changes only the address.
  // Listened for as the viewer is drawn (not after the next paint, when a link
  // followed at once would be missed), like the keys; the move is the link's own (the
  // address may have been rewritten since, to the step shown, by the effect below).
  useLayoutEffect(() => {
    const follow = (event) => {
      const hash = new URL(event.newURL).hash;
      if (/^#move=\d+$/.test(hash)) setStep(moveInAddress(count, hash));
    };
    globalThis.addEventListener("hashchange", follow);
    return () => globalThis.removeEventListener("hashchange", follow);
  }, [count]);
  useEffect(() => {
    if (roomId) globalThis.history.replaceState(null, "", `#move=${step}`);
    document.title = `${record.title} · move ${step} of ${count} · tablewire`;
  }, [step]);

  const doc = record.views[step];
  const move = step > 0 ? record.moves[step - 1] : null;
  const over = record.status === "finished";
  return html`
    <header class="room-head">
      <div>
        <p><a href="/">← lobby</a>${roomId ? html` · <a href=${`/rooms/${roomId}`}>the room</a>` : null}${rules
          ? html` · <a href=${rules} target="_blank" rel="noopener">How to play</a>` : null}</p>
        <h1>${record.title}: replay</h1>
        <p class="muted">${record.players.map((p, s) => html`${s ? ", " : ""}${seatRun(record, s)}`)}${over ? "" : " · still being played: the replay stops at the last move so far"}</p>
      </div>
    </header>
    <div class="layout">
      <div class="side">
        <section class="card o-replay" aria-labelledby="step-title" ref=${controls}>
          <h2 id="step-title">Move ${step} of ${count}</h2>
          <p class="o-last-move" aria-live="polite">${isolateNames(moveWords(record, step), record.players.map((p) => p && p.name))}</p>
          ${over && step === count && record.result && record.result.winners && record.result.winners.length
            ? html`<p class="o-replay-result"><strong>The result: ${headline(doc, record.result, null)}</strong></p>` : null}
          ${move && move.text.length && move.label
            ? html`<p class="muted">The move as ${seatRun(record, move.seat)} chose it: “${move.label}”.</p>` : null}
          <p class="row replay-controls">
            <button type="button" class="secondary" onClick=${() => go(0)} disabled=${step === 0} aria-label="First move">« First</button>
            <button type="button" class="secondary" onClick=${() => go(step - 1)} disabled=${step === 0} aria-label="Previous move">‹ Previous</button>
            <button type="button" class="secondary" onClick=${() => go(step + 1)} disabled=${step === count} aria-label="Next move">Next ›</button>
            <button type="button" class="secondary" onClick=${() => go(count)} disabled=${step === count} aria-label="Last move">Last »</button>
          </p>
          <label for="replay-slider" class="visually-hidden">Move</label>
          <input id="replay-slider" type="range" min="0" max=${count} value=${step} ref=${slider}
            onInput=${(e) => go(Number(e.currentTarget.value))} />
          <p class="row">
            <button type="button" class="secondary" onClick=${() => exportRecord(record)}>Export the record</button>
            ${roomId ? html`<a href=${`/rooms/${roomId}/replay#move=${step}`}>Link to move ${step}</a>` : null}
          </p>
        </section>
        <section class="card o-board" aria-labelledby="board-title">
          <h2 id="board-title">Board</h2>
          <div ref=${drawn}>
            ${Board ? html`<${Board} doc=${doc} seat=${null} legal=${[]} send=${NOTHING} />` : html`<p class="loading">Loading the board…</p>`}
          </div>
        </section>
      </div>
    </div>`;
}

/** /replay: open a record file exported from a viewer. */
function OpenFile() {
  const [error, setError] = useState(null);
  async function open(event) {
    const input = event.currentTarget;
    const file = input.files[0];
    if (!file) return;
    input.value = ""; // the same file chosen again (fixed meanwhile) is read again
    try {
      const record = JSON.parse(await file.text());
      if (!record || !Array.isArray(record.views) || !record.views.length || !Array.isArray(record.moves) || !record.engine) {
        throw new Error("this file is not a tablewire game record (export one from a replay)");
      }
      render(html`<${Viewer} record=${record} />`, document.getElementById("app"));
    } catch (e) {
      setError(`That file cannot be shown: ${e instanceof SyntaxError ? "it is not JSON" : e.message}.`);
    }
  }
  return html`<section class="card">
    <h1>Open a game record</h1>
    <p>Choose a record exported from a replay (its “Export the record” button).</p>
    <label for="record-file">Record file</label>
    <input id="record-file" type="file" accept="application/json,.json" onChange=${open} />
    <p class="error" role="alert">${error || ""}</p>
    <p><a href="/">← lobby</a></p>
  </section>`;
}

function start() {
  const app = document.getElementById("app");
  app.textContent = ""; // the page's "Loading…" (render adds to what is there)
  if (!roomId) {
    render(html`<${OpenFile} />`, app);
    return;
  }
  const nothing = (said, room = null) => render(html`<section class="card"><h1>No game to show</h1>
    <p>${said}</p><p>${room ? html`<a href=${`/rooms/${room}`}>Go to the room</a> · ` : null}<a href="/">Back to the lobby</a></p></section>`, app);
  lobby.record(roomId, { views: true }).then(
    // A room waiting for players has no game yet: its record holds no view.
    (record) => (record.views.length
      ? render(html`<${Viewer} record=${record} />`, app)
      : nothing(problem({ code: "not_started" }), roomId)),
    (error) => nothing(problem(error)),
  );
}

start();
