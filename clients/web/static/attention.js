// Calling a player back when it is their turn: the tab's title starts with "Your turn"
// and its icon gets a red dot while this seat must act; optionally a short sound, and
// a browser notification while the tab is hidden. Both options are off until the
// player turns them on (the browser asks for the notification permission then), and
// are kept in this browser (localStorage).

import { html, useEffect, useRef, useState } from "./common.js";

const KEY = "tablewire:attention";
const ICON = "/static/favicon.svg";
const TURN_ICON = "/static/favicon-turn.svg";
export const TURN_PREFIX = "Your turn · ";

function saved() {
  try {
    return { sound: false, notify: false, ...JSON.parse(localStorage.getItem(KEY) || "{}") };
  } catch {
    return { sound: false, notify: false };
  }
}

function beep() {
  const Context = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!Context) return;
  const context = new Context();
  const tone = context.createOscillator();
  const volume = context.createGain();
  tone.frequency.value = 660;
  volume.gain.setValueAtTime(0.15, context.currentTime);
  volume.gain.exponentialRampToValueAtTime(0.001, context.currentTime + 0.3);
  tone.connect(volume).connect(context.destination);
  tone.start();
  tone.stop(context.currentTime + 0.3);
  tone.onended = () => context.close();
}

// Both icons are read once while the page loads and kept as data: URLs (which the
// page's img-src allows), so a turn that starts or ends while the server is
// unreachable swaps the icon without a request.
const kept = {};
for (const href of [ICON, TURN_ICON]) {
  fetch(href).then((answer) => (answer.ok ? answer.text() : null)).then(
    (svg) => { if (svg) kept[href] = `data:image/svg+xml,${encodeURIComponent(svg)}`; },
    () => {},
  );
}

function setIcon(myTurn) {
  const link = document.querySelector('link[rel="icon"]');
  const turn = myTurn ? "yes" : "no";
  if (!link || link.dataset.turn === turn) return;
  const href = myTurn ? TURN_ICON : ICON;
  link.dataset.turn = turn;
  link.setAttribute("href", kept[href] || href);
}

/** The title (`title` when it is not this seat's turn) and the icon follow `myTurn`;
 * the moment a turn starts, the chosen sound and notification go off. */
export function useAttention(myTurn, title) {
  const [options, setOptions] = useState(saved);
  const was = useRef(false);
  useEffect(() => {
    document.title = myTurn ? `${TURN_PREFIX}${title}` : title;
    setIcon(myTurn);
    if (myTurn && !was.current) {
      if (options.sound) beep();
      if (options.notify && document.hidden && globalThis.Notification
        && Notification.permission === "granted") {
        new Notification("Your turn", { body: title, icon: TURN_ICON, tag: "tablewire-turn" });
      }
    }
    was.current = myTurn;
  }, [myTurn, title]);
  function choose(name, value) {
    const next = { ...options, [name]: value };
    localStorage.setItem(KEY, JSON.stringify(next));
    setOptions(next);
  }
  return [options, choose];
}

/** The two options, for the room page. */
export function AttentionOptions({ options, choose }) {
  const [note, setNote] = useState(null);
  async function notify(on) {
    setNote(null);
    if (on && !globalThis.Notification) {
      setNote("This browser cannot show notifications.");
      return;
    }
    if (on && Notification.permission !== "granted") {
      const answer = await Notification.requestPermission();
      if (answer !== "granted") {
        setNote("The browser did not allow notifications for this site.");
        return;
      }
    }
    choose("notify", on);
  }
  return html`<fieldset class="o-attention">
    <legend>When it is your turn</legend>
    <label class="inline"><input type="checkbox" checked=${options.sound}
      onChange=${(e) => choose("sound", e.currentTarget.checked)} /> play a sound</label>
    <label class="inline"><input type="checkbox" checked=${options.notify}
      onChange=${(e) => notify(e.currentTarget.checked)} /> notify me while this tab is hidden</label>
    ${note ? html`<p class="muted" role="status">${note}</p>` : null}
  </fieldset>`;
}

/** On this seat's turn, while neither the line that says so (`asked`, a ref) nor the
 * board (`board`) is on the screen (a player reading the log or the chat: on a phone
 * they are screens below the board; the board counts while it reaches the screen's
 * middle, not by an edge at its top or bottom): a small bar at the screen's bottom
 * says it is their turn, and leads back to what is asked, just above the board. */
export function TurnCue({ myTurn, asked, board }) {
  const [away, setAway] = useState(false);
  useEffect(() => {
    if (!myTurn) return undefined;
    let frame = 0;
    const look = () => {
      frame = 0;
      const height = globalThis.innerHeight;
      const line = asked.current && asked.current.getBoundingClientRect();
      const drawn = board.current && board.current.getBoundingClientRect();
      const lineSeen = !!line && line.bottom > 0 && line.top < height;
      const boardSeen = !!drawn && drawn.bottom > height * 0.3 && drawn.top < height * 0.7;
      setAway(!lineSeen && !boardSeen);
    };
    const soon = () => { if (!frame) frame = requestAnimationFrame(look); };
    look();
    globalThis.addEventListener("scroll", soon, { passive: true });
    globalThis.addEventListener("resize", soon);
    return () => {
      globalThis.removeEventListener("scroll", soon);
      globalThis.removeEventListener("resize", soon);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [myTurn]);
  if (!myTurn || !away) return null;
  return html`<a class="o-turn-cue" href="#asked-title">Your turn: back to the board<span aria-hidden="true"> ↑</span></a>`;
}
