/**
 * Connection limits: a request must arrive whole within TOPICGATE_REQUEST_TIMEOUT (a
 * body sent one byte a second is cut off), idle connections close, and a response its client stops reading is cut
 * after TOPICGATE_WRITE_IDLE_TIMEOUT, which closes the socket and so cancels the response's Trino query.
 */
import type { ServerResponse } from 'node:http';
import type { Config } from '../config/config.js';

type Timeouts = Pick<Config, 'requestTimeoutMs' | 'connectionTimeoutMs' | 'keepAliveTimeoutMs'>;

/** The fastify server options for the timeouts. */
export function serverTimeouts(config: Timeouts) {
  return {
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      // Node checks the request timeout on this interval (30s by default): a fraction of it keeps the cut prompt.
      connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(config.requestTimeoutMs / 4))),
    },
  };
}

interface Watched {
  /** When the response last made progress: a drain, or a check that found its buffer not full. */
  progressAt: number;
}

/**
 * Watches responses whose client stops reading: a response whose buffer stays full (its client takes nothing)
 * for longer than `timeoutMs` is destroyed. One timer serves every response in flight.
 */
export class WriteIdleWatch {
  private readonly responses = new Map<ServerResponse, Watched>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly onCut: (res: ServerResponse) => void = () => {},
  ) {}

  watch(res: ServerResponse): void {
    const w: Watched = { progressAt: Date.now() };
    this.responses.set(res, w);
    res.on('drain', () => {
      w.progressAt = Date.now();
    });
    res.once('close', () => this.responses.delete(res));
    this.timer ??= setInterval(() => this.check(), Math.max(10, Math.min(1_000, Math.floor(this.timeoutMs / 4))));
    this.timer.unref();
  }

  /** Responses being watched now. */
  get size(): number {
    return this.responses.size;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.responses.clear();
  }

  private check(): void {
    const now = Date.now();
    for (const [res, w] of this.responses) {
      if (!res.writableNeedDrain) w.progressAt = now;
      else if (now - w.progressAt > this.timeoutMs) {
        this.responses.delete(res);
        this.onCut(res);
        res.destroy();
      }
    }
    if (this.responses.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
