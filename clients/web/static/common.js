// What the lobby and the room pages share: Preact + htm, the lobby client, the seats, the
// rooms' owner credentials and the invitations this browser holds (localStorage), and
// words for things the pages show.

export { html, render, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "./vendor/htm-preact.module.js";
import { html, useEffect, useLayoutEffect, useRef } from "./vendor/htm-preact.module.js";
import { Lobby } from "./tablewire.js";

export const lobby = new Lobby();

const SEAT_KEY = "tablewire:seat:";
const OWNER_KEY = "tablewire:owner:";
const INVITE_KEY = "tablewire:invite:";
const NAME_KEY = "tablewire:name";

function kept(key) {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

/** The seat this browser holds in `roomId`: `{token, seat, name, engine}` (`engine`
 * once the room's page has seen it), or null. */
export function heldSeat(roomId) {
  return kept(SEAT_KEY + roomId);
}

/** Keep a seat's token, so a reload or a closed tab returns to the same seat. */
export function holdSeat(reservation, name) {
  const { room, seat, token } = reservation;
  localStorage.setItem(SEAT_KEY + room, JSON.stringify({ token, seat, name: name || null }));
}

/** Note which game `roomId` is in this browser's seat there: once the room is gone, its
 * page can still offer a new game of the same kind. */
export function noteGame(roomId, engine) {
  const held = heldSeat(roomId);
  if (held && engine && held.engine !== engine) {
    localStorage.setItem(SEAT_KEY + roomId, JSON.stringify({ ...held, engine }));
  }
}

export function forgetSeat(roomId) {
  localStorage.removeItem(SEAT_KEY + roomId);
}

/** The owner credential this browser holds for `roomId` (it created the room):
 * `{ownerToken, invite}` (`invite`: null for a public room), or null. */
export function ownedRoom(roomId) {
  return kept(OWNER_KEY + roomId);
}

/** Keep the owner credential (and a private room's invitation) that a room's creation
 * answered, once: bots, and the creator's seat in a private room, need them. A rematch
 * keeps its room's owner and invitation: `holdOwner(newId, ownedRoom(oldId))`. */
export function holdOwner(roomId, { ownerToken, invite }) {
  localStorage.setItem(OWNER_KEY + roomId, JSON.stringify({ ownerToken, invite: invite || null }));
}

/** Keep the invitation of a private room this browser was given (its link's `invite`). */
export function holdInvite(roomId, invite) {
  localStorage.setItem(INVITE_KEY + roomId, JSON.stringify(invite));
}

/** The invitation this browser holds for a private room (as its owner or invited), or null. */
export function heldInvite(roomId) {
  const owned = ownedRoom(roomId);
  return (owned && owned.invite) || kept(INVITE_KEY + roomId);
}

/** How a request of this browser may add bots to `room` (the lobby's view of it, whose
 * `owned` says whether it has an owner): as its owner, or, in a room without owner
 * (quick play's), as its one seated player. `{ownerToken}`, `{token}` or null. */
export function botsCredential(room) {
  const owned = ownedRoom(room.id);
  if (owned) return { ownerToken: owned.ownerToken };
  // A quick play room has no owner: its one seated player may fill it (the server
  // refuses anyone else: nobody seats bots over another player's head).
  const seat = heldSeat(room.id);
  return seat && room.owned === false && room.taken === 1 ? { token: seat.token } : null;
}

export function savedName() {
  return localStorage.getItem(NAME_KEY) || "";
}

export function saveName(name) {
  if (name) localStorage.setItem(NAME_KEY, name);
}

export function roomPath(roomId) {
  return `/rooms/${encodeURIComponent(roomId)}`;
}

/** A room's link to hand on: its page, naming its game (`?game=`) when known, so the
 * link still offers that game once the room is gone. */
export function roomLink(roomId, engine) {
  const query = engine ? `?${new URLSearchParams({ game: engine })}` : "";
  return `${globalThis.location.origin}${roomPath(roomId)}${query}`;
}

/** A seat's name in `doc`, or "seat N" (counted from 1) while it has none. */
export function seatName(doc, seat) {
  return (doc && doc.seats[seat]) || `seat ${seat + 1}`;
}

// A letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko...).
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;

// The pattern matching the right-to-left names of the players named last (null: none),
// made again only when the names change: the log asks it for every line it draws.
let matcher = { key: null, any: null };

function rightToLeft(names) {
  const key = names.join("\u0000");
  if (matcher.key !== key) {
    const rtl = [...new Set(names.filter((name) => name && RTL.test(name)))];
    rtl.sort((a, b) => b.length - a.length);
    const any = rtl.length
      ? new RegExp(rtl.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g")
      : null;
    matcher = { key, any };
  }
  return matcher.any;
}

/** A sentence of the server's (`text`) with each of these players' `names` written in a
 * right-to-left script isolated in a <bdi>: the numbers and words after such a name are
 * read after it (unisolated, "Dice revealed: نور 1 1 1 1" drew the dice before the
 * name). Other text stays as it is, as text. */
export function isolateNames(text, names) {
  const any = rightToLeft(names);
  if (!any) return text;
  const parts = [];
  let from = 0;
  for (const found of text.matchAll(any)) {
    parts.push(text.slice(from, found.index), html`<bdi>${found[0]}</bdi>`);
    from = found.index + found[0].length;
  }
  parts.push(text.slice(from));
  return parts;
}

/** Words in a sentence: "6", "6 and 5", "6, 5 and 3" (players' names: :func:`listedNames`). */
export function listed(words) {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** A player's name (any script, user input) as drawn in a sentence: its own bidi run,
 * a <bdi>. Unisolated, the words around a right-to-left name take its direction: the
 * punctuation or number after it is drawn before it, and the comma between two such
 * names joins their run, drawing the second first. */
export function nameRun(name) {
  return html`<bdi>${name}</bdi>`;
}

/** A player's name as it goes in plain text, a tooltip or an accessible name (no
 * markup there): a name in a right-to-left script between FIRST STRONG ISOLATE and POP
 * DIRECTIONAL ISOLATE, the plain text's <bdi> (:func:`nameRun`); any other as it is. */
export function nameText(name) {
  return RTL.test(name) ? `\u2068${name}\u2069` : name;
}

/** Players' names in a sentence, each its own bidi run (:func:`nameRun`): "Ana",
 * "Ana and Ben", "Ana, Ben and Cy". A fragment for a template, not a string. */
export function listedNames(names) {
  return names.map((name, i) => html`${i === 0 ? "" : i === names.length - 1 ? " and " : ", "}${nameRun(name)}`);
}

/** "bot_delay" → "bot delay". */
export function words(key) {
  return String(key).replace(/[_-]+/g, " ");
}

/** A value for a person: yes/no for booleans, "none" for nil. */
export function shown(value) {
  if (value === true) return "yes";
  if (value === false) return "no";
  if (value === null || value === undefined) return "none";
  return String(value);
}

/** A choice of a game option in player words: its `choice_names` (the game's data file,
 * served by GET /api/games), else `named` (words for component ids: games/index.js),
 * else the value itself. */
export function choiceName(spec, choice, named) {
  const names = spec.choice_names || {};
  return names[String(choice)] || (named && named[choice]) || words(shown(choice));
}

function amount(n, unit) {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

function duration(seconds) {
  return seconds % 60 === 0 ? amount(seconds / 60, "minute") : amount(seconds, "second");
}

/** A room's time control (`clock` room option) in words: "fischer:300+5" → "5 minutes
 * + 5 s a move". */
export function clockWords(control) {
  const move = /^move:(\d+)$/.exec(control || "");
  if (move) return `${duration(Number(move[1]))} a move`;
  const fischer = /^fischer:(\d+)\+(\d+)$/.exec(control || "");
  if (fischer) return `${duration(Number(fischer[1]))} + ${fischer[2]} s a move`;
  return control && control !== "none" ? String(control) : "no clock";
}

export function playersText(game) {
  return game.min_players === game.max_players
    ? `${game.max_players} players`
    : `${game.min_players}–${game.max_players} players`;
}

/** What the server's refusals mean for a person on these pages, by code. */
const SAID = {
  owner_required: () => "Only the person who created this room can add bots to it.",
  invite_required: () =>
    "This room is private: a seat needs the invitation link its creator shares. Ask them for it.",
  player_required: () => "A rematch is for the players of this game; you can watch it once it opens.",
  seat_taken: () => "That seat is taken already.",
  seat_held: (error) =>
    `That seat is kept for a player of the previous game for a while${
      error.retryAfter ? ` (about ${Math.ceil(error.retryAfter)} s)` : ""}: try again later.`,
  room_full: () => "Every seat of this room is taken.",
  game_over: () => "This game is over.",
  record_trimmed: () =>
    "This game was too long to replay: the server no longer keeps its first moves.",
  no_such_room: () =>
    "This room does not exist (any more): finished rooms are removed after a while, and rooms nobody filled after an hour.",
  // A move refused (a `reject`): the protocol's codes, and the engines' most general ones.
  not_your_turn: () => "It is not your turn now: the game moved on before your move arrived.",
  not_started: () => "The game has not started yet: it starts once every seat is taken.",
  spectator: () => "You are watching this game: only its players make moves.",
  expelled: () => "Your seat timed out too often: a bot plays it for the rest of the game.",
  // An engine's refusal says why in a player's words (its `message`): those, else in general.
  illegal_action: (error) => enginesReason(error) || "That move is not allowed now.",
  not_allowed_now: (error) => enginesReason(error) || "That move is not allowed now.",
};

/** The server's own words of a refusal as a sentence, or "" when it sent none (a
 * ServerError without a message carries its code as its message). */
function enginesReason(error) {
  const words = (error.message || "").trim();
  return !words || words === error.code ? "" : sentence(words);
}

/** `words` as a sentence: a capital first letter, and a full stop unless it ends in one. */
export function sentence(words) {
  const said = words.replace(/^./, (c) => c.toUpperCase());
  return /[.!?]$/.test(said) ? said : `${said}.`;
}

// What browsers' fetch() rejects with when no answer came at all (Chromium, Firefox, Safari).
const UNREACHED = /failed to fetch|networkerror|load failed/i;

/** The message of an error for a person (a LobbyError or ServerError carries a code):
 * the server's own words, never its status and code ("409 name_taken: ..."). */
export function problem(error) {
  const said = error && SAID[error.code];
  if (said) return said(error);
  if (error instanceof TypeError && UNREACHED.test(error.message)) {
    return "cannot reach the server: check your connection and try again (the server may be restarting)";
  }
  if (error && typeof error.code === "string") {
    // A LobbyError's `reason`, a ServerError's message (its code when the server sent none).
    const reason = typeof error.reason === "string" ? error.reason : error.message;
    return reason && reason !== error.code ? reason : `the server refused it (${words(error.code)})`;
  }
  return error && error.message ? error.message : String(error);
}

/** :func:`problem` as a sentence's start: its first letter a capital. */
export function problemSentence(error) {
  return problem(error).replace(/^./, (c) => c.toUpperCase());
}

/** Scroll `element` into view (`block` as scrollIntoView takes it): smoothly, or at once
 * for a player who asks for reduced motion. */
export function bringIntoView(element, block = "nearest") {
  const still = globalThis.matchMedia("(prefers-reduced-motion: reduce)").matches;
  element.scrollIntoView({ block, behavior: still ? "instant" : "smooth" });
}

/** Keep the keyboard's place on a page: when the element that has the focus inside
 * `area` leaves the page (the move button just played, a confirmation bar closed), the
 * focus goes to `fallback` (an element with tabIndex -1, such as the board), not back to
 * the top of the page; so does the focus of a button put out of use (disabled). Looked at after every render of the component using it. */
export function useKeptFocus(area, fallback) {
  const inside = useRef(false);
  // Listened to from the moment the area is on the page (a layout effect, not a passive
  // one, which a busy browser runs a frame or more later): a focus given before that
  // went unnoted, and its button, put out of use, left the focus on the page's body.
  useLayoutEffect(() => {
    const note = (event) => { inside.current = !!area.current && area.current.contains(event.target); };
    document.addEventListener("focusin", note);
    return () => document.removeEventListener("focusin", note);
  }, []);
  useEffect(() => {
    const at = document.activeElement;
    // A focused button just disabled keeps the focus until the browser next looks.
    if (inside.current && (!at || at === document.body || at.disabled) && fallback.current) {
      fallback.current.focus({ preventScroll: true });
    }
  });
}

/** Give `element` the focus when the player's focus was on the board `root` (the part
 * just used, or lost with it as the board changed, or the board's frame, where
 * :func:`useKeptFocus` puts it after a move): the keyboard goes on from the next step
 * rather than from the top of the page. Never taken from elsewhere (the chat). */
export function followFocus(element, root) {
  const at = document.activeElement;
  if (!at || at === document.body || (root && (root.contains(at) || at.contains(root)))) {
    element.focus({ preventScroll: true });
  }
}

let ids = 0;

/** An id of this component's own, `name` and a number: a page may draw one board several
 * times (the how-to-play page's examples), and two elements never share an id. */
export function useUniqueId(name) {
  const id = useRef(null);
  if (id.current === null) id.current = `${name}-${++ids}`;
  return id.current;
}
