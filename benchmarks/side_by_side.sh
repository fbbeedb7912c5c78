#!/usr/bin/env bash
# The shared side-by-side harness (../shared/peers/colyseus, README there) against
# this checkout: Colyseus 0.18 (immediate patches) and tablewire with default
# settings (the load generator's address named in load_test_clients), driven by one and the same Node load generator, alternating run by run.
#
#   benchmarks/side_by_side.sh [side-by-side.sh arguments: --reps 3 --rooms "100 250 500 1000" ...]
#
# The harness is copied to a writable folder (PEERS, default /tmp/tablewire-peers)
# and benchmarks/peers/colyseus-tablewire2.patch is applied to the copy: its
# loadgen.js then also speaks tablewire's protocol 2 (--protocol tablewire2:
# docs/protocol.md 6.2), side-by-side.sh runs it as a third configuration
# ("tablewire2", next to "tablewire", protocol 1) and summarize-sbs.js gives the
# ratios of both. The JSON lines go to the copy's results/; the tables are printed
# at the end (and kept in results/ beside them).
#
# Needs: node and npm (the harness installs its pinned packages with npm ci),
# taskset, and this checkout's .venv (make test or make serve creates it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_PEERS:-$here/../shared/peers/colyseus}
peers=${PEERS:-/tmp/tablewire-peers}
[ -d "$shared" ] || { echo "no harness at $shared (set SHARED_PEERS)" >&2; exit 2; }
[ -x "$here/.venv/bin/tablewire" ] || { echo "no .venv in $here: run make test first" >&2; exit 2; }
mkdir -p "$peers"
if [ ! -f "$peers/colyseus/.tablewire2-patched" ]; then
  rm -rf "$peers/colyseus"
  cp -r "$shared" "$peers/colyseus"
  (cd "$peers/colyseus" && patch -p1 -s < "$here/benchmarks/peers/colyseus-tablewire2.patch")
  touch "$peers/colyseus/.tablewire2-patched"
fi
cd "$peers/colyseus"
# The load generator runs its thousands of clients from this machine: the operator's
# exemption for benchmark rooms (docs/operations.md, "Load tests"), inherited by the
# server run.sh starts. Every other setting is the default.
export TABLEWIRE_LOAD_TEST_CLIENTS=127.0.0.1
TABLEWIRE_DIR=$here ./side-by-side.sh --no-tw-loadtest "$@"
latest=$(ls -t results/side-by-side-*.jsonl | head -1)
node summarize-sbs.js "$latest" | tee "${latest%.jsonl}.md"
echo "JSON lines: $peers/colyseus/$latest" >&2
