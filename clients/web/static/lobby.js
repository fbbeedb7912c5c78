// The lobby page (/): every game with its options, the public rooms (polled every few
// seconds), create a room (with bots; public or private), quick play, take a seat, fill
// the free seats of a room this browser owns with bots, watch any room. A few rooms one
// may join come first, above the games ("Join a game"), the others under them. Why an
// action failed is said where it was asked for: on its game's card, on its room's row.

import {
  botsCredential,
  choiceName,
  clockWords,
  heldSeat,
  holdOwner,
  holdSeat,
  html,
  lobby,
  playersText,
  problemSentence,
  render,
  roomPath,
  savedName,
  saveName,
  useEffect,
  useRef,
  useState,
  words,
} from "./common.js";
import { choiceWords } from "./games/index.js";

const POLL_MS = 3000;
// The open rooms listed above the games, at most: the rest are in the list under them.
const OPEN_FIRST = 3;
const CLOCKS = ["none", "move:30", "move:60", "fischer:300+5", "fischer:900+10"];

/** The rooms to list: every room waiting for players (one page of them), then the newest
 * of the others. One page of all rooms, newest first, would leave out a room waiting
 * behind a page of newer games, and its seats with it. */
async function publicRooms() {
  const [waiting, newest] = await Promise.all([lobby.rooms({ status: "waiting" }), lobby.rooms()]);
  const seen = new Set(waiting.map((room) => room.id));
  return [...waiting, ...newest.filter((room) => !seen.has(room.id))];
}

function go(roomId) {
  globalThis.location.assign(roomPath(roomId));
}

/** A game option as a form control: a checkbox for yes/no, else a select of its choices
 * in words (common.js `choiceName`), the default marked.
 * `named`: words for choices that are component ids (games/index.js). */
function OptionField({ game, name, spec, value, onChange, named }) {
  const id = `${game.id}-opt-${name}`;
  const choices = spec.choices || [];
  const isFlag = choices.length === 2 && choices.every((c) => typeof c === "boolean");
  if (isFlag) {
    return html`<div>
      <label class="inline" for=${id}>
        <input id=${id} type="checkbox" checked=${value === true}
          aria-describedby=${`${id}-hint`} onChange=${(e) => onChange(e.currentTarget.checked)} />
        ${spec.name || words(name)}
      </label>
      <span class="hint" id=${`${id}-hint`}>${spec.description}</span>
    </div>`;
  }
  return html`<div>
    <label for=${id}>${spec.name || words(name)}<span class="hint">${spec.description}</span></label>
    <select id=${id} value=${String(value)}
      onChange=${(e) => onChange(choices[e.currentTarget.selectedIndex])}>
      ${choices.map((choice) => html`<option value=${String(choice)}>
        ${choiceName(spec, choice, named)}${choice === spec.default ? " (default)" : ""}
      </option>`)}
    </select>
  </div>`;
}

/** "Play now": a table of three (within the game's counts, at most four) where every
 * other seat is the server's default bot, the strongest the game has, acting at once. */
function playNow(game) {
  const seats = Math.min(Math.max(game.min_players, 3), game.max_players, 4);
  const others = Array.from({ length: seats - 1 }, (_, n) => n + 1);
  return { engine: game.id, seats, bots: { seats: others } };
}

/** A room of one's own, then its first free seat under `name`. The room's request names
 * it too: the server refuses there, before the room is made, a name the seat's request
 * would refuse in it (docs/protocol.md, `POST /api/rooms`), so no room of bots is left
 * waiting in the list with nobody. */
async function createAndSit(body, name) {
  const room = await lobby.createRoom(name ? { ...body, name } : body);
  const ownerToken = room.owner_token;
  holdOwner(room.id, { ownerToken, invite: room.invite });
  return lobby.reserve(room.id, { name, ownerToken });
}

function GameCard({ game, name }) {
  const defaults = Object.fromEntries(
    Object.entries(game.options).map(([key, spec]) => [key, spec.default]));
  const [options, setOptions] = useState(defaults);
  const small = Math.min(game.max_players, Math.max(game.min_players, 2));
  const [seats, setSeats] = useState(small);
  const [bots, setBots] = useState(small - 1);
  // The bots' strength is also said in full under their select: a closed select shows
  // only the start of its choice on a phone.
  const [botKind, setBotKind] = useState(game.bots[0].kind);
  const [clock, setClock] = useState("none");
  const [hidden, setHidden] = useState(false);
  const [spectatorChat, setSpectatorChat] = useState(false);
  const [busy, setBusy] = useState(false);
  // Why this card's last action failed: said on the card, brought into view (on a phone
  // the page's own line is screens above the lower cards).
  const [error, setError] = useState(null);
  const said = useRef(null);
  useEffect(() => {
    if (error && said.current) said.current.scrollIntoView({ block: "nearest" });
  }, [error]);
  const counts = [];
  for (let n = game.min_players; n <= game.max_players; n += 1) counts.push(n);
  const ruleOptions = Object.entries(game.options);
  const [named, setNamed] = useState({});
  useEffect(() => {
    choiceWords(game.id).then(setNamed, () => {});
  }, [game.id]);
  const changed = ruleOptions.filter(([key, spec]) => options[key] !== spec.default).map(([key]) => key);

  async function act(how) {
    setBusy(true);
    setError(null);
    saveName(name);
    try {
      let reservation;
      if (how === "quick") {
        // The default count asks for none: a person waiting in a room of any size first.
        reservation = await lobby.quickplay({ engine: game.id, name, seats: seats === small ? null : seats });
      } else if (how === "now") {
        reservation = await createAndSit(playNow(game), name);
      } else {
        const body = { engine: game.id, seats, options: { ...options } };
        if (clock !== "none") body.options.clock = clock;
        if (spectatorChat) body.options.spectator_chat = true;
        if (bots > 0) {
          const botSeats = [];
          for (let s = seats - bots; s < seats; s += 1) botSeats.push(s);
          body.bots = { seats: botSeats, kind: botKind };
        }
        if (hidden) body.private = true;
        reservation = await createAndSit(body, name);
      }
      holdSeat(reservation, name);
      go(reservation.room);
    } catch (error) {
      setError(problemSentence(error));
      setBusy(false);
    }
  }

  const id = (what) => `${game.id}-${what}`;
  return html`<section class="card" aria-labelledby=${id("title")}>
    <h3 id=${id("title")}>${game.title}</h3>
    <p class="muted">${playersText(game)}${game.web.rules
      ? html` · <a href=${game.web.rules} aria-label=${`How to play ${game.title}`}>How to play</a>` : null}</p>
    <p class="row actions">
      <button type="button" class="play-now" disabled=${busy} onClick=${() => act("now")}
        aria-describedby=${id("now-hint")}>Play now</button>
      <span class="hint" id=${id("now-hint")}>you and ${playNow(game).seats - 1} bots; the game starts at once</span>
    </p>
    ${error ? html`<p class="error" role="alert" ref=${said}>${error}</p>` : null}
    <form onSubmit=${(e) => { e.preventDefault(); act("create"); }}>
      <label for=${id("seats")}>players</label>
      <select id=${id("seats")} value=${String(seats)}
        onChange=${(e) => { const n = Number(e.currentTarget.value); setSeats(n); setBots(Math.min(bots, n - 1)); }}>
        ${counts.map((n) => html`<option value=${String(n)}>
          ${n}${n === small ? " (default)" : ""}</option>`)}
      </select>
      ${ruleOptions.length
        ? html`<details class="rules">
            <summary>House rules: ${changed.length
              ? `${changed.length} of ${ruleOptions.length} changed (${
                changed.map((key) => game.options[key].name || words(key)).join(", ")})`
              : `all ${ruleOptions.length} at their defaults`}</summary>
            ${ruleOptions.map(([key, spec]) => html`<${OptionField}
              game=${game} name=${key} spec=${spec} value=${options[key]} named=${named[key]}
              onChange=${(v) => setOptions({ ...options, [key]: v })} />`)}
          </details>`
        : null}
      <label for=${id("clock")}>time control</label>
      <select id=${id("clock")} value=${clock} onChange=${(e) => setClock(e.currentTarget.value)}>
        ${CLOCKS.map((value) => html`<option value=${value}>
          ${clockWords(value)}${value === "none" ? " (default)" : ""}</option>`)}
      </select>
      <div class="row">
        <div>
          <label for=${id("bots")}>bots</label>
          <select id=${id("bots")} value=${String(bots)}
            onChange=${(e) => setBots(Number(e.currentTarget.value))}>
            ${Array.from({ length: seats }, (_, n) => html`<option value=${String(n)}>
              ${n === 0 ? "none" : `${n} of ${seats} seats`}${n === seats - 1 ? " (default)" : ""}</option>`)}
          </select>
        </div>
        <div>
          <label for=${id("botkind")}>bot strength</label>
          <select id=${id("botkind")} value=${botKind} disabled=${bots === 0}
            aria-describedby=${id("botkind-hint")} onChange=${(e) => setBotKind(e.currentTarget.value)}>
            ${game.bots.map((b, i) => html`<option value=${b.kind}>
              ${b.kind} — ${b.strength}${i === 0 ? " (default)" : ""}</option>`)}
          </select>
          <span class="hint" id=${id("botkind-hint")}>${
            (game.bots.find((b) => b.kind === botKind) || game.bots[0]).strength}</span>
        </div>
      </div>
      <div>
        <label class="inline" for=${id("private")}>
          <input id=${id("private")} type="checkbox" checked=${hidden}
            aria-describedby=${id("private-hint")} onChange=${(e) => setHidden(e.currentTarget.checked)} />
          Private room (invitation only)
        </label>
        <span class="hint" id=${id("private-hint")}>not listed; a seat needs the link you share</span>
      </div>
      <div>
        <label class="inline" for=${id("spectator-chat")}>
          <input id=${id("spectator-chat")} type="checkbox" checked=${spectatorChat}
            aria-describedby=${id("spectator-chat-hint")} onChange=${(e) => setSpectatorChat(e.currentTarget.checked)} />
          Spectators may chat during the game
        </label>
        <span class="hint" id=${id("spectator-chat-hint")}>else only before and after it: a spectator may know what a player does not (a friend looking over a shoulder)</span>
      </div>
      <div class="row actions">
        <button type="submit" disabled=${busy}>Create room</button>
        <button type="button" class="secondary" disabled=${busy}
          aria-describedby=${id("quick-hint")} onClick=${() => act("quick")}>Quick play</button>
      </div>
      <span class="hint" id=${id("quick-hint")}>Quick play: a seat beside players waiting for this game, else a new public room; of the choices above, only the number of players counts</span>
    </form>
  </section>`;
}

/** Whether seat `seat` of `room` is free but kept, for a while, for the player who had it
 * in the last game (a rematch's `held` seats): a visitor's request for it is refused. */
function kept(room, seat) {
  return room.names[seat] === null && !!(room.held && room.held[seat])
    && room.held_until * 1000 > Date.now();
}

/** Whether a person may join `room` now: it waits for players and has a seat free to
 * anyone (or one this browser holds). */
function joinable(room) {
  return room.status === "waiting"
    && (!!heldSeat(room.id) || room.names.some((n, seat) => n === null && !kept(room, seat)));
}

function RoomRow({ room, title, name, error, setError }) {
  const free = room.names.filter((n) => n === null).length;
  const open = room.names.filter((n, seat) => n === null && !kept(room, seat)).length;
  const mine = heldSeat(room.id);
  const bots = botsCredential(room);
  const waiting = room.status === "waiting";
  // Why this row's last action failed (`error`), said on the row wherever it is listed.
  const failed = (e) => setError(problemSentence(e));

  async function sit() {
    setError(null);
    saveName(name);
    try {
      const reservation = await lobby.reserve(room.id, { name });
      holdSeat(reservation, name);
      go(room.id);
    } catch (e) {
      failed(e);
    }
  }

  async function fill() {
    setError(null);
    try {
      await lobby.addBots(room.id, bots);
    } catch (e) {
      failed(e);
    }
  }

  // A player with no page open on a room still to be played is away: a visitor sitting
  // beside them may wait for nobody.
  const away = (seat) => room.status !== "finished" && !(room.bots && room.bots[seat])
    && !!room.connected && room.connected[seat] === false;
  // Each name its own bidi run (<bdi>): two right-to-left names never swap places.
  const names = room.names.map((n, seat) => (n !== null
    ? html`${seat ? ", " : ""}<bdi>${n}</bdi>${away(seat) ? " (away)" : ""}`
    : html`${seat ? ", " : ""}${kept(room, seat)
      ? html`kept for <bdi>${(room.held_names && room.held_names[seat]) || `player ${seat + 1}`}</bdi>`
      : "free seat"}`));
  return html`<tr>
    <td><a href=${roomPath(room.id)}>${title}</a><br /><span class="muted">room ${room.id}</span></td>
    <td><span class=${`badge ${room.status}`}>${room.status}</span></td>
    <td>${room.seats - free} of ${room.seats} seats taken<br /><span class="muted names">${names}</span></td>
    <td><div class="row">
      ${mine
        ? html`<a class="button" href=${roomPath(room.id)}>Back to your seat</a>`
        : waiting && open > 0
          ? html`<button type="button" onClick=${sit}>Take a seat</button>`
          : null}
      ${bots && waiting && free > 0
        ? html`<button type="button" class="secondary" onClick=${fill}
            aria-label=${`Fill the free seats of room ${room.id} with bots`}>Fill with bots</button>`
        : null}
      <a class="button secondary" href=${roomPath(room.id)}
        aria-label=${`Watch room ${room.id}`}>Watch</a>
    </div>${error ? html`<p class="error" role="alert">${error}</p>` : null}</td>
  </tr>`;
}

function Lobby() {
  const [games, setGames] = useState(null);
  const [rooms, setRooms] = useState([]);
  const [name, setName] = useState(savedName());
  const [error, setError] = useState(null);
  const [stale, setStale] = useState(false);
  // Why a row's last action failed, by room id, with where it was asked: a room of "Join
  // a game" that filled before this page was told stays there, saying why, now playing.
  const [failures, setFailures] = useState({});
  const rowError = (id, top) => (error) => setFailures((all) => ({
    ...all, [id]: error === null ? undefined : { error, top },
  }));

  useEffect(() => {
    let stopped = false;
    // The games, read until they are: a page opened while the server restarted shows
    // them with its next look at the rooms, not "Loading the games…" for good.
    let read = false;
    async function readGames() {
      try {
        setGames(await lobby.games());
        read = true;
        setError(null);
      } catch (e) {
        setError(problemSentence(e));
      }
    }
    async function poll() {
      if (stopped) return;
      if (!read) await readGames();
      if (!document.hidden) {
        try {
          setRooms(await publicRooms());
          setStale(false);
        } catch {
          setStale(true);
        }
      }
      setTimeout(poll, POLL_MS);
    }
    poll();
    return () => { stopped = true; };
  }, []);

  const titles = Object.fromEntries((games || []).map((g) => [g.id, g.title]));
  const playable = (games || []).filter((g) => (g.kind ?? "game") === "game");
  const listed = rooms.filter((r) => titles[r.engine] && playable.some((g) => g.id === r.engine));
  const order = { waiting: 0, playing: 1, finished: 2 };
  listed.sort((a, b) => order[a.status] - order[b.status]);
  // The rooms a person may join come first, above the games: on a phone the game cards
  // fill screens, and a player looking for a table would scroll past all of them.
  const first = listed.filter((room) => joinable(room) || failures[room.id]?.top)
    .slice(0, OPEN_FIRST);
  const rest = listed.filter((room) => !first.includes(room));
  const more = rest.filter(joinable).length;

  return html`
    <header class="row spread">
      <div>
        <h1>tablewire</h1>
        <p class="muted">Board games in the browser: play with friends or bots, or watch a game.</p>
      </div>
      <div class="name-field">
        <label for="name">Your name<span class="hint">shown at the table</span></label>
        <input id="name" type="text" maxlength="32" autocomplete="nickname" value=${name}
          placeholder="player" onInput=${(e) => setName(e.currentTarget.value.trim())} />
      </div>
    </header>
    <p role="status" aria-live="polite" class="error">${error || ""}</p>
    ${first.length ? html`<section aria-labelledby="open-title">
      <h2 id="open-title">Join a game</h2>
      <p class="muted">Rooms waiting for players: the game starts once every seat is taken.</p>
      <${RoomsTable} rooms=${first} titles=${titles} name=${name} failures=${failures}
        rowError=${(id) => rowError(id, true)} />
      ${more ? html`<p><a href="#rooms-title">${more === 1 ? "1 more open room" : `${more} more open rooms`}</a> under the games.</p>` : null}
    </section>` : null}
    <h2>Start a game</h2>
    ${games === null
      ? html`<p class="loading">Loading the games…</p>`
      : html`<div class="grid">
          ${playable.map((game) => html`<${GameCard} key=${game.id} game=${game} name=${name} />`)}
        </div>`}
    <h2 id="rooms-title">${first.length ? "More rooms" : "Rooms"}</h2>
    <p class="muted">Public rooms, refreshed every ${POLL_MS / 1000} seconds${stale ? " (the server is not answering; retrying)" : ""}.</p>
    ${rest.length === 0
      ? html`<p class="card muted">${first.length ? "No other rooms now." : "No rooms yet: create one above."}</p>`
      : html`<${RoomsTable} rooms=${rest} titles=${titles} name=${name} failures=${failures}
          rowError=${(id) => rowError(id, false)} />`}
  `;
}

/** The rooms as a table: each row's game, status, players and what one may do there. */
function RoomsTable({ rooms, titles, name, failures, rowError }) {
  return html`<div class="card scroll-x"><table class="rooms">
    <thead><tr><th scope="col">Game</th><th scope="col">Status</th>
      <th scope="col">Players</th><th scope="col">Actions</th></tr></thead>
    <tbody>${rooms.map((room) => html`<${RoomRow} key=${room.id} room=${room}
      title=${titles[room.engine]} name=${name} error=${failures[room.id]?.error ?? null}
      setError=${rowError(room.id)} />`)}</tbody>
  </table></div>`;
}

render(html`<${Lobby} />`, document.getElementById("app"));
