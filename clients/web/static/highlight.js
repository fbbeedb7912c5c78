// What the last move changed, shown on any game's board: the parts of the board's DOM
// that a new document changed (text, attributes, added elements) get the class
// `o-changed` for a moment, a short glow (style.css), or a still outline until the next
// change under prefers-reduced-motion. It needs nothing from the game's board code:
// a MutationObserver watches the board's container, and the first drawing of a board
// (or of a board just loaded) marks nothing, nor does a change of the page's own (a
// player's choice not sent yet, the moves offered coming in): only a new document.

import { useEffect, useRef } from "./common.js";

const CHANGED = "o-changed";
const LASTS = 1600;

function marked(mutation) {
  if (mutation.type === "characterData") return mutation.target.parentElement;
  if (mutation.type === "attributes") {
    // Our own mark is not a change, nor a <details> the player opened (its `open`).
    if (mutation.attributeName === "open") return null;
    return mutation.attributeName === "class" && mutation.target.classList.contains(CHANGED)
      ? null : mutation.target;
  }
  return [...mutation.addedNodes].find((node) => node.nodeType === Node.ELEMENT_NODE)
    || mutation.target;
}

/** Mark what changes inside `ref.current` from the time `ready` is true (the board is
 * drawn) when the document drawn, `doc`, is a new one; each change clears the marks of
 * the one before. While `wanted.current` is false (a jump over many moves), changes
 * clear the marks but make none. */
export function useChangeHighlight(ref, ready, doc, wanted = { current: true }) {
  const drawing = useRef(doc);
  drawing.current = doc;
  // The document the last marks (or a drawing that changed nothing on the board) were for:
  // the observer's callback runs before effects, so a new document's changes are marked.
  const seen = useRef(doc);
  useEffect(() => { seen.current = doc; }, [doc]);
  useEffect(() => {
    const root = ref.current;
    if (!root || !ready) return undefined;
    let timer = null;
    const observer = new MutationObserver((mutations) => {
      if (drawing.current === seen.current) return; // the page's own change: no move happened
      seen.current = drawing.current;
      const changed = new Set(mutations.map(marked).filter((el) => el && el !== root && root.contains(el)));
      if (!changed.size) return;
      // The innermost changed parts only: a frame around a changed cell says nothing more.
      const all = [...changed];
      const found = wanted.current ? all.filter((el) => !all.some((other) => other !== el && el.contains(other))) : [];
      observer.disconnect(); // our own class changes are not changes of the board
      for (const el of root.querySelectorAll(`.${CHANGED}`)) el.classList.remove(CHANGED);
      for (const el of found) el.classList.add(CHANGED);
      watch();
      clearTimeout(timer);
      if (!globalThis.matchMedia("(prefers-reduced-motion: reduce)").matches) {
        timer = setTimeout(() => {
          observer.disconnect();
          for (const el of root.querySelectorAll(`.${CHANGED}`)) el.classList.remove(CHANGED);
          watch();
        }, LASTS);
      }
    });
    function watch() {
      observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
    }
    const start = setTimeout(watch, 0); // after the drawing that made it ready
    return () => { clearTimeout(start); clearTimeout(timer); observer.disconnect(); };
  }, [ready]);
}
