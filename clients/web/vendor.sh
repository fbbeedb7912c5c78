#!/usr/bin/env bash
# Refresh the vendored browser libraries in static/vendor/ from the npm registry
# npm is configured with (`npm pack NAME@VERSION`), and rewrite manifest.json
# (package, version, path in the package, vendored file, sha256).
#
# The pinned versions are below; change one and run this script to upgrade.
# Only the browser needs these files: `make serve` and `make test` never run npm.
set -euo pipefail

HTM=htm@3.1.1              # htm + Preact 10 + hooks in one ES module (preact/standalone.module.js)
PREACT=preact@10.7.3       # only its licence: Preact is bundled inside htm's standalone build
MSGPACK=@msgpack/msgpack@3.1.3   # its ES module build (dist.esm/, relative imports)

here="$(cd "$(dirname "$0")" && pwd)"
vendor="$here/static/vendor"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

unpack() {  # unpack NAME@VERSION into $work/<dir>
  local spec="$1" dir="$2" tarball
  tarball="$(cd "$work" && npm pack --silent "$spec")"
  mkdir -p "$work/$dir"
  tar -xzf "$work/$tarball" -C "$work/$dir" --strip-components=1
}

unpack "$HTM" htm
unpack "$PREACT" preact
unpack "$MSGPACK" msgpack

rm -rf "$vendor"
mkdir -p "$vendor/msgpack/utils"
entries=()
take() {  # take SPEC SOURCE TARGET: copy $work/<pkg>/SOURCE to $vendor/TARGET, note it
  local spec="$1" dir="$2" source="$3" target="$4" name version sum
  cp "$work/$dir/$source" "$vendor/$target"
  name="${spec%@*}"
  version="${spec##*@}"
  sum="$(sha256sum "$vendor/$target" | cut -d' ' -f1)"
  entries+=("{\"package\": \"$name\", \"version\": \"$version\", \"source\": \"$source\", \"file\": \"$target\", \"sha256\": \"$sum\"}")
}

take "$HTM" htm preact/standalone.module.js htm-preact.module.js
take "$HTM" htm LICENSE htm.LICENSE
take "$PREACT" preact LICENSE preact.LICENSE
take "$MSGPACK" msgpack LICENSE msgpack/LICENSE
for file in $(cd "$work/msgpack/dist.esm" && find . -name '*.mjs' | sed 's|^\./||' | sort); do
  take "$MSGPACK" msgpack "dist.esm/$file" "msgpack/$file"
done

{
  echo "["
  for i in "${!entries[@]}"; do
    sep=","
    ((i == ${#entries[@]} - 1)) && sep=""
    echo "  ${entries[$i]}$sep"
  done
  echo "]"
} > "$vendor/manifest.json"
echo "vendored ${#entries[@]} files into $vendor"
