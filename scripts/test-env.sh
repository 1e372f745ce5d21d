#!/usr/bin/env bash
# Makes sure the test suite has what it needs: a Docker engine that answers,
# a busybox base image, Chromium, Go and btrfs-progs (the store's helper), and Podman serving the
# Docker API on its own socket with the busybox base loaded (the Podman lane; BOXDESK_PODMAN_LANE=0 skips it). As root on Debian/Ubuntu it installs and
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

# The Podman lane (scripts/test.sh): Debian's podman, its Docker-compatible service on a socket of
# its own (not Podman's default one, which would make discovery pick Podman over Docker), the base.
PODMAN_SOCKET="${BOXDESK_PODMAN_SOCKET:-/run/boxdesk-podman/podman.sock}"
podman_answers() { podman --remote --url "unix://$PODMAN_SOCKET" info >/dev/null 2>&1; }

# Podman's default rlimits for containers (its own, above this sandbox's hard limits) make every
# container fail to start; pin them where containers.conf says nothing of them.
pin_podman_ulimits() {
  local conf=/etc/containers/containers.conf
  if [ -f "$conf" ] && grep -q '^[[:space:]]*default_ulimits' "$conf"; then return; fi
  log "pinning default_ulimits (nofile, nproc = 16384) in $conf"
  mkdir -p /etc/containers
  if [ -f "$conf" ] && grep -q '^\[containers\]' "$conf"; then
    sed -i '/^\[containers\]/a default_ulimits = ["nofile=16384:16384", "nproc=16384:16384"]' "$conf"
  else
    printf '[containers]\ndefault_ulimits = ["nofile=16384:16384", "nproc=16384:16384"]\n' >>"$conf"
  fi
}

ensure_podman() {
  if [ "${BOXDESK_PODMAN_LANE:-1}" = 0 ]; then return; fi
  if ! command -v podman >/dev/null 2>&1; then apt_install podman catatonit; fi
  if [ "$(id -u)" = 0 ]; then pin_podman_ulimits; fi
  if podman_answers; then
    log "podman answers at $PODMAN_SOCKET"
  else
    if [ "$(id -u)" != 0 ]; then
      log "the Podman lane needs Podman's service at $PODMAN_SOCKET, and starting it as root: run (as root) podman system service --time=0 unix://$PODMAN_SOCKET & — or BOXDESK_PODMAN_LANE=0 to skip the lane."
      exit 1
    fi
    mkdir -p "$(dirname "$PODMAN_SOCKET")"
    log "starting podman system service at $PODMAN_SOCKET (log: $STATE_DIR/podman.log)"
    nohup podman system service --time=0 "unix://$PODMAN_SOCKET" >"$STATE_DIR/podman.log" 2>&1 &
    for _ in $(seq 1 60); do
      if podman_answers; then break; fi
      sleep 0.5
    done
    if ! podman_answers; then
      tail -n 30 "$STATE_DIR/podman.log"
      log "podman's service did not answer within 30 s"
      exit 1
    fi
  fi
  if podman image exists "$TEST_IMAGE"; then
    log "base image $TEST_IMAGE present in podman"
  else
    log "loading $TEST_IMAGE into podman"
    docker_cli save "$TEST_IMAGE" | podman load -q >/dev/null
  fi
}

ensure_engine
ensure_test_image
ensure_chromium
ensure_store_tools
ensure_podman
