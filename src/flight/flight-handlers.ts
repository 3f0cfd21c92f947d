/**
 * The FlightService's methods: each authenticates its call and runs in it (flight-call.ts), dispatches on the Flight
 * SQL command it carries, and answers a failure as a gRPC status (flight-status.ts). Statements go through the read
 * entry (statement-read.ts); metadata commands are small tables (metadata-commands.ts). The server is read-only:
 * DoPut, DoExchange and PollFlightInfo are UNIMPLEMENTED.
 */
import type {
  sendUnaryData,
  ServerDuplexStream,
  ServerUnaryCall,
  ServerWritableStream,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ApiError } from '../core/errors.js';
import { handshakeCall } from './handshake-call.js';
import { withCall, type FlightCall, type FlightContext } from './flight-call.js';
import { DESCRIPTOR_CMD, type Action, type FlightDescriptor, type FlightInfo } from './flight-messages.js';
import { packCommand, unpackCommand, type SqlCommand } from './flight-sql-messages.js';
import { CallCancelled, grpcErrorOf, unimplemented } from './flight-status.js';
import { isMetadata, metadataData, metadataSchema } from './metadata-commands.js';
import { schemaBytes } from './arrow-tables.js';
import { statementInfo } from './statement-info.js';
import { isPartitionHandle, planPartition } from './statement-partitions.js';
import { cancelFlightInfo, RunningReads } from './running-reads.js';
import { planStatement, statementData, statementSchema, StatementTokens } from './statement-read.js';

/** The command a descriptor carries (a path descriptor names nothing this server serves). */
function commandOf(d: FlightDescriptor): SqlCommand {
  if (d.type !== DESCRIPTOR_CMD || !d.cmd) throw new ApiError('TG_BAD_REQUEST', 'the descriptor must be a command');
  return unpackCommand(d.cmd);
}

/**
 * Writes each message, waiting for 'drain' when the call's buffer is full. A client that takes nothing for the write
 * idle time (TOPICGATE_WRITE_IDLE_TIMEOUT, as an HTTP response) has its call cut: its Trino query is cancelled rather
 * than holding its query slot for a reader that is gone. A call cancelled meanwhile ends as CANCELLED, never as a
 * stream that looks whole.
 */
async function writeAll(
  grpc: ServerWritableStream<unknown, Buffer>,
  call: FlightCall,
  data: AsyncIterable<Buffer>,
  idleMs: number,
) {
  for await (const message of data) {
    if (!grpc.write(message) && !call.signal.aborted) await drainOrCut(grpc, call, idleMs);
    if (call.signal.aborted) throw new CallCancelled();
  }
}

function drainOrCut(grpc: ServerWritableStream<unknown, Buffer>, call: FlightCall, idleMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      grpc.removeListener('drain', done);
      call.signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(() => {
      call.services.log.info({ flight: { principal: call.principal.name } }, 'the client stopped reading: call cut');
      call.cancel();
    }, idleMs);
    grpc.once('drain', done);
    call.signal.addEventListener('abort', done, { once: true });
  });
}

/** Answers a unary call with `work`'s result, or its failure as a status. */
function unary<Req, Res>(ctx: FlightContext, method: string, work: (call: FlightCall, request: Req) => Promise<Res>) {
  return (grpc: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    withCall(ctx, method, grpc, (call) => work(call, grpc.request)).then(
      (res) => callback(null, res),
      (err: unknown) => callback(grpcErrorOf(err)),
    );
  };
}

/** Streams `work`'s messages, then ends the call; a failure (also mid-stream) is the call's status. */
function streaming<Req>(
  ctx: FlightContext,
  method: string,
  work: (call: FlightCall, request: Req) => Promise<AsyncIterable<unknown>>,
) {
  return (grpc: ServerWritableStream<Req, unknown>) => {
    withCall(ctx, method, grpc, async (call) =>
      writeAll(
        grpc as ServerWritableStream<unknown, Buffer>,
        call,
        (await work(call, grpc.request)) as AsyncIterable<Buffer>,
        ctx.services.config.writeIdleTimeoutMs,
      ),
    ).then(
      () => grpc.end(),
      (err: unknown) => grpc.emit('error', grpcErrorOf(err)),
    );
  };
}

/** The implementation of every method of flight-service.ts. */
export function flightHandlers(ctx: FlightContext): UntypedServiceImplementation {
  const tickets = new StatementTokens(ctx.services.keyring, 'fs1', 'statement ticket');
  const prepared = new StatementTokens(ctx.services.keyring, 'fp1', 'prepared statement handle');
  // A cancelled ticket is refused for as long as a partition's ticket lives: a read session's lifetime.
  const running = new RunningReads(ctx.services.config.sessionTtlMs);
  /** The SQL a statement command carries. */
  const sqlOf = (call: FlightCall, cmd: SqlCommand): string | null => {
    if (cmd.name === 'CommandStatementQuery') return String(cmd.fields.query ?? '');
    if (cmd.name === 'CommandPreparedStatementQuery')
      return prepared.open(call, cmd.fields.preparedStatementHandle as Buffer);
    return null;
  };
  const flightInfo = async (call: FlightCall, d: FlightDescriptor): Promise<FlightInfo> => {
    const cmd = commandOf(d);
    const sql = sqlOf(call, cmd);
    if (sql !== null) return statementInfo(call, sql, d, tickets);
    if (!isMetadata(cmd)) throw new ApiError('TG_BAD_REQUEST', `GetFlightInfo does not take ${cmd.name}`);
    const schema = schemaBytes(metadataSchema(cmd));
    return {
      schema,
      flightDescriptor: d,
      endpoint: [{ ticket: { ticket: d.cmd! } }],
      totalRecords: -1,
      totalBytes: -1,
    };
  };
  return {
    Handshake: (grpc: ServerDuplexStream<unknown, unknown>) => handshakeCall(ctx, grpc),
    ListFlights: streaming(ctx, 'ListFlights', async () => toAsync([])),
    GetFlightInfo: unary(ctx, 'GetFlightInfo', flightInfo),
    PollFlightInfo: (_grpc: unknown, callback: sendUnaryData<unknown>) => callback(unimplemented('PollFlightInfo')),
    GetSchema: unary(ctx, 'GetSchema', async (call, d: FlightDescriptor) => {
      const cmd = commandOf(d);
      const sql = sqlOf(call, cmd);
      if (sql !== null) return { schema: await statementSchema(call, sql) };
      if (!isMetadata(cmd)) throw new ApiError('TG_BAD_REQUEST', `GetSchema does not take ${cmd.name}`);
      return { schema: schemaBytes(metadataSchema(cmd)) };
    }),
    DoGet: streaming(ctx, 'DoGet', async (call, t: { ticket: Buffer }) => {
      const cmd = unpackCommand(t.ticket);
      if (cmd.name !== 'TicketStatementQuery') return metadataData(call, cmd);
      const handle = cmd.fields.statementHandle as Buffer;
      const planned = isPartitionHandle(handle)
        ? await planPartition(call, handle)
        : await planStatement(call, tickets.open(call, handle));
      return running.read(call, t.ticket, statementData(call, planned));
    }),
    DoPut: (grpc: ServerDuplexStream<unknown, unknown>) => grpc.emit('error', unimplemented('DoPut')),
    DoExchange: (grpc: ServerDuplexStream<unknown, unknown>) => grpc.emit('error', unimplemented('DoExchange')),
    DoAction: streaming(ctx, 'DoAction', async (call, a: Action) =>
      a.type === 'CancelFlightInfo' ? cancelFlightInfo(call, a, running) : actionResults(call, a, prepared),
    ),
    ListActions: streaming(ctx, 'ListActions', async () => toAsync(ACTION_TYPES)),
  };
}

async function* toAsync<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

const ACTION_TYPES = [
  {
    type: 'CreatePreparedStatement',
    description: 'Prepares a statement of the SQL subset: its handle and result schema',
  },
  { type: 'ClosePreparedStatement', description: 'Closes a prepared statement (handles hold no state on the server)' },
  {
    type: 'CancelFlightInfo',
    description: "Cancels the DoGets of a FlightInfo's endpoints that this instance serves, and refuses their tickets",
  },
];

/** DoAction: prepared statements. A handle is the statement sealed for its caller: closing it frees nothing. */
async function actionResults(call: FlightCall, a: Action, prepared: StatementTokens): Promise<AsyncIterable<unknown>> {
  if (a.type === 'ClosePreparedStatement') {
    const cmd = unpackCommand(a.body);
    if (cmd.name !== 'ActionClosePreparedStatementRequest')
      throw new ApiError('TG_BAD_REQUEST', `ClosePreparedStatement does not take ${cmd.name}`);
    prepared.open(call, cmd.fields.preparedStatementHandle as Buffer);
    return toAsync([]);
  }
  if (a.type !== 'CreatePreparedStatement')
    throw new ApiError('TG_BAD_REQUEST', `action ${JSON.stringify(a.type.slice(0, 100))} is not served`);
  const cmd = unpackCommand(a.body);
  if (cmd.name !== 'ActionCreatePreparedStatementRequest')
    throw new ApiError('TG_BAD_REQUEST', `CreatePreparedStatement does not take ${cmd.name}`);
  const sql = String(cmd.fields.query ?? '');
  await planStatement(call, sql);
  const datasetSchema = await statementSchema(call, sql);
  const preparedStatementHandle = prepared.seal(call, sql);
  const body = packCommand('ActionCreatePreparedStatementResult', { preparedStatementHandle, datasetSchema });
  return toAsync([{ body }]);
}
