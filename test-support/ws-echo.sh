#!/bin/sh
# A WebSocket echo server in busybox sh (test-support/ws-echo-server.ts): the RFC 6455 handshake,
# then each masked client frame of up to 125 bytes sent back unmasked; a close frame ends it.
key=
while IFS= read -r line; do
  line=$(printf '%s' "$line" | tr -d '\r')
  [ -z "$line" ] && break
  case "$line" in [Ss]ec-[Ww]eb[Ss]ocket-[Kk]ey:*) key=$(printf '%s' "${line#*:}" | tr -d ' ') ;; esac
done
accept=$(printf '%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11' "$key" | sha1sum | cut -c1-40 | xxd -r -p | base64)
printf 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n' "$accept"
while :; do
  set -- $(dd bs=1 count=2 2>/dev/null | od -An -tu1)
  [ $# -eq 2 ] || exit 0
  op=$(($1 & 15)) len=$(($2 & 127))
  if [ $op -eq 8 ]; then printf '\210\000'; exit 0; fi
  [ $len -lt 126 ] || exit 1
  set -- $(dd bs=1 count=$((4 + len)) 2>/dev/null | od -An -tu1 -v)
  m0=$1 m1=$2 m2=$3 m3=$4
  shift 4
  out=$(printf '\\%03o' $((128 | op)) $len)
  i=0
  for b in "$@"; do
    case $((i % 4)) in 0) m=$m0 ;; 1) m=$m1 ;; 2) m=$m2 ;; *) m=$m3 ;; esac
    out="$out$(printf '\\%03o' $((b ^ m)))"
    i=$((i + 1))
  done
  printf "$out"
done
