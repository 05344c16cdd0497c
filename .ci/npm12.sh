#!/usr/bin/env bash
# The README's install on today's npm: a fresh clone installed with npm 12, which blocks any
# dependency install script that package.json's allowScripts does not cover (--strict-allow-scripts
# makes that an error instead of a warning), then `npm start` from it: the embedded Postgres, the
# web and a worker, until /healthz and the viewer answer; then Ctrl-C stops them.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
port=${NPM12_PORT:-3917}
pg_port=${NPM12_PG_PORT:-5917}
cleanup() {
  [ -n "${pid:-}" ] && kill -KILL -- "-$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "npm 12: $1"; [ -f "$dir/start.log" ] && tail -n 30 "$dir/start.log"; exit 1; }

git clone -q "$src" "$dir/hourglass" || fail "could not clone"
cd "$dir/hourglass" || fail "no clone"
echo "npm 12: $(npx -y npm@12 --version 2>/dev/null) on the system's Node $(node --version)"
npx -y npm@12 ci --strict-allow-scripts --no-audit --no-fund >"$dir/install.log" 2>&1 \
  || { tail -n 20 "$dir/install.log"; fail "npm ci failed (a dependency's install script not covered by allowScripts?)"; }
grep -q 'install scripts blocked' "$dir/install.log" && { grep 'install-scripts' "$dir/install.log"; fail "install scripts were blocked"; }

setsid env PORT="$port" EMBEDDED_PG_PORT="$pg_port" npx -y npm@12 start >"$dir/start.log" 2>&1 &
pid=$!
for _ in $(seq 1 180); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || fail "npm start exited"
  sleep 1
done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || fail "/healthz did not answer within 180 s"
curl -sf "http://127.0.0.1:$port/" | grep -qi '<html' || fail "the viewer (/) did not answer with a page"
kill -INT -- "-$pid"
for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
kill -0 "$pid" 2>/dev/null && fail "npm start did not stop within 30 s of Ctrl-C"
pid=
echo "npm 12: installed with every install script approved, started, /healthz and / answered, stopped"
