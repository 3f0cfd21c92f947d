/**
 * The file cache of settled windows as an app service (API.md "Windows as files"): one cache per app, in
 * TOPICGATE_FILE_CACHE_DIR bounded by TOPICGATE_FILE_CACHE_BYTES, its counts in /metrics, and
 * `reply.sendWindowFile(...)` for the route (window-file.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';
import { FileCache, type FileCacheCounts } from '../files/file-cache.js';
import { sendWindowFile, type WindowFileOptions } from './window-file.js';

export interface WindowFiles {
  /** The cache, opened at its first use (an app that serves no file never touches the directory). */
  cache(): FileCache;
  /** Aborted when the app closes: the makes under way stop (each outlives its request, not the process). */
  closing: AbortSignal;
  /** Counts the bytes of a file a response sends (a range's, or the whole file's). */
  sentBytes(suffix: string, bytes: number): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    windowFiles: WindowFiles;
  }
  interface FastifyReply {
    /** Answers a request for a settled window's file: planned for the caller, found or made, sent by range. */
    sendWindowFile(o: WindowFileOptions): Promise<FastifyReply>;
  }
}

/** The cache's counters, in the app's registry (server/plugins/metrics.ts). */
function fileMetrics(app: FastifyInstance) {
  const registers = [app.metrics.registry];
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames, registers });
  return {
    hits: counter('topicgate_file_cache_hits_total', 'Window file requests answered from a file made before'),
    made: counter('topicgate_file_cache_made_total', 'Window files made (a request found none)'),
    madeBytes: counter('topicgate_file_cache_made_bytes_total', 'Bytes of window files made'),
    evictions: counter('topicgate_file_cache_evictions_total', 'Window files removed to keep the cache in its bytes'),
    evictedBytes: counter('topicgate_file_cache_evicted_bytes_total', 'Bytes of window files removed'),
    sent: counter('topicgate_file_bytes_sent_total', 'Bytes of window files sent, by suffix', ['suffix']),
    held: new Gauge({ name: 'topicgate_file_cache_bytes', help: 'Bytes the window file cache holds', registers }),
    files: new Gauge({ name: 'topicgate_file_cache_files', help: 'Files the window file cache holds', registers }),
  };
}

async function windowFilesPlugin(app: FastifyInstance): Promise<void> {
  const m = fileMetrics(app);
  const { fileCacheDir, fileCacheBytes } = app.tg.config;
  const counts: FileCacheCounts = {
    hit: () => m.hits.inc(),
    made: (bytes) => {
      m.made.inc();
      m.madeBytes.inc(bytes);
    },
    evicted: (bytes) => {
      m.evictions.inc();
      m.evictedBytes.inc(bytes);
    },
    held: (bytes, files) => {
      m.held.set(bytes);
      m.files.set(files);
    },
  };
  let cache: FileCache | undefined;
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  app.decorate('windowFiles', {
    closing: closing.signal,
    cache: () => (cache ??= new FileCache(fileCacheDir, fileCacheBytes, counts)),
    sentBytes: (suffix: string, bytes: number) => m.sent.inc({ suffix }, bytes),
  });
  app.decorateReply('sendWindowFile', function (this: FastifyReply, o: WindowFileOptions) {
    return sendWindowFile(app, this.request, this, o);
  });
}

export default fp(windowFilesPlugin, { name: 'window-files', dependencies: ['topicgate-metrics'] });
