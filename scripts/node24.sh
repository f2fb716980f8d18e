#!/usr/bin/env bash
# Runs the end-to-end tests (or the test files matching the given substrings) on Node 24, without touching the
# machine's Node 20 or the repository's node_modules.
#
# The runtime comes from the npm registry: the `node-linux-<arch>` package ships the official Node binary (`npm pack`,
# into a temp dir; no global install). The tests run in a shadow copy of the repository whose node_modules links every
# package back to the real one except the one native addon compiled for a Node ABI, better-sqlite3.
#
# better-sqlite3 12 (the repository's, for Node 20) aborts the process on Node 24 (RemoveEnvironmentCleanupHook
# assertion when V8 collects a prepared statement), so the shadow copy gets better-sqlite3 13 (Node-API, prebuilt
# binaries inside the package, needs Node >= 22) from the registry instead.
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

# 3. better-sqlite3 for Node 24: version 13 (a Node-API build with prebuilt binaries in the package, no compiler
#    needed), fetched from the registry into the shadow copy. The repository keeps 12 for Node 20 (13 needs >= 22).
sqliteVersion="${NODE24_SQLITE_VERSION:-13}"
addon="$shadow/node_modules/better-sqlite3"
if [ ! -d "$addon" ] || [ -L "$addon" ] || [ "$(cat "$addon/.node24-stamp" 2>/dev/null)" != "$sqliteVersion" ]; then
  echo "node24: fetching better-sqlite3@$sqliteVersion from the npm registry"
  tmp="$(mktemp -d "$work/pack.XXXXXX")"
  (cd "$tmp" && npm pack --silent "better-sqlite3@$sqliteVersion" >/dev/null)
  tar -xzf "$tmp"/better-sqlite3-*.tgz -C "$tmp"
  rm -rf "$addon"
  mv "$tmp/package" "$addon"
  rm -rf "$tmp"
  echo "$sqliteVersion" >"$addon/.node24-stamp"
fi
"$node24" -e "new (require(process.argv[1]))(':memory:').prepare('select 1').get()" "$addon"
echo "node24: ready ($((SECONDS - started)) s)"

# 4. The tests, with Node 24 first on PATH (test helpers spawn process.execPath, i.e. Node 24 too).
[ $# -gt 0 ] || set -- test/e2e/
cd "$shadow"
testsStarted=$SECONDS
status=0
PATH="$runtime/bin:$PATH" "$node24" scripts/run-tests.mjs "$@" || status=$?
echo "node24: tests on $nodeVersion finished with status $status in $((SECONDS - testsStarted)) s (total $((SECONDS - started)) s)"
exit $status
