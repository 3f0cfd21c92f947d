/**
 * A tool's answer (MCP "Tools", CallToolResult): a JSON text content block, or a tool error (`isError: true`)
 * carrying the error's `TG_` code, status, message and details: what a person calling the REST API would read in
 * its error body (core/errors.ts errorBody). A failure the gateway did not foresee is TG_INTERNAL without its
 * internals, as in a 5xx body.
 */
import { errorBody } from '../core/errors.js';
import { toApiError } from '../trino/trino-errors.js';

export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/** A tool's result as JSON text (already encoded text is passed through, keeping every digit). */
export function jsonAnswer(value: unknown): ToolAnswer {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return { content: [{ type: 'text', text }] };
}

/** A failure as a tool error: the one error body, as JSON text. */
export function errorAnswer(err: unknown): ToolAnswer {
  const e = toApiError(err);
  return { content: [{ type: 'text', text: JSON.stringify(errorBody(e)) }], isError: true };
}
