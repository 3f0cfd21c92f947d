/** The environment settings of serving: where the API listens, the cursor store, and the bounds of every read. */
import { boolSetting, intSetting, listSetting, textSetting } from './setting-options.js';

/** The cursor secret used when none is set: an open loopback gateway only, refused with auth or on any other address. */
export const DEV_CURSOR_SECRET = 'topicgate-page-cursors';

const rows = { minimum: 1, maximum: 10_000_000 };
const window = { minimum: 1, maximum: Number.MAX_SAFE_INTEGER };

export const servingSettings = {
  host: textSetting({
    env: 'TOPICGATE_HOST',
    read: 'text',
    fallback: '127.0.0.1',
    description: 'address the API listens on',
  }),
  port: intSetting({
    env: 'TOPICGATE_PORT',
    read: 'int',
    fallback: '3000',
    minimum: 0,
    maximum: 65535,
    description: 'port the API listens on',
  }),
  stateUrl: textSetting({
    env: 'TOPICGATE_STATE_URL',
    read: 'state-url',
    fallback: 'sqlite:./data/topicgate.db',
    blankIsValue: true,
    description:
      'state store: `sqlite:<file>` (one instance) or `postgres://...` (shared by instances: cursors, and per-principal limits)',
  }),
  stateTimeoutMs: intSetting({
    env: 'TOPICGATE_STATE_TIMEOUT_MS',
    read: 'int',
    fallback: '5000',
    minimum: 100,
    maximum: 600_000,
    description:
      'time limit of connecting to the PostgreSQL state store and of each of its statements (then 503 ' +
      '`TG_STATE_UNAVAILABLE`)',
  }),
  cursorSecret: textSetting({
    env: 'TOPICGATE_CURSOR_SECRET',
    read: 'text',
    fallback: DEV_CURSOR_SECRET,
    shownDefault: 'a fixed development key',
    description:
      'key that seals (encrypts, authenticates) every token: cursors, batch tokens, follow ids, session streams; ' +
      '32+ bytes, shared by instances; required with an `auth` block or off loopback',
  }),
  cursorPreviousSecrets: listSetting({
    env: 'TOPICGATE_CURSOR_PREVIOUS_SECRETS',
    read: 'secrets',
    fallback: '',
    description:
      'earlier cursor secrets, comma-separated: tokens they signed are still accepted after a rotation (the ' +
      'current secret signs)',
  }),
  mcp: boolSetting({
    env: 'TOPICGATE_MCP',
    read: 'switch',
    fallback: 'on',
    description: '`off`: no `/mcp` (the Model Context Protocol tools for agents: API.md "Tools for agents: MCP")',
  }),
  defaultLimit: intSetting({
    env: 'TOPICGATE_DEFAULT_LIMIT',
    read: 'int',
    fallback: '100',
    ...rows,
    description: 'rows per response by default (never above `TOPICGATE_MAX_LIMIT`)',
  }),
  maxLimit: intSetting({
    env: 'TOPICGATE_MAX_LIMIT',
    read: 'int',
    fallback: '10000',
    ...rows,
    description: 'rows per response at most: the largest `limit` a request may ask for',
  }),
  queryTimeoutMs: intSetting({
    env: 'TOPICGATE_QUERY_TIMEOUT_MS',
    read: 'int',
    fallback: '120000',
    minimum: 1_000,
    maximum: 86_400_000,
    description: "time limit of every query (Trino's `query_max_run_time`, and the gateway cancels past it)",
  }),
  residualScanMaxWindowMs: intSetting({
    env: 'TOPICGATE_RESIDUAL_SCAN_MAX_WINDOW',
    read: 'duration',
    fallback: '7d',
    ...window,
    description:
      'widest `since`..`until` window for a query whose filters are all evaluated after the scan (unless the ' +
      "topic's `allowFullScan`)",
  }),
  sessionTtlMs: intSetting({
    env: 'TOPICGATE_SESSION_TTL',
    read: 'duration',
    fallback: '1h',
    minimum: 1_000,
    maximum: 7 * 86_400_000,
    description:
      "how long a read session's stream URLs may be read (`expiresAt`, never past a JWT caller's `exp`; then 410 " +
      '`TG_SESSION_EXPIRED`); any instance sharing the cursor secret serves them',
  }),
  loadTimeoutMs: intSetting({
    env: 'TOPICGATE_LOAD_TIMEOUT',
    read: 'duration',
    fallback: '1h',
    minimum: 1_000,
    maximum: 7 * 86_400_000,
    description:
      "time limit of each Trino statement of a load's run (`POST /v1/loads/{name}/runs`: a backlog is inserted " +
      'by one statement)',
  }),
  gatewayMaxRows: intSetting({
    env: 'TOPICGATE_GATEWAY_MAX_ROWS',
    read: 'int',
    fallback: '100000',
    ...rows,
    description:
      'most rows (or groups) one response holds to sort or aggregate decoded Avro fields; more is a 422 naming it (their bytes count against `limits.maxGatewayBytes` too)',
  }),
  inferMaxSample: intSetting({
    env: 'TOPICGATE_INFER_MAX_SAMPLE',
    read: 'int',
    fallback: '10000',
    minimum: 1,
    maximum: 1_000_000,
    description: 'most events schema inference samples',
  }),
  inferMaxWindowMs: intSetting({
    env: 'TOPICGATE_INFER_MAX_WINDOW',
    read: 'duration',
    fallback: '7d',
    ...window,
    description: 'widest window schema inference samples',
  }),
  complexPushdown: boolSetting({
    env: 'TOPICGATE_COMPLEX_PUSHDOWN',
    read: 'bool',
    fallback: 'false',
    description:
      "the VAST catalog has `vast.complex_predicate_pushdown` on (OR across columns is pushed); only changes `explain`'s labels",
  }),
  prefetchRows: intSetting({
    env: 'TOPICGATE_PREFETCH_ROWS',
    read: 'int',
    fallback: '10000',
    minimum: 0,
    maximum: 10_000_000,
    description:
      'rows a non-JSON page may read ahead so its `Link: next` header is exact (and no more bytes than its share of `limits.maxGatewayBytes`; past either, `Link` counts the page as full, which pages exactly all the same)',
  }),
  heldResults: intSetting({
    env: 'TOPICGATE_HELD_RESULTS',
    read: 'int',
    fallback: '32',
    minimum: 0,
    maximum: 10_000,
    description:
      'page queries held open (15 s at most) for the next page to read on from, in this process; 0: every page its ' +
      'own query',
  }),
  historyRetentionDays: intSetting({
    env: 'TOPICGATE_CURSOR_HISTORY_DAYS',
    read: 'int',
    fallback: '7',
    minimum: 1,
    maximum: 3650,
    description: 'how long committed cursor batches are listed',
  }),
  cacheMaxAgeSeconds: intSetting({
    env: 'TOPICGATE_CACHE_MAX_AGE',
    read: 'int',
    fallback: '86400',
    minimum: 0,
    maximum: 31_536_000,
    description:
      "seconds a settled window's response may be reused (`Cache-Control: private, max-age=<this>, immutable`; " +
      'API.md "Caching settled windows")',
  }),
  followPollMs: intSetting({
    env: 'TOPICGATE_FOLLOW_POLL',
    read: 'duration',
    fallback: '1s',
    minimum: 10,
    maximum: 3_600_000,
    description:
      'how often a follower (`follow=true`) asks Trino for newly settled events when it has read all there was',
  }),
  followKeepAliveMs: intSetting({
    env: 'TOPICGATE_FOLLOW_HEARTBEAT',
    read: 'duration',
    fallback: '15s',
    minimum: 10,
    maximum: 3_600_000,
    description: "a follow's keep-alive (an SSE comment line, an empty NDJSON line) after this long without output",
  }),
  logLevel: textSetting({ env: 'TOPICGATE_LOG_LEVEL', read: 'text', fallback: 'info', description: 'pino log level' }),
  shutdownGraceMs: intSetting({
    env: 'TOPICGATE_SHUTDOWN_GRACE_MS',
    read: 'int',
    fallback: '20000',
    minimum: 0,
    maximum: 3_600_000,
    description:
      'on SIGTERM, how long running responses may take to finish before they are cut and their Trino queries cancelled',
  }),
};
