#!/usr/bin/env bash
# Makes sure the test suite has what it needs: a Docker engine that answers,
# a busybox base image, Chromium, Go and btrfs-progs (the store's helper). As root on Debian/Ubuntu it installs and
# starts what is missing; anywhere else it says exactly what to install.
set -euo pipefail

TEST_IMAGE="${BOXDESK_TEST_IMAGE:-boxdesk-test/busybox:1}"
STATE_DIR="${BOXDESK_TEST_STATE:-/tmp/boxdesk-test-env}"
mkdir -p "$STATE_DIR"

log() { printf '[test-env] %s\n' "$*"; }
can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_updated=0
apt_install() {
  if ! can_apt; then
    log "missing: $*. Install it (Debian/Ubuntu: sudo apt-get install -y $*) and run the tests again."
    exit 1
  fi
  if [ "$apt_updated" = 0 ]; then
    log "apt-get update"
    apt-get update -qq
    apt_updated=1
  fi
  log "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >"$STATE_DIR/apt.log" 2>&1 || {
    tail -n 30 "$STATE_DIR/apt.log"
    log "apt-get install $* failed (full log: $STATE_DIR/apt.log)"
    exit 1
  }
}

docker_cli() {
  if [ -x /usr/bin/docker ]; then /usr/bin/docker "$@"; else docker "$@"; fi
}

engine_answers() { docker_cli info >/dev/null 2>&1; }

ensure_engine() {
  if engine_answers; then
    log "docker engine answers"
    return
  fi
  if [ -n "${DOCKER_HOST:-}" ]; then
    log "DOCKER_HOST=$DOCKER_HOST does not answer; start that engine and run the tests again."
    exit 1
  fi
  if ! command -v dockerd >/dev/null 2>&1; then
    apt_install docker.io
  fi
  if [ "$(id -u)" != 0 ]; then
    log "no docker engine answers and starting dockerd needs root: start Docker (e.g. sudo systemctl start docker) and run the tests again."
    exit 1
  fi
  log "starting dockerd (log: $STATE_DIR/dockerd.log)"
  nohup dockerd >"$STATE_DIR/dockerd.log" 2>&1 &
  for _ in $(seq 1 120); do
    if engine_answers; then
      log "dockerd is up"
      return
    fi
    sleep 0.5
  done
  tail -n 30 "$STATE_DIR/dockerd.log"
  log "dockerd did not come up within 60 s"
  exit 1
}

ensure_test_image() {
  if docker_cli image inspect "$TEST_IMAGE" >/dev/null 2>&1; then
    log "base image $TEST_IMAGE present"
    return
  fi
  local busybox=""
  for candidate in /bin/busybox /usr/bin/busybox; do
    if [ -x "$candidate" ] && ! ldd "$candidate" >/dev/null 2>&1; then busybox="$candidate"; break; fi
  done
  if [ -z "$busybox" ]; then
    apt_install busybox-static
    busybox=/bin/busybox
  fi
  log "building $TEST_IMAGE from the static busybox at $busybox"
  local root
  root=$(mktemp -d)
  mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/etc" "$root/root" "$root/tmp" "$root/home" "$root/var/tmp"
  chmod 1777 "$root/tmp" "$root/var/tmp"
  cp "$busybox" "$root/bin/busybox"
  for applet in $("$busybox" --list-full); do
    [ "$applet" = "bin/busybox" ] && continue
    mkdir -p "$root/$(dirname "$applet")"
    ln -sf /bin/busybox "$root/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  printf 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n' >"$root/etc/profile"
  tar -C "$root" -cf - . | docker_cli import --change 'CMD ["/bin/sh"]' - "$TEST_IMAGE" >/dev/null
  rm -rf "$root"
  log "base image $TEST_IMAGE built"
}

ensure_chromium() {
  if [ -n "${BOXDESK_CHROMIUM:-}" ] && [ -x "$BOXDESK_CHROMIUM" ]; then return; fi
  if command -v chromium >/dev/null 2>&1; then
    log "chromium present"
    return
  fi
  apt_install chromium
}

# The copy-on-write store's helper is built from Go (agent/) and its empty filesystem is made
# with mkfs.btrfs (npm run build:agent); without them the core falls back to the copy store.
ensure_store_tools() {
  if command -v go >/dev/null 2>&1; then log "go present"; else apt_install golang-go; fi
  if command -v mkfs.btrfs >/dev/null 2>&1 || [ -x /usr/sbin/mkfs.btrfs ] || [ -x /sbin/mkfs.btrfs ]; then
    log "btrfs-progs present"
  else
    apt_install btrfs-progs
  fi
}

ensure_engine
ensure_test_image
ensure_chromium
ensure_store_tools
