"""The browser client's figures (issue 12): bytes transferred on a room page's first load,
time from navigation to a drawn board, and the frame rate of a spectator's page while
the room plays 10 moves a second (four server bots, ``bot_delay`` 0.1 s).

    python benchmarks/web_page.py [--game sintra] [--seconds 10] [--port 8205]

Needs Debian's chromium and the dev extra (Playwright); starts its own ``tablewire serve``
(on a free port unless ``--port``). The board counts as drawn when the game's own board
(not the "Loading the board…" line before it) is in the page, timed in the page itself.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from browser import DESKTOP, Served, chromium_path
from playwright.sync_api import sync_playwright

# The root element of each game's own board (engines/<game>/web/board.js).
BOARDS = ".o-board .sn-board, .o-board .ch-board, .o-board .cp-board"
# Stamps, in the page, the moment the game's board first appears.
STAMP_DRAWN = (
    "new MutationObserver((_, observer) => {"
    f"  if (document.querySelector({BOARDS!r})) {{"
    "    globalThis.boardDrawn = performance.now(); observer.disconnect(); }"
    "}).observe(document, {subtree: true, childList: true});"
)
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
FPS = """(seconds) => new Promise((done) => {
  let frames = 0; let worst = 0; let last = performance.now(); const end = last + seconds * 1000;
  const tick = (now) => { frames += 1; worst = Math.max(worst, now - last); last = now;
    if (now < end) requestAnimationFrame(tick); else done({ fps: frames / seconds, worst }); };
  requestAnimationFrame(tick);
})"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="sintra")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--port", type=int, default=None, help="the server's port (default: free)")
    args = parser.parse_args()
    served = Served()
    if args.port is not None:
        served.port, served.url = args.port, f"http://127.0.0.1:{args.port}"
    served.start()
    try:
        room = served.api(
            "POST",
            "/api/rooms",
            {
                "engine": args.game,
                "seats": 4 if args.game != "chartered" else 3,
                "options": {"bot_delay": 0.1},
                "bots": {"seats": list(range(4 if args.game != "chartered" else 3))},
            },
        )
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(), args=FLAGS)
            page = browser.new_context(viewport=DESKTOP).new_page()
            page.add_init_script(STAMP_DRAWN)
            page.goto(f"{served.url}/rooms/{room['id']}")
            page.wait_for_selector(BOARDS)
            drawn = page.evaluate("() => globalThis.boardDrawn")
            weight = page.evaluate(
                "() => performance.getEntriesByType('resource').concat("
                "performance.getEntriesByType('navigation'))"
                ".reduce((n, e) => n + (e.transferSize || 0), 0)"
            )
            count = page.evaluate("() => performance.getEntriesByType('resource').length + 1")
            start = page.evaluate("() => globalThis.tablewireRoom.version")
            frames = page.evaluate(FPS, args.seconds)
            moves = page.evaluate("() => globalThis.tablewireRoom.version") - start
            browser.close()
    finally:
        served.stop()
    print(f"game {args.game}: first load {weight / 1024:.1f} KiB transferred in {count} requests")
    print(f"navigation → board drawn: {drawn:.0f} ms")
    print(
        f"spectator stream: {moves / args.seconds:.1f} versions/s, "
        f"{frames['fps']:.1f} frames/s, longest frame {frames['worst']:.0f} ms"
    )


if __name__ == "__main__":
    main()
