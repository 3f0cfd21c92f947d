/**
 * The request log never holds a credential or a token (a page cursor, a follow id, a session stream's URL token, a
 * batch token, an API key, a bearer token): whoever reads the log could replay them. Request URLs are logged with
 * the values of token-bearing query parameters, and anything shaped like a token anywhere else in them, replaced;
 * credential and token headers are censored wherever a log line carries headers.
 */
import type { FastifyServerOptions } from 'fastify';

const REDACTED = '[redacted]';

/** Query parameters whose value is a token or a credential (API.md: `cursor`, `after`, `token`, `batch`). */
const TOKEN_PARAMS = new Set([
  'token',
  'cursor',
  'after',
  'batch',
  'last-event-id',
  'api_key',
  'apikey',
  'access_token',
]);

/** A token of core/signed-token.ts: `<kind>.<key id>.<body>.<tag>`, in plain or percent-encoded dots. */
const TOKEN_SHAPE =
  /[a-z]{1,4}\d{1,4}(?:\.|%2e)[A-Za-z0-9_-]{1,16}(?:\.|%2e)[A-Za-z0-9_-]+(?:\.|%2e)[A-Za-z0-9_-]{22}/gi;

/** Headers that carry credentials or tokens, censored in any logged header set. */
const HEADERS = ['authorization', 'x-api-key', 'topicgate-batch', 'last-event-id', 'cookie', 'proxy-authorization'];

/** A request URL as it may be logged: token-bearing parameters' values and token-shaped text replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(TOKEN_SHAPE, REDACTED);
  if (q < 0) return path;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a malformed name is kept as sent; its value is still checked for a token's shape
      }
      if (eq >= 0 && TOKEN_PARAMS.has(decoded.toLowerCase())) return `${name}=${REDACTED}`;
      return pair.replace(TOKEN_SHAPE, REDACTED);
    });
  return `${path}?${params.join('&')}`;
}

type LoggerOption = FastifyServerOptions['logger'];

/**
 * The logger options with redaction added: fastify's request serializer with the URL redacted, and pino's
 * censoring of credential headers. `false` (no log) stays as it is; so does a logger instance of the caller's.
 */
export function withRedaction(logger: LoggerOption): LoggerOption {
  if (logger === false || logger === undefined || Object.prototype.toString.call(logger) !== '[object Object]') {
    return logger;
  }
  const options = logger as Exclude<LoggerOption, boolean | undefined> & Record<string, unknown>;
  if (typeof options.info === 'function') return logger;
  const paths = ['req', 'request', 'res', 'reply', ''].flatMap((at) =>
    HEADERS.map((h) => `${at ? `${at}.` : ''}headers["${h}"]`),
  );
  return {
    ...options,
    redact: { paths, censor: REDACTED },
    serializers: {
      ...(options.serializers as Record<string, unknown> | undefined),
      req: (req: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
        method: req.method,
        url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  } as LoggerOption;
}
