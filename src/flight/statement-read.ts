/**
 * A Flight SQL statement through the read entry, as POST /v1/topics/{topic}/query reads (API.md "Flight SQL",
 * statements): the SQL subset parsed into the /query body (query/statement/), the body checked against the same
 * schema as POST /query, then topicFor (grants), withDecodedFields, readRequestFromBody, readScopeOf (row
 * policies) and planRead: the same limits, caps, guardrail and pushdown. A client's SQL never reaches Trino.
 *
 * Statements travel sealed (core/signed-token.ts): a ticket (`fs1`) or a prepared statement's handle (`fp1`) holds
 * the SQL and the principal it was made for. It is not a credential: the call that presents it is authenticated,
 * must be that principal, and is checked against the grants and row policies in force, planned again.
 */
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { tableFromIPC } from 'apache-arrow';
import { ApiError, topicNotFound } from '../core/errors.js';
import { SignedTokens, type Keyring } from '../core/signed-token.js';
import { encoderFor, openRead } from '../entry/open-read.js';
import { planRead } from '../entry/plan-read.js';
import { readScopeOf, topicFor, withDecodedFields } from '../entry/read-topic.js';
import type { PlannedRead } from '../query/planner.js';
import { QueryBody } from '../query/request/read-schema.js';
import { readRequestFromBody } from '../query/request/parse-read-request.js';
import { resolver } from '../query/request/resolver.js';
import { MAX_SQL_LENGTH, parseStatement, qualifiedTopicId } from '../query/statement/parse-statement.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import { TIME_COLUMN } from '../query/tree/nodes.js';
import type { RowScope } from '../query/tree/read-policy.js';
import { readPolicy } from '../query/policy-from-settings.js';
import { schemaBytes } from './arrow-tables.js';
import type { FlightCall } from './flight-call.js';
import { encodeFlightData, ipcMessages } from './flight-data.js';

const SealedStatement = Type.Object({
  sql: Type.String({ maxLength: MAX_SQL_LENGTH }),
  /** The principal id it was made for. */
  p: Type.String({ maxLength: 1024 }),
});

/** The sealed statements of one kind: tickets (`fs1`) or prepared statements' handles (`fp1`). */
export class StatementTokens {
  private readonly tokens: SignedTokens<typeof SealedStatement>;

  constructor(
    keys: Keyring,
    kind: 'fs1' | 'fp1',
    private readonly what: string,
  ) {
    const maxLength = 4 * MAX_SQL_LENGTH;
    this.tokens = new SignedTokens({
      kind,
      schema: SealedStatement,
      maxLength,
      keys,
      deflate: { maxBytes: 4 * MAX_SQL_LENGTH },
    });
  }

  seal(call: FlightCall, sql: string): Buffer {
    return Buffer.from(this.tokens.seal({ sql, p: call.principal.id }));
  }

  /** The SQL of a token of ours made for the caller; a 400 for any other bytes, a 403 for another principal's. */
  open(call: FlightCall, bytes: Uint8Array): string {
    const opened = this.tokens.open(Buffer.from(bytes).toString('latin1'));
    if (!opened.ok)
      throw new ApiError('TG_BAD_REQUEST', `the ${this.what} is not one this service made (${opened.fault})`);
    if (opened.body.p !== call.principal.id)
      throw new ApiError('TG_FORBIDDEN', `the ${this.what} was made for another principal`);
    return opened.body.sql;
  }
}

/** A statement planned for its caller. */
export interface PlannedStatement {
  sql: string;
  topic: TopicModel;
  body: QueryBody;
  plan: PlannedRead;
  decode: boolean;
  readerVersions?: Partial<Record<'key' | 'value', number>>;
  /** The statement itself is a schema probe: it reads no row. */
  probe: boolean;
  /** No LIMIT over an open window: read up to the topic's maxLimit, and an error after them if more matched. */
  capped: boolean;
}

/** The parsed body, checked against POST /query's schema (a parser defect is a 400 here, never a 500 later). */
function checkedBody(body: unknown): QueryBody {
  if (Value.Check(QueryBody, body)) return body;
  const first = Value.Errors(QueryBody, body)[Symbol.iterator]().next().value;
  const where = first ? `${first.instancePath || '/'}: ${first.message}` : 'the body';
  throw new ApiError('TG_BAD_SQL', `the statement does not make a valid query (${where})`);
}

/**
 * The probe of a read: the same read with a filter no row passes, `c IS NULL AND c IS NOT NULL` on one of the table's
 * own columns (broker time when it has one), which Trino's planner folds to an empty domain and so reads no split:
 * its columns and their types without a scan. One row at most (a global aggregate answers one).
 */
function probeBody(body: QueryBody, topic: TopicModel): QueryBody {
  const column = topic.columns.get(TIME_COLUMN) ?? [...topic.columns.values()].find((c) => c.source.kind === 'table');
  if (!column) throw new ApiError('TG_BAD_REQUEST', `topic ${topic.id} has no column to read`);
  const never = [
    { field: column.name, op: 'is', value: 'null' },
    { field: column.name, op: 'is', value: 'not_null' },
  ];
  const where =
    body.where && 'and' in body.where
      ? { and: [...body.where.and, ...never] }
      : { and: [...(body.where ? [body.where] : []), ...never] };
  return { ...body, where, limit: 1, parallel: undefined };
}

/**
 * A statement's rows: its LIMIT; without one, every row of a closed window (a bulk read, `limit: all`), or of an
 * open window as many as one read may return (the topic's `maxLimit`: `capped`), as SQL clients expect no default
 * page. A capped read that matched more rows ends with an error after them (cutAtCap), never silently short.
 */
function limitOf(call: FlightCall, body: QueryBody, topic: TopicModel, rows: RowScope) {
  if (body.limit !== undefined) return { limit: body.limit, capped: false };
  if (body.until !== undefined) return { limit: 'all' as const, capped: false };
  return { limit: readPolicy(call.services.config, topic.id, rows).maxLimit, capped: true };
}

/** The error that ends a capped statement's stream when more rows matched than one read may return. */
function cutAtCap(limit: QueryBody['limit']): ApiError {
  return new ApiError(
    'TG_TOO_EXPENSIVE',
    `the statement has no LIMIT over an open window and matched more than the ${String(limit)} rows one read may ` +
      "return (the topic's maxLimit); the rows sent are its first ones. Add a LIMIT, or close the window " +
      "(timestamp_broker < TIMESTAMP '...') to read it whole, in partitions",
    { limit: 'maxLimit', max: limit },
  );
}

/** Parses and plans a statement for the call's caller; `probe`: the same read with a filter no row passes. */
export async function planStatement(call: FlightCall, sql: string, probe = false): Promise<PlannedStatement> {
  const { config } = call.services;
  const parsed = parseStatement(sql, { maxDepth: config.limits.maxDepth });
  const body = checkedBody(parsed.body);
  const id = qualifiedTopicId(parsed.topic, config.schemas);
  if (id === null) throw topicNotFound(`${parsed.topic.schema}.${parsed.topic.name}`);
  const model = await topicFor(call, id);
  const decode = body.decode !== false;
  const { topic, readerVersions } = await withDecodedFields(call.services, model, decode);
  const rows = readScopeOf(call, topic);
  // A statement that is itself a schema probe (`WHERE 1=0`, `LIMIT 0`) is planned as one: it reads nothing.
  const isProbe = probe || parsed.probe;
  const { limit, capped } = isProbe ? { limit: 1, capped: false } : limitOf(call, body, topic, rows);
  const read = isProbe ? probeBody(body, topic) : { ...body, limit };
  const req = readRequestFromBody(read, resolver(topic));
  const plan = await planRead(call, { topic, req, rows, decode, readerVersions });
  return { sql, topic, body: read, plan, decode, readerVersions, probe: isProbe, capped };
}

/** A planned statement's rows as Arrow IPC messages (the Arrow encoder's stream, as REST's Arrow output). */
async function* ipcOf(call: FlightCall, s: PlannedStatement) {
  const memory = call.services.memory.account();
  try {
    const entry = encoderFor('application/vnd.apache.arrow.stream', undefined);
    const o = { paged: false, topic: s.topic.id, decode: s.decode, readerVersions: s.readerVersions };
    const read = await openRead(call, s.plan, entry, { ...o, signal: call.signal, memory });
    await read.readAhead();
    const { chunks } = read.body({ drained: undefined, finished: () => (call.rows = read.page.rows) });
    yield* ipcMessages(chunks);
    call.rows = read.page.rows;
    if (s.capped && read.page.more) throw cutAtCap(s.body.limit);
  } finally {
    memory.close();
  }
}

/** The FlightData messages of a planned statement: its schema, then its record batches. */
export async function* statementData(call: FlightCall, s: PlannedStatement): AsyncGenerator<Buffer> {
  for await (const m of ipcOf(call, s)) {
    yield encodeFlightData(m.header, m.body);
    // A probe statement answers its schema and no row (a global aggregate's one row is not sent either).
    if (s.probe) break;
  }
}

/**
 * The Arrow schema of a statement's result, from a probe that scans nothing (probeBody), planned for the caller
 * (grants and row policies checked) and opened through the same encoder, so its schema is the one DoGet streams
 * (without the probe's query id in the schema's metadata). A schema probed lately for the same caller and SQL is
 * reused (schema-cache.ts): the planning is not.
 */
export async function statementSchema(call: FlightCall, sql: string): Promise<Buffer> {
  const probe = await planStatement(call, sql, true);
  return call.schemas.get(call.principal.id, sql, async () => {
    const parts: Uint8Array[] = [];
    for await (const m of ipcOf(call, probe)) {
      const prefix = Buffer.alloc(8);
      prefix.writeUInt32LE(0xffffffff, 0);
      prefix.writeInt32LE(m.header.length, 4);
      parts.push(prefix, m.header, m.body);
    }
    const schema = tableFromIPC(Buffer.concat(parts)).schema;
    schema.metadata.delete('topicgate.query_id');
    return schemaBytes(schema);
  });
}
