// The room's chat panel (docs/protocol.md §3, Chat): the recent lines, a line to say, and
// why a line was refused. Lines and names are plain text: htm puts them in the page as
// text nodes, so `<b>` shows as typed, never as markup; each name and each line is its
// own bidi run (<bdi>), so a right-to-left name never swaps places with its line. Spectators may chat before and
// after the game, and during it only in rooms whose option `spectator_chat` is on: the
// field says so rather than let them type for nothing. "Mute chat" hides the lines (kept
// in this browser); lines that arrive while it is on are counted as new. In a room that is
// gone, no field: nobody would read the line.

import { html, useEffect, useRef, useState } from "./common.js";

const MUTED_KEY = "tablewire:chat-muted";
const MAX_CHAT = 300;

/** Why a refused line was refused, for a person. */
function refusedText(frame) {
  if (frame.code === "rate_limited") {
    return `You are sending lines too fast: wait ${Math.ceil(frame.retry_after || 1)} s.`;
  }
  if (frame.code === "chat_not_allowed") return "Spectators cannot chat while this game is played.";
  return `That line was refused: ${frame.message}`;
}

function clock(at) {
  return new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** `conn`'s chat: `mySeat` (null: watching), `status` of the room, `spectatorChat` (the
 * room option). */
export function Chat({ conn, mySeat, status, spectatorChat, gone }) {
  const [lines, setLines] = useState(conn.chat);
  const [text, setText] = useState("");
  const [error, setError] = useState(null);
  const [muted, setMuted] = useState(() => localStorage.getItem(MUTED_KEY) === "1");
  const [unread, setUnread] = useState(0);
  const list = useRef(null);
  const mutedNow = useRef(muted);
  mutedNow.current = muted;

  useEffect(() => {
    setLines(conn.chat);
    const offs = [
      conn.on("chat", (said, history) => {
        setLines(conn.chat);
        if (!history && mutedNow.current) setUnread((n) => n + said.length);
      }),
      conn.on("error", (frame) => {
        if (frame.of === "say") setError(refusedText(frame));
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [conn]);

  useEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [lines, muted]);

  function mute(on) {
    setMuted(on);
    setUnread(0);
    localStorage.setItem(MUTED_KEY, on ? "1" : "0");
  }

  function say(event) {
    event.preventDefault();
    const line = text.trim();
    if (!line) return;
    setError(null);
    // Send is disabled once the field is empty: whoever pressed it types on in the field.
    event.currentTarget.elements["chat-text"].focus();
    if (conn.say(line)) setText("");
    else setError("Not connected: your line was not sent.");
  }

  const closed = mySeat === null && status === "playing" && !spectatorChat;
  return html`<section class="card o-chat" aria-labelledby="chat-title">
    <div class="chat-head">
      <h2 id="chat-title">Chat${muted && unread ? html` <span class="badge">${unread} new</span>` : null}</h2>
      <label class="inline">
        <input type="checkbox" checked=${muted} onChange=${(e) => mute(e.currentTarget.checked)} />
        Mute chat
      </label>
    </div>
    ${muted
      ? html`<p class="muted">Chat is muted: its lines are hidden.</p>`
      : lines.length
        ? html`<ul class="log chat-lines" ref=${list} aria-live="polite">${lines.map((line) => html`<li>
            <span class="muted">${clock(line.at)}</span> <strong><bdi>${line.name}</bdi>${
              line.seat !== null && line.seat === mySeat ? " (you)" : ""}</strong>: <bdi>${line.text}</bdi></li>`)}</ul>`
        : html`<p class="muted">No one has said anything yet.</p>`}
    ${gone
      ? html`<p class="muted">This room is gone: nobody reads its chat any more.</p>`
      : closed
        ? html`<p class="muted">Spectators can chat before and after the game in this room, not during it.</p>`
        : html`<form class="chat-say" onSubmit=${say}>
            <label for="chat-text" class="visually-hidden">Your message</label>
            <input id="chat-text" type="text" maxlength=${MAX_CHAT} autocomplete="off"
              placeholder="Say something to the room" value=${text}
              onInput=${(e) => setText(e.currentTarget.value)} />
            <button type="submit" disabled=${!text.trim()}>Send</button>
          </form>`}
    <p class="error" role="alert">${error || ""}</p>
  </section>`;
}
