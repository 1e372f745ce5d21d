#!/usr/bin/env bash
# npm test: sets up what the tests need (Docker engine, busybox base, Chromium, Go, btrfs-progs),
# builds, then runs side by side: typecheck, lint, the unit lane and the agent's Go tests; the
# engine lane (integration tests against the real engine and SQLite, and e2e tests in a real browser
# and CLI); and the Podman lane (some of the same integration tests against Podman).
set -euo pipefail
cd "$(dirname "$0")/.."

node scripts/check-node.mjs
# V8 keeps the code it compiled for each module here: the suite's few hundred Node processes (cores,
# CLI runs, test files) load the same modules again and again.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/node_modules/.cache/node-compile}"

bash scripts/test-env.sh

echo "== build (${SECONDS} s in)"
npm run --silent build >/dev/null
echo "== built (${SECONDS} s in)"

# Typecheck, lint, the unit lane and the agent's Go tests need no engine and share nothing with the
# lanes below: they start with them, each into a log printed when it is done. Before them, the
# engine lane's files waited on the engine and on timers for a tenth of its time while the CPUs sat
# idle; run first, the checks held the lanes back by about a minute and a half. They run at a
# lower CPU priority (nice): they take the time the lanes leave idle, and the lanes' first files (a
# window's page, a console) are not starved into their timeouts while the checks start up. The
# unit lane is one Node process for every unit file (scripts/test-unit.sh), which saves loading the
# core's modules once per file.
logs=$(mktemp -d)
declare -A checks=([typecheck]="npm run --silent typecheck" [lint]="npm run --silent lint" [units]="bash scripts/test-unit.sh")
names=(typecheck lint units)
if command -v go >/dev/null 2>&1; then
  checks[agent]="cd agent && GOPROXY=off go test ./..."
  names+=(agent)
fi
declare -A pids=()
for name in "${names[@]}"; do
  nice -n 15 bash -c "${checks[$name]}" >"$logs/$name.log" 2>&1 &
  pids[$name]=$!
done

# The engine lane: integration tests against the real engine and e2e tests in a real browser and CLI.
mapfile -t found < <(find electron shared sdk cli renderer e2e test-support \( -name '*.integration.test.ts' -o -name '*.e2e.test.ts' \) \
  -not -path '*/node_modules/*' | sort)
if [ "${#found[@]}" -eq 0 ]; then
  echo "no test files found" >&2
  exit 1
fi
# The slowest files start first, so the lanes end together instead of two long files
# running last, side by side, while the other lane sits idle (longest-first scheduling). The list
# is the top of BOXDESK_TEST_TIMES=FILE npm test's figures.
SLOW_FIRST=(
  electron/core/reliability/fuzz.integration.test.ts
  e2e/ui-boxes.e2e.test.ts
  electron/core/reliability/restore-safety.integration.test.ts
  e2e/ui-console.e2e.test.ts
  electron/core/storage/storage-contract.integration.test.ts
  e2e/ui-snapshots.e2e.test.ts
  electron/core/volumes/backup-crash.integration.test.ts
  e2e/ui-shell.e2e.test.ts
  electron/core/reliability/chatty-box.integration.test.ts
  electron/core/snapshots/snapshot-restore.integration.test.ts
  e2e/ui-files.e2e.test.ts
  e2e/cli.e2e.test.ts
  e2e/ui-volumes.e2e.test.ts
  electron/core/volumes/volumes-on-btrfs.integration.test.ts
  e2e/first-hour.e2e.test.ts
  e2e/mcp.e2e.test.ts
  e2e/cli-volumes.e2e.test.ts
  electron/core/boxes/crash-recovery.integration.test.ts
  e2e/ui-services.e2e.test.ts
  e2e/ui-publish.e2e.test.ts
  electron/core/boxes/pool/warm-pool.integration.test.ts
  electron/core/reliability/hostile-requests.integration.test.ts
  electron/core/reliability/model.integration.test.ts
  e2e/ui-settings.e2e.test.ts
  e2e/cli-services.e2e.test.ts
  electron/core/snapshots/deep-snapshot-chain.integration.test.ts
  e2e/cli-snapshots.e2e.test.ts
  electron/core/snapshots/deep-fork-chain.integration.test.ts
  electron/core/engine/agent/agent.integration.test.ts
  e2e/cli-files.e2e.test.ts
  electron/core/volumes/copies.integration.test.ts
  e2e/ui-jobs.e2e.test.ts
  electron/core/reliability/upload-crash.integration.test.ts
  electron/core/boxes/workspace-crash.integration.test.ts
  electron/core/snapshots/bases.integration.test.ts
  e2e/ui-many-boxes.e2e.test.ts
)
files=()
for f in "${SLOW_FIRST[@]}"; do [ -f "$f" ] && files+=("$f"); done
for f in "${found[@]}"; do [[ " ${SLOW_FIRST[*]} " == *" $f "* ]] || files+=("$f"); done
echo "== ${#files[@]} test files"
# Three files at a time (BOXDESK_TEST_CONCURRENCY changes it). This machine has 2 cores, but the
# files wait on the engine, on timers and on killed cores: at two, the cores sat 14% idle (vmstat),
# and a third file took the engine lane from about 1,000 s to 864 s. Each file starts its own core
# with its own data dir, engine instance labels and box names, so files share the engine without
# sharing state. scripts/run-tests.mjs keeps the order above (`node --test` sorts files by name).
# The Podman lane: a representative set of the same integration files (boxes, exec and consoles,
# files, a snapshot and a fork, volumes, publishing, the engine's name, the packet filter, the
# driver's engine contract and the helper that joins a box's network namespace), their
# core and their own engine calls pointed at Podman's Docker-compatible service (scripts/test-env.sh
# starts it) through DOCKER_HOST. It runs one file at a time beside the engine lane, whose files
# leave the CPUs idle a tenth of the time while they wait on the engine and on timers (its runner
# reports the share): after it, the eight files added about 90 s; beside it, they fill that idle
# time instead. Its output is printed once it is done. BOXDESK_PODMAN_LANE=0 skips it.
PODMAN_LANE=(
  electron/core/networks/networks.integration.test.ts
  electron/core/exec/exec-socket.integration.test.ts
  electron/core/boxes/boxes.integration.test.ts
  electron/core/publishing/proxy.integration.test.ts
  electron/core/files/files.integration.test.ts
  electron/core/snapshots/fork.integration.test.ts
  electron/core/system/system.integration.test.ts
  electron/core/volumes/mounts.integration.test.ts
  electron/core/engine/docker/docker-engine.integration.test.ts
  electron/core/networks/netfilter-join.integration.test.ts
)
podman_pid=
if [ "${BOXDESK_PODMAN_LANE:-1}" != 0 ]; then
  echo "== Podman lane (beside the engine lane): ${#PODMAN_LANE[@]} test files against ${BOXDESK_PODMAN_SOCKET:-/run/boxdesk-podman/podman.sock}"
  DOCKER_HOST="unix://${BOXDESK_PODMAN_SOCKET:-/run/boxdesk-podman/podman.sock}" BOXDESK_TEST_LANE=tests-podman \
    BOXDESK_TEST_TIMES="${BOXDESK_TEST_TIMES:+$BOXDESK_TEST_TIMES.podman}" BOXDESK_TEST_CPU="${BOXDESK_TEST_CPU:+$BOXDESK_TEST_CPU.podman}" \
    node scripts/run-tests.mjs --concurrency 1 "${PODMAN_LANE[@]}" >"$logs/podman.log" 2>&1 &
  podman_pid=$!
fi
status=0
node scripts/run-tests.mjs --concurrency "${BOXDESK_TEST_CONCURRENCY:-3}" "${files[@]}" || status=1
echo "== engine lane done at ${SECONDS} s"
if [ -n "$podman_pid" ]; then
  if wait "$podman_pid"; then lane=ok; else lane=FAILED; status=1; fi
  echo "== Podman lane: $lane"
  cat "$logs/podman.log"
fi
failed=()
for name in "${names[@]}"; do
  if wait "${pids[$name]}"; then check=ok; else check=FAILED; failed+=("$name"); status=1; fi
  echo "== $name: $check"
  if [ "$name" = units ] || [ "$name" = agent ] || [ "$check" = FAILED ]; then cat "$logs/$name.log"; fi
done
if [ "${#failed[@]}" -gt 0 ]; then echo "failed: ${failed[*]}" >&2; fi
echo "== npm test took ${SECONDS} s"
exit "$status"
