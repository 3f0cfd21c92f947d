/**
 * Long file: the table of every environment setting, one entry each (its variable, how its text is read, its
 * default, bounds and meaning). config.ts reads and checks it once at start-up.
 */
import { Type, type Static } from 'typebox';

export const DEFAULT_TRINO_URL = 'http://127.0.0.1:18080';
export const DEMO_SCHEMA = 'demo|kafka_topics';
/** The cursor secret used when none is set: fine on a laptop, refused on any other address (access/startup-checks). */
export const DEV_CURSOR_SECRET = 'topicgate-page-cursors';
/** The spooling protocol's encodings the Trino port decodes (X-Trino-Query-Data-Encoding). */
export const TRINO_ENCODINGS = ['json+zstd', 'json+lz4', 'json'] as const;
export type TrinoEncoding = (typeof TRINO_ENCODINGS)[number];

/**
 * The environment settings, one schema: each property names its variable (`env`), how its text is read
 * (`read`), its default and bounds. loadConfig walks it; the Config type is derived from it, so a setting is
 * declared once.
 */
export type Read =
  | 'text'
  | 'trimmed'
  | 'url'
  | 'list'
  | 'secrets'
  | 'int'
  | 'bool'
  | 'duration'
  | 'state-url'
  | 'encodings'
  | 'optional-url'
  | 'file'
  | 'origins'
  | 'hosts';
export type SettingOptions = {
  env: string;
  read: Read;
  /** The text used when the variable is unset (and, unless `blankIsValue`, when it is empty). */
  fallback?: string;
  /** An empty value is read as given (and then refused) instead of meaning the default. */
  blankIsValue?: boolean;
  description: string;
};
const text = (o: SettingOptions) => Type.String(o);
const int = (o: SettingOptions & { minimum: number; maximum: number }) => Type.Integer(o);

export const SettingsSchema = Type.Object({
  trinoUrl: text({
    env: 'TOPICGATE_TRINO_URL',
    read: 'url',
    fallback: DEFAULT_TRINO_URL,
    blankIsValue: true,
    description: 'Trino coordinator',
  }),
  trinoUser: text({
    env: 'TOPICGATE_TRINO_USER',
    read: 'text',
    fallback: 'topicgate',
    description: 'user sent to Trino',
  }),
  /** PEM bundle trusted for Trino's certificate instead of Node's bundled CAs (https only). */
  trinoCaFile: text({
    env: 'TOPICGATE_TRINO_CA_FILE',
    read: 'file',
    fallback: '',
    description: 'PEM bundle to verify the certificate of an https Trino',
  }),
  /** Password of TOPICGATE_TRINO_USER (HTTP basic over https); never logged. */
  trinoPassword: text({
    env: 'TOPICGATE_TRINO_PASSWORD',
    read: 'text',
    fallback: '',
    description: 'password of the Trino user',
  }),
  trinoPasswordFile: text({
    env: 'TOPICGATE_TRINO_PASSWORD_FILE',
    read: 'file',
    fallback: '',
    description: 'a file holding the password of the Trino user',
  }),
  /** A bearer token for Trino, read from this file and again whenever it changes (a rotated secret). */
  trinoTokenFile: text({
    env: 'TOPICGATE_TRINO_TOKEN_FILE',
    read: 'file',
    fallback: '',
    description: 'a file holding a bearer token for Trino',
  }),
  /** Queries run as the caller's principal (X-Trino-User); the gateway authenticates as TOPICGATE_TRINO_USER. */
  trinoImpersonate: Type.Boolean({
    env: 'TOPICGATE_TRINO_IMPERSONATE',
    read: 'bool',
    fallback: 'false',
    description: "queries run in Trino as the caller's principal",
  }),
  /**
   * Spooling protocol encodings asked of Trino, in order of preference; empty (`none`) asks for the direct
   * protocol only. Trino answers with direct pages when its spooling is off, and the port reads both.
   */
  trinoEncoding: Type.Array(Type.String(), {
    env: 'TOPICGATE_TRINO_ENCODING',
    read: 'encodings',
    fallback: TRINO_ENCODINGS.join(','),
    description: 'spooling protocol encodings asked for, in order; none: the direct protocol only',
  }),
  /** Spooled segments fetched at once, ahead of the one being read (each is held until read: bounded memory). */
  trinoSegmentFetch: int({
    env: 'TOPICGATE_TRINO_SEGMENT_FETCH',
    read: 'int',
    fallback: '4',
    minimum: 1,
    maximum: 64,
    description: 'spooled segments fetched at once',
  }),
  catalog: text({
    env: 'TOPICGATE_CATALOG',
    read: 'trimmed',
    fallback: 'vast',
    blankIsValue: true,
    description: 'catalog of the topic tables',
  }),
  schemas: Type.Array(Type.String(), {
    env: 'TOPICGATE_SCHEMAS',
    read: 'list',
    fallback: DEMO_SCHEMA,
    blankIsValue: true,
    description: 'comma-separated schemas to serve',
  }),
  host: text({ env: 'TOPICGATE_HOST', read: 'text', fallback: '127.0.0.1', description: 'where the API listens' }),
  port: int({
    env: 'TOPICGATE_PORT',
    read: 'int',
    fallback: '3000',
    minimum: 0,
    maximum: 65535,
    description: 'where the API listens',
  }),
  stateUrl: text({
    env: 'TOPICGATE_STATE_URL',
    read: 'state-url',
    fallback: 'sqlite:./data/topicgate.db',
    blankIsValue: true,
    description: 'cursor store: sqlite:<file> or postgres://...',
  }),
  /** Bound on connecting to the PostgreSQL cursor store and on each statement there. */
  stateTimeoutMs: int({
    env: 'TOPICGATE_STATE_TIMEOUT_MS',
    read: 'int',
    fallback: '5000',
    minimum: 100,
    maximum: 600_000,
    description: 'time limit of connecting to the cursor store and of each of its statements',
  }),
  /** On SIGTERM, running responses may finish for this long; then they are cut and their queries cancelled. */
  shutdownGraceMs: int({
    env: 'TOPICGATE_SHUTDOWN_GRACE_MS',
    read: 'int',
    fallback: '20000',
    minimum: 0,
    maximum: 3_600_000,
    description: 'time running responses may take to finish on SIGTERM',
  }),
  /** Largest `limit` a request may ask for. */
  maxLimit: int({
    env: 'TOPICGATE_MAX_LIMIT',
    read: 'int',
    fallback: '10000',
    minimum: 1,
    maximum: 10_000_000,
    description: 'rows per response at most',
  }),
  /** Default rows per response (API.md: 100); never above maxLimit. */
  defaultLimit: int({
    env: 'TOPICGATE_DEFAULT_LIMIT',
    read: 'int',
    fallback: '100',
    minimum: 1,
    maximum: 10_000_000,
    description: 'rows per response by default',
  }),
  /** Trino's query_max_run_time for every query, and the gateway's own deadline. */
  queryTimeoutMs: int({
    env: 'TOPICGATE_QUERY_TIMEOUT_MS',
    read: 'int',
    fallback: '120000',
    minimum: 1_000,
    maximum: 86_400_000,
    description: 'time limit of every query',
  }),
  logLevel: text({ env: 'TOPICGATE_LOG_LEVEL', read: 'text', fallback: 'info', description: 'pino log level' }),
  /** Key that signs page cursors and batch tokens; instances behind one load balancer must share it. */
  cursorSecret: text({
    env: 'TOPICGATE_CURSOR_SECRET',
    read: 'text',
    fallback: DEV_CURSOR_SECRET,
    description: 'key that signs page cursors and batch tokens',
  }),
  /** Earlier signing keys, still accepted for tokens issued before a rotation (comma-separated). */
  cursorPreviousSecrets: Type.Array(Type.String(), {
    env: 'TOPICGATE_CURSOR_PREVIOUS_SECRETS',
    read: 'secrets',
    fallback: '',
    description: 'earlier cursor secrets that still verify',
  }),
  /** The VAST catalog's vast.complex_predicate_pushdown: OR across columns is pushed (explain's labels). */
  complexPushdown: Type.Boolean({
    env: 'TOPICGATE_COMPLEX_PUSHDOWN',
    read: 'bool',
    fallback: 'false',
    description: 'OR across columns is pushed',
  }),
  /** Rows a non-JSON response may read ahead to make its Link header exact. */
  prefetchRows: int({
    env: 'TOPICGATE_PREFETCH_ROWS',
    read: 'int',
    fallback: '10000',
    minimum: 0,
    maximum: 10_000_000,
    description: 'rows a page may read ahead',
  }),
  /**
   * Page queries held open for the next page (read/read-ahead.ts), in this process, each 15 s at most: the next
   * page reads on from its query. 0: every page its own query.
   */
  heldResults: int({
    env: 'TOPICGATE_HELD_RESULTS',
    read: 'int',
    fallback: '32',
    minimum: 0,
    maximum: 10_000,
    description: 'page queries held open for the next page',
  }),
  /** How long the history of committed cursor batches is kept. */
  historyRetentionDays: int({
    env: 'TOPICGATE_CURSOR_HISTORY_DAYS',
    read: 'int',
    fallback: '7',
    minimum: 1,
    maximum: 3650,
    description: 'how long committed batches are listed',
  }),
  /**
   * Guardrail: a topic query whose filters are all evaluated after the scan (JSON fields) must bound its time
   * window to at most this, unless the topic's config sets allowFullScan.
   */
  residualScanMaxWindowMs: int({
    env: 'TOPICGATE_RESIDUAL_SCAN_MAX_WINDOW',
    read: 'duration',
    fallback: '7d',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'widest window of a residual-only scan',
  }),
  /**
   * Decoded Avro fields sorted or aggregated in the gateway (issue 13): the most rows (or groups) one response may
   * hold; more is a 422 naming this cap.
   */
  gatewayMaxRows: int({
    env: 'TOPICGATE_GATEWAY_MAX_ROWS',
    read: 'int',
    fallback: '100000',
    minimum: 1,
    maximum: 10_000_000,
    description: 'most rows or groups held to sort or aggregate decoded fields',
  }),
  /** Schema inference: most events sampled, and widest window. */
  inferMaxSample: int({
    env: 'TOPICGATE_INFER_MAX_SAMPLE',
    read: 'int',
    fallback: '10000',
    minimum: 1,
    maximum: 1_000_000,
    description: 'most events inference samples',
  }),
  inferMaxWindowMs: int({
    env: 'TOPICGATE_INFER_MAX_WINDOW',
    read: 'duration',
    fallback: '7d',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'widest window inference samples',
  }),
  /** Serve without an `auth` block on an address other than loopback (access/startup-checks). */
  allowAnonymous: Type.Boolean({
    env: 'TOPICGATE_ALLOW_ANONYMOUS',
    read: 'bool',
    fallback: 'false',
    description: 'serve every route to anyone on a non-loopback address',
  }),
  /** OTLP/HTTP endpoint that receives trace spans; empty: tracing is off (issue 14). */
  tracingUrl: text({
    env: 'TOPICGATE_TRACING_URL',
    read: 'optional-url',
    fallback: '',
    description: 'OTLP/HTTP traces endpoint (OpenTelemetry); none: tracing off',
  }),
  /** Browser origins allowed to call the API (CORS); none: CORS is off. */
  corsOrigins: Type.Array(Type.String(), {
    env: 'TOPICGATE_CORS_ORIGINS',
    read: 'origins',
    fallback: '',
    description: 'comma-separated origins allowed by CORS',
  }),
  /** Host header values answered; none: any (the Host check is off). */
  allowedHosts: Type.Array(Type.String(), {
    env: 'TOPICGATE_ALLOWED_HOSTS',
    read: 'hosts',
    fallback: '',
    description: 'comma-separated Host header values answered',
  }),
  /** The whole request (headers and body) must arrive within this, so a slowly sent one cannot hold a connection. */
  requestTimeoutMs: int({
    env: 'TOPICGATE_REQUEST_TIMEOUT',
    read: 'duration',
    fallback: '30s',
    minimum: 1,
    maximum: 3_600_000,
    description: 'time to receive a whole request',
  }),
  /** A connection with no traffic either way for this long is closed (longer than any query may run). */
  connectionTimeoutMs: int({
    env: 'TOPICGATE_CONNECTION_TIMEOUT',
    read: 'duration',
    fallback: '10m',
    minimum: 1,
    maximum: 86_400_000,
    description: 'idle time after which a connection is closed',
  }),
  keepAliveTimeoutMs: int({
    env: 'TOPICGATE_KEEP_ALIVE_TIMEOUT',
    read: 'duration',
    fallback: '72s',
    minimum: 1,
    maximum: 3_600_000,
    description: 'idle time of a kept-alive connection between requests',
  }),
  /** A response its client stops reading for this long is cut, and its Trino query cancelled. */
  writeIdleTimeoutMs: int({
    env: 'TOPICGATE_WRITE_IDLE_TIMEOUT',
    read: 'duration',
    fallback: '60s',
    minimum: 1,
    maximum: 86_400_000,
    description: 'time a client may stop reading a response',
  }),
  /** Under-pressure: an event loop this late refuses new requests with 503 TG_OVERLOADED; 0 turns the check off. */
  maxEventLoopDelayMs: int({
    env: 'TOPICGATE_MAX_EVENT_LOOP_DELAY_MS',
    read: 'int',
    fallback: '5000',
    minimum: 0,
    maximum: 600_000,
    description: 'event loop delay that sheds load',
  }),
});

export type Settings = Static<typeof SettingsSchema>;
