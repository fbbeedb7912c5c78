// The game page (/rooms/{id}): the room's header and link, the seats with presence and
// clocks, what is being asked, the board (the game's web/board.js, or the fallback), the legal
// moves as buttons, the event log in sentences (its newest lines also above the board),
// the chat (chat.js), the result (result.js) with a rematch button for its players, and
// a link to the game's rules with a line of help for
// the step it is at. With a seat's token kept in this browser the page plays that seat;
// without, it watches, and while the room waits it tells a visitor what the room is
// before they sit.
// The room's owner (this browser created it) gets the invitation link of a private room
// and the bots; a player waiting alone in a quick play room is offered bots (bots.js); `?invite=SECRET` in the page's address is a private room's invitation.
// Once the room is gone (`room_closed`, `no_such_room`) none of that is offered any more:
// a new game or the lobby instead (result.js `Gone`); a link to a room that does not
// exist offers a new game of the game it names, or this browser's seat there (`NoRoom`).
// The page's connection is `globalThis.tablewireRoom` (its `doc`, `version`...), for the
// browser tests and for anyone curious in the developer console.

import { AttentionOptions, TurnCue, useAttention } from "./attention.js";
import { FillWithBots, OfferBots } from "./bots.js";
import { Chat } from "./chat.js";
import { CopyLink } from "./copy.js";
import { useConfirm } from "./confirm.js";
import { useChangeHighlight } from "./highlight.js";
import { FallbackBoard } from "./games/fallback.js";
import { Gone, NoRoom, Result } from "./result.js";
import { choiceWords, loadBoard } from "./games/index.js";
import { StepHelp, useHelp } from "./help.js";
import {
  botsCredential,
  choiceName,
  clockWords,
  forgetSeat,
  heldInvite,
  heldSeat,
  holdInvite,
  holdSeat,
  html,
  isolateNames,
  listedNames,
  nameRun,
  lobby,
  noteGame,
  problem,
  problemSentence,
  render,
  ownedRoom,
  roomLink,
  roomPath,
  savedName,
  saveName,
  seatName,
  sentence,
  useEffect,
  useKeptFocus,
  useMemo,
  useRef,
  useState,
  words,
} from "./common.js";
import { Seats } from "./seats.js";
import { RoomConnection } from "./tablewire.js";

const STEP = " → ";
const FLAT_MOVES = 12;
const LOG_SIZE = 200;
// The log's lines shown above the board.
const RECENT = 2;
// Where style.css puts the move list beside the board rather than under it.
const WIDE = "(min-width: 821px)";
const STATES = {
  connecting: "connecting…",
  open: "connected",
  reconnecting: "connection lost: reconnecting…",
  closed: "disconnected",
};

// The fatal codes after which the room is gone for good (the "room gone" badge).
const GONE = new Set(["no_such_room", "room_closed"]);

const roomId = decodeURIComponent(globalThis.location.pathname.split("/").filter(Boolean)[1] || "");

/** Why the connection ended for good, for a person. */
function closedText(error) {
  const code = error && error.code;
  if (code === "no_such_room") {
    return "This game cannot go on: the server no longer has this room. It was restarted with its rooms kept in memory only (a server with a Redis store keeps them), or the room expired.";
  }
  if (code === "room_closed") { // the server's message may say why: "room closed: <why>"
    const why = (error.message || "").replace(/^room closed:?\s*/, "");
    return `The server closed this room${why ? `: ${why}` : ""}. It is over and cannot be joined again.`;
  }
  return `The connection to the server ended: ${problem(error)}.`;
}

function asked(doc, mySeat, state) {
  if (!doc) return "";
  if (state === "closed" && doc.status !== "finished") return "The game cannot go on here: the connection is closed.";
  if (doc.status === "waiting") {
    const taken = doc.seats.filter((n) => n !== null).length;
    return `Waiting for players: ${taken} of ${doc.seats.length} seats taken.`;
  }
  if (doc.status === "finished") return "The game is over.";
  const acting = doc.to_act || [];
  const others = acting.filter((s) => s !== mySeat).map((s) => seatName(doc, s));
  if (acting.includes(mySeat)) {
    if (acting.length > 1) {
      return html`Your turn: everyone chooses at once; ${listedNames(others)} ${others.length === 1 ? "is" : "are"} choosing too.`;
    }
    return "Your turn: choose a move.";
  }
  if (acting.length === 0) return "Waiting for the game to go on.";
  return html`Waiting for ${listedNames(acting.map((s) => seatName(doc, s)))}.`;
}

/** Why a move was not played, for its player: the engine's own words when it gave any
 * (`illegal_action`, `not_allowed_now`, its own codes), else the server's code in words
 * (common.js). */
function refusedText(error) {
  return `Your move was not played. ${sentence(problem(error))}`;
}

/** The legal moves as buttons; long lists narrow one step (" → ") at a time. */
function Moves({ moves, send, busy }) {
  const [prefix, setPrefix] = useState([]);
  useEffect(() => setPrefix([]), [moves]);
  const split = moves.map((move) => ({ move, steps: move.label.split(STEP) }));
  const here = split.filter(({ steps }) => prefix.every((step, i) => steps[i] === step));
  const rest = (steps) => steps.slice(prefix.length).join(STEP);
  let buttons;
  if (here.length <= FLAT_MOVES || here.every(({ steps }) => steps.length <= prefix.length + 1)) {
    buttons = here.map(({ move, steps }) => ({ text: rest(steps) || move.label, move }));
  } else {
    const groups = new Map();
    for (const item of here) {
      const step = item.steps[prefix.length] ?? item.move.label;
      if (!groups.has(step)) groups.set(step, []);
      groups.get(step).push(item);
    }
    buttons = [...groups].map(([step, items]) => items.length === 1
      ? { text: rest(items[0].steps), move: items[0].move }
      : { text: `${step} … (${items.length} choices)`, step });
  }
  return html`<div>
    ${prefix.length
      ? html`<p class="row"><span class="muted">${prefix.join(STEP)}</span>
          <button type="button" class="secondary" onClick=${() => setPrefix(prefix.slice(0, -1))}>Back</button></p>`
      : null}
    <div class="moves" role="group" aria-label="Legal moves">
      ${buttons.map((b) => html`<button type="button" disabled=${busy}
        onClick=${() => (b.move ? send(b.move.action) : setPrefix([...prefix, b.step]))}>${b.text}</button>`)}
    </div>
  </div>`;
}

/** The engine options of `info` that differ from the game's defaults, in words. */
function changedOptions(game, info, named) {
  if (!game || !info) return [];
  return Object.entries(info.options || {})
    .filter(([key, value]) => game.options[key] && value !== game.options[key].default)
    .map(([key, value]) => `${game.options[key].name || words(key)}: ${
      choiceName(game.options[key], value, named[key])}`);
}

/** What a visitor should know before taking a seat: who may sit, whether someone may know
 * the hidden cards, the clock, the rules changed from the defaults. */
function AboutRoom({ info, game, seedChosen }) {
  const [named, setNamed] = useState({});
  const engine = game && game.id;
  useEffect(() => {
    if (engine) choiceWords(engine).then(setNamed, () => {});
  }, [engine]);
  const changed = changedOptions(game, info, named);
  const held = info.held_until && info.held_until * 1000 > Date.now() && info.held.some(Boolean);
  return html`<ul class="facts" aria-label="About this room">
    <li>${info.private
      ? "Private room: only people with its invitation link can take a seat."
      : "Public room: listed in the lobby, anyone can take a seat."}</li>
    ${seedChosen
      ? html`<li class="warn"><strong>The creator chose the seed (they can know every hidden card).</strong></li>`
      : null}
    <li>Time control: ${clockWords(info.room_options && info.room_options.clock)}.</li>
    <li>${changed.length ? `Rules changed: ${changed.join("; ")}.` : "Rules: the game's defaults."}</li>
    ${held ? html`<li>Some seats are kept for the players of the previous game for a while.</li>` : null}
  </ul>`;
}

function TakeSeat({ doc, info, game, seedChosen }) {
  const [name, setName] = useState(savedName());
  const [error, setError] = useState(null);
  const invite = heldInvite(roomId);
  const owned = ownedRoom(roomId);
  async function sit(event) {
    event.preventDefault();
    saveName(name);
    try {
      holdSeat(await lobby.reserve(roomId, { name, invite, ownerToken: owned && owned.ownerToken }), name);
      globalThis.location.reload();
    } catch (e) {
      setError(problemSentence(e));
    }
  }
  const free = doc.seats.filter((n) => n === null).length;
  const barred = info && info.private && !invite && !owned;
  // Until the room's facts arrive, whether it is private is not known: no seat is offered
  // that might be refused. Without them (the lobby could not say), the server decides.
  const asking = info === null;
  return html`<form class="card o-join" onSubmit=${sit}>
    <h2>Join this game</h2>
    <p class="muted">${free} free ${free === 1 ? "seat" : "seats"}.</p>
    ${info ? html`<${AboutRoom} info=${info} game=${game} seedChosen=${seedChosen} />` : null}
    ${asking
      ? html`<p class="muted" role="status">Reading this room's settings…</p>`
      : barred
      ? html`<p class="banner bad">You cannot take a seat here: this room is private and this browser has no invitation. Ask its creator for the invitation link; you can watch meanwhile.</p>`
      : html`<label for="seat-name">Your name</label>
        <input id="seat-name" type="text" maxlength="32" autocomplete="nickname" value=${name}
          onInput=${(e) => setName(e.currentTarget.value.trim())} />
        <p class="row actions"><button type="submit">Take a seat</button></p>`}
    <p class="error" role="alert">${error || ""}</p>
  </form>`;
}

/** The owner's invitation link of a private room, while it waits for players; it names
 * the game (`game`) as the room link does. */
function Invitation({ invite, engine }) {
  const query = new URLSearchParams(engine ? { invite, game: engine } : { invite });
  const link = `${globalThis.location.origin}${roomPath(roomId)}?${query}`;
  return html`<section class="card o-invite" aria-labelledby="invite-title">
    <h2 id="invite-title">Invite players</h2>
    <p class="muted">This room is private: only people who open this link can take a seat. Send it to the players you invite.</p>
    <${CopyLink} id="invite-link" label="Invitation link" link=${link} className="invite-link" />
  </section>`;
}

/** The log's newest lines just above the board, where a player sees what just happened
 * (on a phone the whole log is screens below the board), and the way to the whole log. */
function Recent({ log, names }) {
  if (!log.length) return null;
  return html`<section class="o-recent" aria-labelledby="recent-title">
    <h3 id="recent-title">Just played</h3>
    <ol>${log.slice(-RECENT).map((line) => html`<li>${isolateNames(line.text, names)}</li>`)}</ol>
    <a href="#log-title">Whole game log (${log.length})</a>
  </section>`;
}

/** The legal moves beside the board on a wide screen, folded under it on a phone (the
 * board's own parts are the main way to play there): a <details> with their count. */
function MoveList({ moves, send, busy }) {
  const [open, setOpen] = useState(() => globalThis.matchMedia(WIDE).matches);
  return html`<section class="card o-moves" aria-label="Your moves">
    <details class="moves-fold" open=${open} onToggle=${(e) => setOpen(e.currentTarget.open)}>
      <summary>All your moves (${moves.length})</summary>
      <${Moves} moves=${moves} send=${send} busy=${busy} />
    </details>
  </section>`;
}

/** The engine's board module: `Board` is null while it loads (the page says so rather
 * than flash the fallback's data view), the fallback when the engine has none. */
function useBoard(engine) {
  const [board, setBoard] = useState({ Board: null, note: null, describe: null });
  useEffect(() => {
    if (!engine) return;
    loadBoard(engine).then(
      (module) => setBoard(module
        ? { Board: module.Board, note: null, describe: module.resultDetails || null }
        : { Board: FallbackBoard, note: null, describe: null }),
      (error) => setBoard({
        Board: FallbackBoard, note: `the board could not be loaded (${problem(error)})`, describe: null,
      }),
    );
  }, [engine]);
  return board;
}

function Room({ conn, held, notice }) {
  const [doc, setDoc] = useState(conn.doc);
  const [state, setState] = useState(conn.state);
  const [welcome, setWelcome] = useState(conn.welcome);
  const [result, setResult] = useState(conn.result);
  const [log, setLog] = useState([]);
  const [moves, setMoves] = useState([]);
  const [busy, setBusy] = useState(false);
  // A board's several moves on their way: the board shows none of its choices meanwhile.
  const [several, setSeveral] = useState(false);
  const [error, setError] = useState(conn.lastError && conn.state === "closed" ? closedText(conn.lastError) : null);
  const [games, setGames] = useState([]);
  // The lobby's facts about this room: null while asked, false when they could not be read.
  const [info, setInfo] = useState(null);
  const [now, setNow] = useState(Date.now());
  const asking = useRef(0);
  const logEnd = useRef(null);
  // Why this player's last move was refused, shown by the move choices until the next move.
  const [refused, setRefused] = useState(null);
  const refusal = useRef(null);

  useEffect(() => {
    const offs = [
      conn.on("doc", (d) => setDoc(d)),
      conn.on("state", (s) => {
        setState(s);
        if (s === "closed" && conn.lastError) setError(closedText(conn.lastError));
      }),
      conn.on("welcome", (w) => setWelcome(w)),
      conn.on("result", (r) => setResult(r)),
      conn.on("event", (event, v) => setLog((old) => [...old.slice(1 - LOG_SIZE), { v, text: event.text }])),
    ];
    // Effects run after the first paint: what the connection received before these
    // subscriptions (its welcome, snapshot, result) is taken from it now.
    setDoc(conn.doc);
    setState(conn.state);
    setWelcome(conn.welcome);
    if (conn.result) setResult(conn.result);
    lobby.games().then(setGames, () => {});
    return () => offs.forEach((off) => off());
  }, [conn]);

  // Asked of the lobby once the server welcomed this page (the room exists): a link to a
  // room that does not exist asks nothing more (NoRoom).
  const joined = !!welcome;
  useEffect(() => {
    if (joined) lobby.room(roomId).then(setInfo, () => setInfo(false));
  }, [conn, joined]);
  // What was told before this page opened (a reload, a late spectator, a finished room)
  // comes from the record; what arrives live after the record's version stays. A record
  // read during the game is read again at its end: a long game's first moves may be gone
  // by then (the memory store's `memory_log`), and with them its replay (`replayable`):
  // the record then tells the lines still kept (`trimmed`, from `keptFrom`): the lines
  // this page saw before those stay, and the log says the earlier ones are lost if it has none.
  const hasDoc = !!doc;
  const over = hasDoc && doc.status === "finished";
  const [replayable, setReplayable] = useState(null);
  const [keptFrom, setKeptFrom] = useState(Infinity);
  const readOver = useRef(null);
  useEffect(() => {
    if (!joined || !hasDoc || replayable === false || readOver.current === over || readOver.current === true) return;
    readOver.current = over;
    lobby.record(roomId, { kept: true }).then(
      (record) => {
        const from = record.trimmed && record.log.length ? record.log[0].v : record.version + 1;
        const before = (line) => record.trimmed && line.v < from;
        const after = (line) => line.v > record.version;
        setLog((live) => [...live.filter(before), ...record.log, ...live.filter(after)].slice(-LOG_SIZE));
        setKeptFrom(record.trimmed ? from : 0);
        setReplayable(!record.trimmed);
      },
      (e) => setReplayable(e.code !== "record_trimmed"),
    );
  }, [conn, joined, hasDoc, over]);

  const mySeat = welcome ? welcome.seat : null;
  const myTurn = !!doc && doc.status === "playing" && state !== "closed" && mySeat !== null && doc.to_act.includes(mySeat);
  const version = conn.version;

  useEffect(() => {
    setMoves([]);
    if (!myTurn || state !== "open") return;
    const ask = ++asking.current;
    conn.legal().then(
      (found) => { if (ask === asking.current) setMoves(found); },
      () => {},
    );
  }, [myTurn, version, state]);

  const ticking = !!(doc && doc.clock && doc.clock.deadline && doc.clock.deadline.some((d) => d != null));
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [ticking]);

  // The newest line in view: on new lines, and once the list is first drawn (the record
  // may be read before the room's document, when the log is not on the page yet).
  const logShown = !!doc && log.length > 0;
  useEffect(() => {
    if (logEnd.current) logEnd.current.scrollTop = logEnd.current.scrollHeight;
  }, [log, logShown]);

  // A new turn of this seat: an old refusal no longer speaks of what is asked.
  useEffect(() => { if (myTurn) setRefused(null); }, [myTurn]);
  useEffect(() => {
    if (refused && refusal.current) refusal.current.scrollIntoView({ block: "nearest" });
  }, [refused]);

  // One move, or a board's list of moves made as one choice: each its own intent, sent
  // once the one before is in the document; a refusal stops the rest.
  async function send(action) {
    setBusy(true);
    setSeveral(Array.isArray(action));
    setError(null);
    setRefused(null);
    try {
      for (const one of [action].flat()) await conn.send(one);
    } catch (e) {
      setRefused(refusedText(e));
    } finally {
      setBusy(false);
      setSeveral(false);
    }
  }

  const engine = welcome ? welcome.engine : null;
  const game = games.find((g) => g.id === engine);
  const title = game ? game.title : engine || "a room";
  const [attention, chooseAttention] = useAttention(myTurn, `${title} · room ${roomId} · tablewire`);
  const { Board, note, describe } = useBoard(engine);
  const help = useHelp(engine);
  const rules = game && game.web && game.web.rules;
  useEffect(() => noteGame(roomId, engine), [engine]);
  const link = roomLink(roomId, engine);
  const owned = ownedRoom(roomId);
  const bots = info ? botsCredential(info) : null;
  const open = doc && doc.status === "waiting" && doc.seats.includes(null);

  const legal = myTurn ? moves : [];
  // The server closed the room, or no longer has it (a memory store restarted): nobody is
  // to play in it.
  const gone = state === "closed" && !!conn.lastError && GONE.has(conn.lastError.code);
  const docShown = useMemo(() => (gone && doc ? { ...doc, to_act: [] } : doc), [doc, gone]);
  const confirming = !(info && info.room_options && info.room_options.confirm === false);
  const [play, waiting, confirmBar] = useConfirm(send, legal, confirming, myTurn);
  const drawn = useRef(null);
  useChangeHighlight(drawn, !!(Board && doc && doc.game), doc);
  const [playArea, boardCard, askedLine] = [useRef(null), useRef(null), useRef(null)];
  useKeptFocus(playArea, boardCard);
  return html`
    <header class="room-head">
      <div>
        <p class="row"><a href="/">← lobby</a>${rules
          ? html`<a href=${rules} target="_blank" rel="noopener" class="o-rules-link">How to play</a>` : null}</p>
        <h1>${title}</h1>
        <p class="row">
          <span class=${`badge ${state}`} role="status" aria-live="polite">${STATES[state]}</span>
          ${mySeat === null
            ? html`<span class="badge">watching</span>`
            : html`<span class="badge">you are ${nameRun(seatName(doc, mySeat))}, seat ${mySeat + 1}</span>`}
          ${doc ? html`<span class=${`badge ${gone ? "closed" : doc.status}`}>${gone ? "room gone" : doc.status}</span>` : null}
        </p>
      </div>
      ${gone ? null : html`<${CopyLink} id="room-link" label="Room link" link=${link} className="room-link" />`}
    </header>
    ${state === "reconnecting"
      ? html`<p class="banner bad" role="alert">The connection to the server was lost. Reconnecting… your seat is kept.</p>`
      : null}
    ${notice ? html`<p class="banner">${notice}</p>` : null}
    ${error
      ? html`<p class="banner bad" role="alert">${error}${state === "closed" && !gone
          ? html` <a href="/">Back to the lobby</a>` : null}</p>`
      : null}
    ${doc
      ? html`<div class="layout" ref=${playArea}>
          <div class="side">
            ${gone ? html`<${Gone} roomId=${roomId} engine=${engine} title=${title} />` : null}
            ${result && doc.status === "finished"
              ? html`<${Result} roomId=${roomId} doc=${doc} result=${result} mySeat=${mySeat} token=${held && held.token}
                  describe=${describe} gone=${gone} replayable=${replayable} />`
              : null}
            <section class="card o-asked" aria-labelledby="asked-title">
              <h2 id="asked-title" class="visually-hidden">What is being asked</h2>
              <p class=${myTurn ? "banner" : ""} ref=${askedLine}><strong>${asked(doc, mySeat, state)}</strong></p>
              ${refused
                ? html`<p class="banner bad o-refused" role="alert" ref=${refusal}>${refused}${
                    myTurn ? " Choose a move again." : ""}</p>`
                : null}
              ${confirmBar}
              <${StepHelp} help=${help} doc=${doc} seat=${myTurn ? mySeat : null} rules=${rules} />
              ${bots && open && !gone && info.owned === false && mySeat !== null
                ? html`<${OfferBots} roomId=${roomId} doc=${doc} mySeat=${mySeat} credential=${bots} game=${game} />`
                : null}
              ${myTurn && !legal.length
                ? html`<p class="muted">${state === "open" ? "Finding your moves…" : "Your moves come back with the connection."}</p>`
                : null}
              <${Recent} log=${log} names=${doc.seats} />
            </section>
            <section class="card o-board" aria-labelledby="board-title" data-board=${engine}
              ref=${boardCard} tabIndex="-1">
              <h2 id="board-title" class="visually-hidden">Board</h2>
              ${note ? html`<p class="muted">${note}</p>` : null}
              ${!doc.game
                ? html`<p class="muted">The board appears when every seat is taken.</p>`
                : Board
                  ? html`<div ref=${drawn}><${Board} doc=${docShown} seat=${mySeat} legal=${waiting || several ? [] : legal} send=${play} /></div>`
                  : html`<p class="loading">Loading the board…</p>`}
            </section>
          </div>
          <aside class="side">
            ${myTurn && legal.length ? html`<${MoveList} moves=${legal} send=${play} busy=${busy || !!waiting} />` : null}
            <${Seats} doc=${docShown} mySeat=${mySeat} now=${now} live=${state === "open"} />
            ${mySeat !== null && doc.status !== "finished" && !gone
              ? html`<${AttentionOptions} options=${attention} choose=${chooseAttention} />` : null}
            ${owned && owned.invite && doc.status === "waiting" && !gone ? html`<${Invitation} invite=${owned.invite} engine=${engine} />` : null}
            ${mySeat === null && open && !gone
              ? html`<${TakeSeat} doc=${doc} info=${info} game=${game}
                  seedChosen=${!!((welcome && welcome.seed_chosen) || (info && info.seed_chosen))} />`
              : null}
            ${bots && open && !gone && info.owned !== false ? html`<${FillWithBots} roomId=${roomId} credential=${bots} game=${game} />` : null}
            <${Chat} conn=${conn} mySeat=${mySeat} status=${doc.status} gone=${gone}
              spectatorChat=${!!(info && info.room_options && info.room_options.spectator_chat)} />
            <section class="card o-log" aria-labelledby="log-title">
              <h2 id="log-title">Game log</h2>
              ${replayable === false && !(log.length && log[0].v < keptFrom)
                ? html`<p class="muted trimmed">Earlier moves of this game are not kept: the server keeps only a long game's latest moves.</p>`
                : null}
              ${log.length
                ? html`<ul class="log" ref=${logEnd} aria-live="polite">${log.map((line) => html`<li>${isolateNames(line.text, doc.seats)}</li>`)}</ul>`
                : html`<p class="muted">Moves appear here as they are played.</p>`}
            </section>
          </aside>
          <${TurnCue} myTurn=${myTurn} asked=${askedLine} board=${boardCard} />
        </div>`
      : gone
        ? html`<${Gone} roomId=${roomId} engine=${engine} title=${title} />`
        : state === "closed"
          ? (error ? null : html`<p class="card"><a href="/">Back to the lobby</a></p>`)
          : html`<p class="loading">Loading the room…</p>`}
  `;
}

/** Render at once (the page shows "connecting" while the server is away), then join. */
function start() {
  const app = document.getElementById("app");
  const invite = new URLSearchParams(globalThis.location.search).get("invite");
  if (invite) holdInvite(roomId, invite);
  const held = heldSeat(roomId);
  const conn = new RoomConnection(roomId, { token: held ? held.token : null });
  globalThis.tablewireRoom = conn;
  render(html`<${Room} key="seat" conn=${conn} held=${held} />`, app);
  conn.connect().catch((error) => {
    if (error.code === "no_such_room") {
      const named = new URLSearchParams(globalThis.location.search).get("game");
      render(html`<${NoRoom} roomId=${roomId} engine=${named || (held && held.engine) || null} />`, app);
    } else if (held && error.code === "bad_token") {
      forgetSeat(roomId);
      const watcher = new RoomConnection(roomId);
      globalThis.tablewireRoom = watcher;
      const notice = "The seat this browser held in this room is no longer valid: you are watching.";
      render(html`<${Room} key="watch" conn=${watcher} held=${null} notice=${notice} />`, app);
      watcher.connect().catch(() => {});
    }
  });
}

start();
