// seats.js: the room page's Players card (room.js): each seat's name, presence (online,
// away, a bot), its clock's time left (at the `now` the page ticks) and who is to play.

import { html } from "./common.js";

function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

/** Seconds left on `seat`'s clock now, or null without a clock. */
function secondsLeft(clock, seat, now) {
  if (!clock) return null;
  const deadline = clock.deadline && clock.deadline[seat];
  if (deadline !== null && deadline !== undefined) return deadline - now / 1000;
  const remaining = clock.remaining && clock.remaining[seat];
  return remaining === null || remaining === undefined ? null : remaining;
}

function presenceText(presence, live) {
  if (!presence) return null;
  if (!live && !presence.bot) return { text: "not known while disconnected", kind: "away" };
  if (presence.bot === "zombie") return { text: "a bot plays for this player", kind: "away" };
  if (presence.bot) return { text: `${presence.bot} bot`, kind: "connected" };
  if (presence.connected) return { text: "online", kind: "connected" };
  if (presence.away_since) {
    const minutes = Math.floor((Date.now() / 1000 - presence.away_since) / 60);
    return { text: minutes >= 1 ? `away for ${minutes} min` : "away", kind: "away" };
  }
  return { text: "not here yet", kind: "away" };
}

/** A running clock's mark, drawn (a stopwatch character is missing from many fonts). */
function Stopwatch() {
  return html`<svg class="stopwatch" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
    <circle cx="8" cy="9.5" r="5.5" /><path d="M8 9.5V6.5M6.5 1.8h3M8 1.8V4" /></svg>`;
}

export function Seats({ doc, mySeat, now, live }) {
  const clock = doc.clock || null;
  return html`<section class="card o-seats" aria-labelledby="seats-title">
    <h2 id="seats-title">Players</h2>
    <ul class="seats">
      ${doc.seats.map((name, seat) => {
        const acting = doc.status === "playing" && doc.to_act.includes(seat);
        const presence = presenceText(doc.presence && doc.presence[seat], live);
        const left = secondsLeft(clock, seat, now);
        const running = clock && clock.deadline && clock.deadline[seat] != null;
        return html`<li class=${`seat${acting ? " to-act" : ""}`}>
          <span class="name">${name ?? "free seat"}</span>
          ${seat === mySeat ? html`<span class="badge">you</span>` : null}
          <span class="muted">seat ${seat + 1}</span>
          ${presence ? html`<span class=${`badge ${presence.kind}`}>${presence.text}</span>` : null}
          ${acting ? html`<span class="badge waiting">${seat === mySeat ? "your turn" : "to play"}</span>` : null}
          ${left === null
            ? null
            : html`<span class=${`clock${running && left < 10 ? " low" : ""}`}
                aria-label=${`${name ?? `seat ${seat + 1}`}: ${clockText(left)} left${running ? ", running" : ""}`}>
                ${running ? html`<${Stopwatch} />` : null}${clockText(left)}</span>`}
        </li>`;
      })}
    </ul>
  </section>`;
}
