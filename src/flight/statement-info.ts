/**
 * FlightInfo for a statement (CommandStatementQuery, CommandPreparedStatementQuery): the statement planned for its
 * caller (its errors answered now, before any DoGet), the result's schema from a probe that scans nothing, and its
 * endpoints.
 *
 * Where partitions go: `statementEndpoints` is the one function that says how a planned statement is read. It
 * returns one endpoint whose ticket is the whole statement; a bulk statement (no LIMIT, closed window) may instead
 * return one endpoint per read-session stream, each with its own sealed ticket, served by any instance (DoGet
 * dispatches on the ticket's command: flight-service.ts). Nothing else needs to change for that.
 */
import type { FlightDescriptor, FlightEndpoint, FlightInfo } from './flight-messages.js';
import { packCommand } from './flight-sql-messages.js';
import type { FlightCall } from './flight-call.js';
import { planStatement, statementSchema, type PlannedStatement, type StatementTokens } from './statement-read.js';

/** The endpoints a planned statement is read through: one, whose ticket is the statement sealed for its caller. */
export function statementEndpoints(call: FlightCall, s: PlannedStatement, tickets: StatementTokens): FlightEndpoint[] {
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
    endpoint: statementEndpoints(call, planned, tickets),
    totalRecords: -1,
    totalBytes: -1,
    ordered: planned.plan.tree.order.length > 0,
  };
}
