// What the lobby and the room pages share: Preact + htm, the lobby client, the seats this
// browser holds (localStorage), and words for things the pages show.

export { html, render, useCallback, useEffect, useMemo, useRef, useState } from "./vendor/htm-preact.module.js";
import { Lobby } from "./tablewire.js";

export const lobby = new Lobby();

const SEAT_KEY = "tablewire:seat:";
const NAME_KEY = "tablewire:name";

/** The seat this browser holds in `roomId`: `{token, seat, name}`, or null. */
export function heldSeat(roomId) {
  try {
    const raw = localStorage.getItem(SEAT_KEY + roomId);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

/** Keep a seat's token, so a reload or a closed tab returns to the same seat. */
export function holdSeat(reservation, name) {
  const { room, seat, token } = reservation;
  localStorage.setItem(SEAT_KEY + room, JSON.stringify({ token, seat, name: name || null }));
}

export function forgetSeat(roomId) {
  localStorage.removeItem(SEAT_KEY + roomId);
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

export function playersText(game) {
  return game.min_players === game.max_players
    ? `${game.max_players} players`
    : `${game.min_players}–${game.max_players} players`;
}

/** The message of an error for a person (a LobbyError or ServerError carries a code). */
export function problem(error) {
  return error && error.message ? error.message : String(error);
}
