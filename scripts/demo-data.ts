/**
 * The demo topics: SQL that builds tables in the exact VAST topic-table layout and fills them inside Trino
 * (bulk INSERT ... SELECT over generated sequences), deterministic for a given size. The data carries the hard
 * cases real topics have; `HARD_CASES` says where each one is, so tests can find them.
 */
import { quoteIdent } from '../src/query/sql/sql-text.js';

export const DEMO_CATALOG = 'vast';
export const DEMO_SCHEMA = 'demo|kafka_topics';
/** Broker time of event 0 of every demo topic. */
export const DEMO_BASE = '2026-11-01 00:00:00.000';

export const TOPIC_COLUMNS =
  'key varbinary, value varbinary, timestamp_broker timestamp(3), timestamp_producer timestamp(3), ' +
  'headers array(row(key varchar, value varbinary))';

/** Where each hard case sits, by event number i (before duplication). Tests rely on these. */
export const HARD_CASES = {
  orders: {
    nullKey: 'i % 29 = 0',
    nonUtf8Key: 'i % 113 = 1 (and not a null key)',
    nonJsonValue: 'i % 97 = 3',
    nonUtf8Value: 'i % 211 = 5',
    missingFields: 'i % 53 = 11 (no amount, no customer.address)',
    mistypedFields: 'i % 61 = 13 (amount "twelve", order_id "A-<n>")',
    tiedBrokerMs: 'i % 100 < 10: ten events share one timestamp_broker millisecond',
    duplicates: 'i % 500 = 7: the event is stored twice, identical',
    producerSkew: 'i % 41 = 0: timestamp_producer 29 s ahead of timestamp_broker',
    bigIntegers: 'trace_id = 9007199254740993 + i (beyond 2^53)',
  },
} as const;

const seq = (n: number) =>
  `(SELECT a * 1000 + b AS i FROM UNNEST(sequence(0, ${Math.max(0, Math.ceil(n / 1000) - 1)})) AS x(a) ` +
  `CROSS JOIN UNNEST(sequence(0, 999)) AS y(b) WHERE a * 1000 + b < ${n})`;

const pick = (list: string[], expr: string) =>
  `element_at(ARRAY[${list.map((s) => `'${s.replace(/'/g, "''")}'`).join(', ')}], CAST((${expr}) % ${list.length} + 1 AS integer))`;

// date_add takes an integer amount: split milliseconds into seconds and the rest, or a million events overflow it.
const ts = (msExpr: string) =>
  `date_add('millisecond', CAST((${msExpr}) % 1000 AS integer), date_add('second', (${msExpr}) / 1000, TIMESTAMP '${DEMO_BASE}'))`;

const HEADERS = `CASE WHEN i % 7 = 0 THEN CAST(ARRAY[] AS array(row(key varchar, value varbinary)))
  ELSE ARRAY[CAST(ROW('source', to_utf8('web')) AS row(key varchar, value varbinary)),
             CAST(ROW('trace', CASE WHEN i % 9 = 0 THEN X'ff00fe' ELSE to_utf8(to_hex(to_big_endian_64(i))) END) AS row(key varchar, value varbinary))] END`;

// JSON names include escapes (\" inside the JSON text) and non-Latin scripts, emoji and right-to-left text.
const NAMES = ['Zoë Müller', 'Łukasz Nowak', '李雷', 'José 🚀 Silva', 'مريم', 'Dr. \\"Q\\" O\'Brien', 'Ana', 'Ωmega'];
const COUNTRIES = ['DE', 'FR', 'US', 'JP', 'BR', 'IN', 'NL'];
const STATUSES = ['paid', 'shipped', 'pending', 'cancelled', 'refunded'];

function ordersSelect(n: number): string {
  const amount = `format('%d.%02d', ((i * 7919) % 50000 + 99) / 100, ((i * 7919) % 50000 + 99) % 100)`;
  const items = `'[{"sku":"SKU-' || CAST(i % 50 AS varchar) || '","qty":' || CAST(i % 3 + 1 AS varchar) || ',"price":9.99}'
    || CASE WHEN i % 2 = 0 THEN ',{"sku":"SKU-' || CAST(i % 13 AS varchar) || '","qty":1,"price":19.50}' ELSE '' END || ']'`;
  const created = `to_iso8601(date_add('second', -CAST(i % 5 AS integer), broker)) || 'Z'`;
  const customer = (withAddress: boolean) =>
    `'{"id":"c' || CAST(i % 1000 AS varchar) || '","name":"' || ${pick(NAMES, 'i')} || '"'` +
    (withAddress
      ? ` || ',"address":{"city":"' || ${pick(['Berlin', 'Paris', 'New York', 'Tōkyō', 'São Paulo', 'Pune', 'Utrecht'], 'i')} || '","country":"' || ${pick(COUNTRIES, 'i')} || '"}}'`
      : ` || '}'`);
  const full = `'{"order_id":' || CAST(1000000 + i / 2 AS varchar) || ',"status":"' || ${pick(STATUSES, 'i')}
    || '","amount":' || ${amount} || ',"currency":"EUR","customer":' || ${customer(true)} || ',"items":' || ${items}
    || ',"created_at":"' || ${created} || '","trace_id":' || CAST(9007199254740993 + i AS varchar) || '}'`;
  const missing = `'{"order_id":' || CAST(1000000 + i / 2 AS varchar) || ',"status":"' || ${pick(STATUSES, 'i')}
    || '","customer":' || ${customer(false)} || ',"created_at":"' || ${created} || '"}'`;
  const mistyped = `'{"order_id":"A-' || CAST(i AS varchar) || '","status":"' || ${pick(STATUSES, 'i')}
    || '","amount":"twelve","customer":' || ${customer(true)} || ',"created_at":"' || ${created} || '"}'`;
  return `SELECT
    CASE WHEN i % 29 = 0 THEN NULL WHEN i % 113 = 1 THEN X'ff' || to_big_endian_64(i)
         ELSE to_utf8('order-' || CAST(1000000 + i / 2 AS varchar)) END AS key,
    CASE WHEN i % 97 = 3 THEN to_utf8('not json: order ' || CAST(i AS varchar))
         WHEN i % 211 = 5 THEN X'c328' || to_utf8('{"broken":' || CAST(i AS varchar))
         WHEN i % 53 = 11 THEN to_utf8(${missing})
         WHEN i % 61 = 13 THEN to_utf8(${mistyped})
         ELSE to_utf8(${full}) END AS value,
    broker AS timestamp_broker,
    CASE WHEN i % 41 = 0 THEN date_add('second', 29, broker)
         ELSE date_add('millisecond', -CAST(i % 250 + 1 AS integer), broker) END AS timestamp_producer,
    ${HEADERS} AS headers
  FROM (SELECT i, ${ts('(i - CASE WHEN i % 100 < 10 THEN i % 100 ELSE 0 END) * 20000')} AS broker FROM ${seq(n)})
  CROSS JOIN UNNEST(IF(i % 500 = 7, ARRAY[1, 2], ARRAY[1])) AS d(copy)`;
}

function clicksSelect(n: number): string {
  const value = `'{"user":"u' || CAST(i % 5000 AS varchar) || '","page":"/p/' || CAST(i % 200 AS varchar)
    || '","ms":' || CAST(i % 3000 AS varchar) || ',"ref":' || IF(i % 4 = 0, 'null', '"search"') || '}'`;
  return `SELECT to_utf8('u' || CAST(i % 5000 AS varchar)) AS key, to_utf8(${value}) AS value,
    ${ts('(i / 3) * 200')} AS timestamp_broker, ${ts('(i / 3) * 200 - 5')} AS timestamp_producer,
    CAST(ARRAY[] AS array(row(key varchar, value varbinary))) AS headers
  FROM ${seq(n)} CROSS JOIN UNNEST(IF(i % 1000 = 17, ARRAY[1, 2], ARRAY[1])) AS d(copy)`;
}

function s3Select(n: number): string {
  const names = [
    'ObjectCreated:Put',
    'ObjectCreated:CompleteMultipartUpload',
    'ObjectRemoved:Delete',
    'ObjectCreated:Copy',
  ];
  const objKey = `'photos/2026/été/img-' || CAST(i AS varchar) || '.jpg'`;
  const size = `IF(i % 50 = 0, CAST(18014398509481985 + i AS varchar), CAST(i * 1024 + 17 AS varchar))`;
  const value = `'{"Records":[{"eventVersion":"2.1","eventSource":"vast:s3","awsRegion":"","eventTime":"'
    || to_iso8601(broker) || 'Z","eventName":"' || ${pick(names, 'i')} || '","userIdentity":{"principalId":"vast-user-'
    || CAST(i % 7 AS varchar) || '"},"requestParameters":{"sourceIPAddress":"127.0.0.' || CAST(i % 250 + 1 AS varchar)
    || '"},"s3":{"s3SchemaVersion":"1.0","configurationId":"media-events","bucket":{"name":"media","arn":"arn:aws:s3:::media"},'
    || '"object":{"key":"' || ${objKey} || '","size":' || ${size} || ',"eTag":"' || lower(to_hex(md5(to_utf8(CAST(i AS varchar)))))
    || '","sequencer":"' || lpad(to_hex(to_big_endian_64(i)), 16, '0') || '"}}}]}'`;
  return `SELECT to_utf8('media/' || ${objKey}) AS key, to_utf8(${value}) AS value, broker AS timestamp_broker,
    date_add('millisecond', -3, broker) AS timestamp_producer, CAST(ARRAY[] AS array(row(key varchar, value varbinary))) AS headers
  FROM (SELECT i, ${ts('i * 60000')} AS broker FROM ${seq(n)})`;
}

/** The native blob-expansion stand-in: VAST writes typed columns into <topic>_expanded, named by JSON key. */
function ordersExpandedSelect(from: string): string {
  const j = (path: string) => `json_extract_scalar(from_utf8(value), '${path}')`;
  return `SELECT try_cast(${j('$.order_id')} AS bigint) AS order_id, ${j('$.status')} AS status,
    try_cast(${j('$.amount')} AS decimal(12,2)) AS amount, ${j('$.currency')} AS currency,
    ${j('$.customer.name')} AS customer__name, ${j('$.customer.address.country')} AS customer__address__country,
    try(CAST(from_iso8601_timestamp(${j('$.created_at')}) AT TIME ZONE 'UTC' AS timestamp(3))) AS created_at,
    try_cast(${j('$.trace_id')} AS bigint) AS trace_id
  FROM ${from}`;
}

export interface DemoSizes {
  orders: number;
  clicks: number;
  s3_events: number;
}

export function demoSizes(events: number): DemoSizes {
  return { orders: events, clicks: events, s3_events: Math.max(100, Math.floor(events / 10)) };
}

/** The statements that (re)create the demo topics in `catalog`.`schema`, in order. */
export function demoStatements(sizes: DemoSizes, catalog = DEMO_CATALOG, schema = DEMO_SCHEMA): string[] {
  const t = (name: string) => `${quoteIdent(catalog)}.${quoteIdent(schema)}.${quoteIdent(name)}`;
  const out = [`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(catalog)}.${quoteIdent(schema)}`];
  const topics: [string, string][] = [
    ['orders', ordersSelect(sizes.orders)],
    ['clicks', clicksSelect(sizes.clicks)],
    ['s3_events', s3Select(sizes.s3_events)],
  ];
  for (const [name, select] of topics) {
    out.push(`DROP TABLE IF EXISTS ${t(name)}`, `CREATE TABLE ${t(name)} (${TOPIC_COLUMNS})`);
    out.push(`INSERT INTO ${t(name)} ${select}`);
  }
  out.push(`DROP TABLE IF EXISTS ${t('orders_expanded')}`);
  out.push(`CREATE TABLE ${t('orders_expanded')} AS ${ordersExpandedSelect(t('orders'))}`);
  return out;
}
