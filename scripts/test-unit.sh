#!/usr/bin/env bash
# npm run test:unit: every *.test.ts that needs no engine process, no browser and no CLI
# process — everything but *.integration.test.ts and e2e/. Units of the services above the
# engine driver run a real core on the in-memory engine (test-support/memory-core.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

node scripts/check-node.mjs

mapfile -t files < <(find electron shared sdk cli renderer test-support -name '*.test.ts' \
  -not -name '*.integration.test.ts' -not -path '*/node_modules/*' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no unit test files found" >&2
  exit 1
fi
echo "== ${#files[@]} unit test files"
# One process for all of them: loading the core's modules once instead of once per file is
# most of the time saved. Files run four at a time, since they mostly wait (timers, sockets).
exec node --import tsx --test --test-isolation=none --test-concurrency=4 "${files[@]}"
