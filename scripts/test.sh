#!/usr/bin/env bash
# npm test: sets up what the tests need (Docker engine, busybox base, Chromium),
# then typecheck, lint, build, and every test file: units, integration tests
# against the real engine and SQLite, and e2e tests in a real browser and CLI.
set -euo pipefail
cd "$(dirname "$0")/.."

node scripts/check-node.mjs

bash scripts/test-env.sh

echo "== typecheck"
npm run --silent typecheck
echo "== lint"
npm run --silent lint
echo "== build"
npm run --silent build >/dev/null
if command -v go >/dev/null 2>&1; then
  echo "== agent (go test)"
  (cd agent && GOPROXY=off go test ./...)
fi

mapfile -t found < <(find electron shared cli renderer e2e test-support -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ "${#found[@]}" -eq 0 ]; then
  echo "no test files found" >&2
  exit 1
fi
# The slowest files start first, so the two lanes end together instead of two long files
# running last, side by side, while the other lane sits idle (longest-first scheduling).
SLOW_FIRST=(
  electron/core/snapshots/deep-fork-chain.integration.test.ts
  electron/core/snapshots/deep-snapshot-chain.integration.test.ts
  e2e/cli.e2e.test.ts
  e2e/ui-snapshots.e2e.test.ts
  e2e/ui-console.e2e.test.ts
  e2e/ui-boxes.e2e.test.ts
  e2e/cli-volumes.e2e.test.ts
  electron/core/reliability/chaos.integration.test.ts
  electron/core/reliability/chatty-box.integration.test.ts
  electron/core/storage/storage-contract.integration.test.ts
)
files=()
for f in "${SLOW_FIRST[@]}"; do [ -f "$f" ] && files+=("$f"); done
for f in "${found[@]}"; do [[ " ${SLOW_FIRST[*]} " == *" $f "* ]] || files+=("$f"); done
echo "== ${#files[@]} test files"
# Two files at a time (this machine has 2 cores): each file starts its own core with its own data
# dir, engine instance labels and box names, so files share the engine without sharing state.
exec node --import tsx --test --test-concurrency=2 --test-reporter=spec "${files[@]}"
