/**
 * FlightInfo for a statement (CommandStatementQuery, CommandPreparedStatementQuery): the statement planned for its
 * caller (its errors answered now, before any DoGet), the result's schema from a probe that scans nothing, and its
 * endpoints.
 *
 * `statementEndpoints` is the one function that says how a planned statement is read: a bulk statement (rows, no
 * LIMIT, a closed window) as one endpoint per read-session stream, each ticket the stream's sealed description, served
 * by any instance; any other statement as one endpoint whose ticket is the whole statement (DoGet tells the two apart
 * by the handle: flight-handlers.ts).
 */
import type { FlightDescriptor, FlightEndpoint, FlightInfo } from './flight-messages.js';
import { packCommand } from './flight-sql-messages.js';
import type { FlightCall } from './flight-call.js';
import { partitionEndpoints, streamsAsked } from './statement-partitions.js';
import { planStatement, statementSchema, type PlannedStatement, type StatementTokens } from './statement-read.js';

/**
 * The endpoints a planned statement is read through: a bulk statement's partitions, one per read-session stream
 * (statement-partitions.ts); any other statement one, whose ticket is the statement sealed for its caller.
 */
export async function statementEndpoints(
  call: FlightCall,
  s: PlannedStatement,
  tickets: StatementTokens,
): Promise<FlightEndpoint[]> {
  const partitions = await partitionEndpoints(call, s, streamsAsked(call));
  if (partitions) return partitions;
  const statementHandle = tickets.seal(call, s.sql);
  return [{ ticket: { ticket: packCommand('TicketStatementQuery', { statementHandle }) }, location: [] }];
}

/** The FlightInfo of a statement for the call's caller. */
export async function statementInfo(
  call: FlightCall,
  sql: string,
  descriptor: FlightDescriptor,
  tickets: StatementTokens,
): Promise<FlightInfo> {
  const planned = await planStatement(call, sql);
  const schema = await statementSchema(call, sql);
  return {
    schema,
    flightDescriptor: descriptor,
    endpoint: await statementEndpoints(call, planned, tickets),
    totalRecords: -1,
    totalBytes: -1,
    ordered: planned.plan.tree.order.length > 0,
  };
}
