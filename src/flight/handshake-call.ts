/**
 * The Handshake call: Basic `<principal>:<API key>` (or a bearer credential) answered with `authorization: Bearer
 * <token>` in the response headers, and the token as the one response's payload; the client's messages are not
 * needed. Counted against the caller's calls per minute like every call, before a refusal (guessing is limited).
 */
import { Metadata, type ServerDuplexStream } from '@grpc/grpc-js';
import { ANONYMOUS, quotaKey, type Principal } from '../access/principal.js';
import { handshake } from './flight-auth.js';
import { addressOf, type FlightContext } from './flight-call.js';
import { grpcErrorOf } from './flight-status.js';

/** The handshake's answer, the call counted for its principal (its address when refused). */
async function counted(ctx: FlightContext, grpc: ServerDuplexStream<unknown, unknown>) {
  const access = ctx.services.accessHolder.current;
  let answer: { principal: Principal; bearer: string } | undefined;
  let refused: unknown;
  try {
    answer = await handshake(access.authenticator, ctx.tokens, grpc.metadata);
  } catch (err) {
    refused = err;
  }
  await ctx.rate.take(quotaKey(answer?.principal ?? ANONYMOUS, addressOf(grpc.getPeer())));
  if (!answer) throw refused;
  return answer;
}

export function handshakeCall(ctx: FlightContext, grpc: ServerDuplexStream<unknown, unknown>): void {
  grpc.on('data', () => {});
  const started = Date.now();
  counted(ctx, grpc).then(
    ({ principal, bearer }) => {
      const headers = new Metadata();
      headers.set('authorization', `Bearer ${bearer}`);
      grpc.sendMetadata(headers);
      grpc.write({ protocolVersion: 0, payload: Buffer.from(bearer) });
      grpc.end();
      ctx.metrics.calls.inc({ method: 'Handshake', outcome: 'ok' });
      const flight = { method: 'Handshake', principal: principal.name, id: principal.id, outcome: 'ok' };
      ctx.services.log.info({ flight: { ...flight, durationMs: Date.now() - started } }, 'flight call');
    },
    (err: unknown) => {
      const e = grpcErrorOf(err);
      ctx.metrics.calls.inc({ method: 'Handshake', outcome: 'refused' });
      const reason = (err as { reason?: string }).reason;
      ctx.services.log.info(
        { flight: { method: 'Handshake', outcome: e.apiError?.code ?? 'failed', reason } },
        'flight call',
      );
      grpc.emit('error', e);
    },
  );
}
