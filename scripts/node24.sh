#!/usr/bin/env bash
# Runs the end-to-end tests (or the test files matching the given substrings) on Node 24, without touching the
# machine's Node 20 or the repository's node_modules.
#
# The runtime comes from the npm registry: the `node-linux-<arch>` package ships the official Node binary and its
# headers (`npm pack`, into a temp dir; no global install). The only native addon compiled against one Node ABI,
# better-sqlite3, is rebuilt from its bundled sources against those headers in a shadow copy of the repository whose
# node_modules links every other package back to the real one.
#
# Known: better-sqlite3 12 aborts the process on Node 24 (RemoveEnvironmentCleanupHook assertion when V8 collects a
# prepared statement), so dev-cluster tests fail here until the project moves to better-sqlite3 13 (Node-API, ships
# prebuilt binaries, needs Node >= 22); with 13 installed this script uses it as is.
#
# Usage: scripts/node24.sh [test filter ...]        (default filter: test/e2e/)
# Env:   NODE24_VERSION (default 24: newest 24.x), NODE24_WORKDIR (default ${TMPDIR:-/tmp}/kapiserver-node24)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
version="${NODE24_VERSION:-24}"
work="${NODE24_WORKDIR:-${TMPDIR:-/tmp}/kapiserver-node24}"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node24: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac
started=$SECONDS
mkdir -p "$work"

# 1. The runtime, fetched once per work dir (the package is ~50 MB).
runtime="$work/node"
if [ ! -x "$runtime/bin/node" ] || [ "${NODE24_REFRESH:-}" = 1 ]; then
  echo "node24: fetching node-linux-$arch@$version from the npm registry"
  tmp="$(mktemp -d "$work/pack.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$version" >/dev/null)
  tar -xzf "$tmp"/node-linux-"$arch"-*.tgz -C "$tmp"
  rm -rf "$runtime"
  mv "$tmp/package" "$runtime"
  rm -rf "$tmp"
fi
node24="$runtime/bin/node"
nodeVersion="$("$node24" --version)"
case "$nodeVersion" in
  v24.*) ;;
  *) echo "node24: expected a v24 runtime, got $nodeVersion" >&2; exit 1 ;;
esac
echo "node24: runtime $nodeVersion ($((SECONDS - started)) s)"

# 2. A shadow copy of the repository: sources copied fresh each run, node_modules linked except native addons.
shadow="$work/repo"
mkdir -p "$shadow"
find "$shadow" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
shopt -s nullglob dotglob
for entry in "$repo"/*; do
  name="$(basename "$entry")"
  case "$name" in
    node_modules | .git | .kapiserver) continue ;;
  esac
  cp -a "$entry" "$shadow/"
done
mkdir -p "$shadow/node_modules"
for entry in "$repo"/node_modules/*; do
  name="$(basename "$entry")"
  [ "$name" = better-sqlite3 ] && continue
  [ -e "$shadow/node_modules/$name" ] || [ -L "$shadow/node_modules/$name" ] || ln -s "$entry" "$shadow/node_modules/$name"
done

# 3. better-sqlite3 for Node 24: used as installed when it loads there (a Node-API build, better-sqlite3 >= 13),
#    otherwise rebuilt from its bundled sources against the Node 24 headers (once per runtime and package version).
addon="$shadow/node_modules/better-sqlite3"
probe="new (require(process.argv[1]))(':memory:').prepare('select 1').get()"
if ! "$node24" -e "$probe" "$repo/node_modules/better-sqlite3" >/dev/null 2>&1; then
  stamp="$nodeVersion $("$node24" -p "require('$repo/node_modules/better-sqlite3/package.json').version")"
  if [ ! -d "$addon" ] || [ -L "$addon" ] || [ "$(cat "$addon/.node24-stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "node24: building better-sqlite3 against $nodeVersion headers"
    rm -rf "$addon"
    cp -a "$repo/node_modules/better-sqlite3" "$addon"
    rm -rf "$addon/build"
    gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
    (cd "$addon" && PATH="$runtime/bin:$PATH" "$node24" "$gyp" rebuild --release --nodedir="$runtime" -j 2 >"$work/gyp.log" 2>&1) || {
      tail -30 "$work/gyp.log" >&2
      exit 1
    }
    echo "$stamp" >"$addon/.node24-stamp"
  fi
else
  [ -L "$addon" ] || { rm -rf "$addon" && ln -s "$repo/node_modules/better-sqlite3" "$addon"; }
fi
"$node24" -e "$probe" "$addon"
echo "node24: ready ($((SECONDS - started)) s)"

# 4. The tests, with Node 24 first on PATH (test helpers spawn process.execPath, i.e. Node 24 too).
[ $# -gt 0 ] || set -- test/e2e/
cd "$shadow"
testsStarted=$SECONDS
status=0
PATH="$runtime/bin:$PATH" "$node24" scripts/run-tests.mjs "$@" || status=$?
echo "node24: tests on $nodeVersion finished with status $status in $((SECONDS - testsStarted)) s (total $((SECONDS - started)) s)"
exit $status
