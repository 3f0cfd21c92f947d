/** The environment settings of the HTTP edge: who may call, how long a connection may take, load shedding, tracing. */
import { boolSetting, intSetting, listSetting, textSetting } from './setting-options.js';

export const httpSettings = {
  allowAnonymous: boolSetting({
    env: 'TOPICGATE_ALLOW_ANONYMOUS',
    read: 'bool',
    fallback: 'false',
    description:
      '`true`: serve without an `auth` block on an address other than loopback (anyone who can reach it reads ' +
      'every topic)',
  }),
  corsOrigins: listSetting({
    env: 'TOPICGATE_CORS_ORIGINS',
    read: 'origins',
    fallback: '',
    description:
      'comma-separated browser origins allowed to call the API, e.g. `https://app.example`; none: CORS is off',
  }),
  allowedHosts: listSetting({
    env: 'TOPICGATE_ALLOWED_HOSTS',
    read: 'hosts',
    fallback: '',
    shownDefault: 'loopback, listen address',
    description:
      '`Host` names answered besides loopback and the listen address: `api.example.com`, `gw.example:8443`, ' +
      '`*.example.com`; `*`: any (unsafe: DNS rebinding). Others: 421 `TG_MISDIRECTED`',
  }),
  requestTimeoutMs: intSetting({
    env: 'TOPICGATE_REQUEST_TIMEOUT',
    read: 'duration',
    fallback: '30s',
    minimum: 1,
    maximum: 3_600_000,
    description:
      'the whole request (headers and body) must arrive within this, so a slowly sent one cannot hold a connection',
  }),
  connectionTimeoutMs: intSetting({
    env: 'TOPICGATE_CONNECTION_TIMEOUT',
    read: 'duration',
    fallback: '10m',
    minimum: 1,
    maximum: 86_400_000,
    description: 'a connection with no traffic either way for this long is closed (keep it above the query time limit)',
  }),
  keepAliveTimeoutMs: intSetting({
    env: 'TOPICGATE_KEEP_ALIVE_TIMEOUT',
    read: 'duration',
    fallback: '72s',
    minimum: 1,
    maximum: 3_600_000,
    description: 'idle time of a kept-alive connection between requests',
  }),
  writeIdleTimeoutMs: intSetting({
    env: 'TOPICGATE_WRITE_IDLE_TIMEOUT',
    read: 'duration',
    fallback: '60s',
    minimum: 1,
    maximum: 86_400_000,
    description: 'a response whose client stops reading for this long is cut and its Trino query cancelled',
  }),
  maxEventLoopDelayMs: intSetting({
    env: 'TOPICGATE_MAX_EVENT_LOOP_DELAY_MS',
    read: 'int',
    fallback: '5000',
    minimum: 0,
    maximum: 600_000,
    description: 'an event loop this late sheds new requests with 503 `TG_OVERLOADED` and `Retry-After` (0: off)',
  }),
  tracingUrl: textSetting({
    env: 'TOPICGATE_TRACING_URL',
    read: 'optional-url',
    fallback: '',
    shownDefault: 'none (off)',
    description:
      'OTLP/HTTP traces endpoint (OpenTelemetry): spans per request and per Trino query, `traceparent` sent to Trino',
  }),
};
