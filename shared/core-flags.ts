/**
 * The core's flags: the one table the headless core (electron/core/config.ts), the desktop app
 * (which picks these out of Electron's own switches), `box serve` (cli/commands/serve.ts) and the
 * usage text all read. A flag without `arg` is a switch.
 */
export interface CoreFlag {
  flag: string;
  /** The value's placeholder in the usage text; none for a switch. */
  arg?: string;
  env: string;
  /** The CoreConfig field it sets. */
  key: string;
  help: string;
}

export const CORE_FLAGS: readonly CoreFlag[] = [
  {
    flag: '--host',
    arg: 'HOST',
    env: 'BOXDESK_HOST',
    key: 'host',
    help: 'address to bind; loopback only (default 127.0.0.1)',
  },
  { flag: '--port', arg: 'N', env: 'BOXDESK_PORT', key: 'port', help: 'API port (default 7420; 0 picks a free one)' },
  {
    flag: '--proxy-port',
    arg: 'N',
    env: 'BOXDESK_PROXY_PORT',
    key: 'proxyPort',
    help: 'port of the reverse proxy for published boxes (7421)',
  },
  {
    flag: '--egress-hosts',
    arg: 'FILE',
    env: 'BOXDESK_EGRESS_HOSTS',
    key: 'egressHosts',
    help: 'a hosts-format file the egress proxy (and allow lists) read before DNS, e.g. to name hosts offline',
  },
  {
    flag: '--egress-port',
    arg: 'N',
    env: 'BOXDESK_EGRESS_PORT',
    key: 'egressPort',
    help: "port of the egress proxy at each project network's gateway (7479)",
  },
  {
    flag: '--data-dir',
    arg: 'DIR',
    env: 'BOXDESK_DATA_DIR',
    key: 'dataDir',
    help: 'where the database and token live (default: ~/.local/share/boxdesk, ~/Library/Application Support/Boxdesk, %APPDATA%\\Boxdesk)',
  },
  {
    flag: '--default-base',
    arg: 'IMAGE',
    env: 'BOXDESK_DEFAULT_BASE',
    key: 'defaultBase',
    help: 'image of the base "default" (debian:bookworm-slim)',
  },
  {
    flag: '--default-warm',
    arg: 'N',
    env: 'BOXDESK_DEFAULT_WARM',
    key: 'defaultWarm',
    help: 'warm pool of the base "default": paused containers kept ready, 0-32 (2 on a new data dir; given, it sets it at each start)',
  },
  {
    flag: '--allowed-origin',
    arg: 'URL',
    env: 'BOXDESK_ALLOWED_ORIGINS',
    key: 'allowedOrigins',
    help: 'extra browser origins allowed to call the API (comma-separated)',
  },
  {
    flag: '--engine',
    arg: 'NAME=URL',
    env: 'BOXDESK_ENGINES',
    key: 'engines',
    help: 'an engine as a region (repeatable; unix://, tcp://, ssh://user@host or a Docker context name); the first is where boxes go by default. None: the local engine, found, as "local"',
  },
  {
    flag: '--engine-tls-dir',
    arg: 'DIR',
    env: 'BOXDESK_ENGINE_TLS_DIR',
    key: 'engineTlsDir',
    help: "ca.pem, cert.pem and key.pem for the tcp:// engines (Docker's TLS files)",
  },
  { flag: '--ui-dir', arg: 'DIR', env: 'BOXDESK_UI_DIR', key: 'uiDir', help: 'serve this renderer build at /' },
  {
    flag: '--session-grace',
    arg: 'S',
    env: 'BOXDESK_SESSION_GRACE_SECONDS',
    key: 'sessionGraceSeconds',
    help: 'seconds a detached console lives on (default 60)',
  },
  {
    flag: '--log-level',
    arg: 'LEVEL',
    env: 'BOXDESK_LOG_LEVEL',
    key: 'logLevel',
    help: 'fatal|error|warn|info|debug (default info)',
  },
  {
    flag: '--log-format',
    arg: 'FORMAT',
    env: 'BOXDESK_LOG_FORMAT',
    key: 'logFormat',
    help: 'pretty (readable lines) or json (one object a line); default: pretty on a terminal, else json',
  },
  {
    flag: '--rate-limit',
    arg: 'N',
    env: 'BOXDESK_RATE_LIMIT',
    key: 'rateLimit',
    help: 'requests/s per token, bursts of 10x; 0 = off (default 100)',
  },
  {
    flag: '--upload-limit',
    arg: 'SIZE',
    env: 'BOXDESK_UPLOAD_LIMIT',
    key: 'uploadLimit',
    help: 'largest streamed upload, bytes or with K/M/G (default 1G)',
  },
  {
    flag: '--box-log-limit',
    arg: 'SIZE',
    env: 'BOXDESK_BOX_LOG_LIMIT',
    key: 'boxLogLimit',
    help: 'output the engine keeps per container, rotated past it; at least 1M (default 32M)',
  },
  {
    flag: '--proxy-connect-timeout',
    arg: 'S',
    env: 'BOXDESK_PROXY_CONNECT_TIMEOUT',
    key: 'proxyConnectTimeout',
    help: 'seconds the preview proxy waits for a box to accept a connection, then 504; 0 = no limit (default 10)',
  },
  {
    flag: '--proxy-header-timeout',
    arg: 'S',
    env: 'BOXDESK_PROXY_HEADER_TIMEOUT',
    key: 'proxyHeaderTimeout',
    help: "seconds the preview proxy waits for a box's response headers, then 504; 0 = no limit (default 60)",
  },
  {
    flag: '--storage-driver',
    arg: 'NAME',
    env: 'BOXDESK_STORAGE_DRIVER',
    key: 'storageDriver',
    help: 'copy-on-write store: auto (default: the best that works), btrfs, loop-btrfs, reflink, copy',
  },
  {
    flag: '--storage-size',
    arg: 'SIZE',
    env: 'BOXDESK_STORAGE_SIZE',
    key: 'storageSize',
    help: 'size of the loop-backed store image, e.g. 50G (sparse; grown, never shrunk)',
  },
  {
    flag: '--new-admin-token',
    env: 'BOXDESK_NEW_ADMIN_TOKEN',
    key: 'newAdminToken',
    help: 'make a new admin token at start and write it to <data dir>/token (the way back after revoking yours)',
  },
];
