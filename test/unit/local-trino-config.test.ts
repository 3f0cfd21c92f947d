/** The local Trino's configuration files and the stamp `up` compares with a running server's (no Trino started). */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { s3Layout } from '../../scripts/local-s3.js';
import {
  configFiles,
  configStamp,
  heapMb,
  JVM_MODES,
  jvmConfig,
  readStamp,
  writeConfig,
} from '../../scripts/local-trino-config.js';
import { gcMode, jitMode } from '../../scripts/local-trino.js';

const runDir = mkdtempSync(join(tmpdir(), 'tg-trino-config-'));
const target = { port: 18790, runDir, pgPort: 15432 };
const s3 = s3Layout(runDir, 18790, {});

describe('local Trino configuration', () => {
  it('with S3: spooling on, to the bucket on the S3 server beside it, with a shared secret of 256 bits', () => {
    const files = configFiles(target, s3);
    expect(s3.url).toBe('http://127.0.0.1:18799');
    expect(files['config.properties']).toContain('protocol.spooling.enabled=true\n');
    expect(files['config.properties']).toContain('protocol.spooling.retrieval-mode=COORDINATOR_PROXY\n');
    const secret = /protocol\.spooling\.shared-secret-key=(.+)\n/.exec(files['config.properties']!)?.[1];
    expect(Buffer.from(secret!, 'base64')).toHaveLength(32);
    expect(files['spooling-manager.properties']).toContain('fs.location=s3://spooling/\n');
    expect(files['spooling-manager.properties']).toContain('s3.endpoint=http://127.0.0.1:18799\n');
  });

  it('query memory follows the heap: a third per node, half per query (2GB and 3GB of the default 6G)', () => {
    expect(configFiles(target, s3)['config.properties']).toContain(
      'query.max-memory=3072MB\nquery.max-memory-per-node=2048MB\n',
    );
    expect([heapMb('6G'), heapMb('16g'), heapMb('6144m')]).toEqual([6144, 16384, 6144]);
    expect(() => heapMb('lots')).toThrow(/TOPICGATE_LOCAL_TRINO_HEAP: "lots"/);
  });

  it('with S3: the lake, an Iceberg JDBC catalog in the local PostgreSQL, its warehouse in a bucket beside the spool', () => {
    const lake = configFiles(target, s3)['catalog/lake.properties']!;
    for (const line of [
      'connector.name=iceberg',
      'iceberg.catalog.type=jdbc',
      'iceberg.jdbc-catalog.connection-url=jdbc:postgresql://127.0.0.1:15432/topicgate?currentSchema=iceberg_lake',
      // A catalog name per Trino: two local Trinos on one PostgreSQL share no table.
      'iceberg.jdbc-catalog.catalog-name=lake_18790',
      'iceberg.jdbc-catalog.default-warehouse-dir=s3://lake/warehouse',
      'fs.native-s3.enabled=true',
      's3.endpoint=http://127.0.0.1:18799',
      's3.path-style-access=true',
    ]) {
      expect(lake).toContain(`${line}\n`);
    }
    expect(configFiles(target, undefined)['catalog/lake.properties']).toBeUndefined();
  });

  it('without S3: spooling off, no spooling manager', () => {
    const files = configFiles(target, undefined);
    expect(files['config.properties']).toContain('protocol.spooling.enabled=false\n');
    expect(files['spooling-manager.properties']).toBeUndefined();
  });

  it('JIT: C2 by default, C1 alone when quick (the test suite), and the stamp tells the two apart', () => {
    const quick = { ...target, jit: 'quick' as const };
    expect(configFiles(target, s3)['jvm.config']).not.toContain('TieredStopAtLevel');
    expect(configFiles(quick, s3)['jvm.config']).toContain('-XX:TieredStopAtLevel=1\n');
    expect(configStamp(configFiles(quick, s3))).not.toBe(configStamp(configFiles(target, s3)));
    expect(jitMode('X', undefined)).toBe('full');
    expect(jitMode('X', 'quick')).toBe('quick');
    expect(() => jitMode('TOPICGATE_LOCAL_TRINO_JIT', 'fast')).toThrow(/TOPICGATE_LOCAL_TRINO_JIT: "fast"/);
  });

  it('GC: G1 by default, the parallel collector when asked (the test suite), one collector only', () => {
    const g1 = configFiles(target, s3)['jvm.config']!;
    const parallel = configFiles({ ...target, gc: 'parallel' }, s3)['jvm.config']!;
    expect(g1).toContain('-XX:+UseG1GC\n');
    expect(g1).not.toContain('Parallel');
    expect(parallel).toContain('-XX:+UseParallelGC\n');
    expect(parallel).not.toContain('G1');
    expect(gcMode('X', undefined)).toBe('g1');
    expect(gcMode('X', 'parallel')).toBe('parallel');
    expect(() => gcMode('TOPICGATE_SECURE_TRINO_GC', 'zgc')).toThrow(/TOPICGATE_SECURE_TRINO_GC: "zgc" is not g1/);
  });

  it('every combination of the JVM modes is its own configuration, with its own stamp', () => {
    expect(JVM_MODES).toHaveLength(4);
    const stamps = new Set(JVM_MODES.map((m) => configStamp(configFiles({ ...target, ...m }, s3))));
    expect(stamps.size).toBe(4);
    // The secure Trinos write the same JVM options (secure-trino.ts), with their own heap.
    expect(jvmConfig('2G', { jit: 'quick', gc: 'parallel' })).toBe(
      configFiles({ ...target, jit: 'quick', gc: 'parallel' }, s3)['jvm.config']!.replace('-Xmx6G', '-Xmx2G'),
    );
  });

  it('finished tasks are forgotten after ten seconds, finished queries kept listed for a minute', () => {
    const config = configFiles(target, s3)['config.properties'];
    expect(config).toContain('http-server.log.enabled=false\n');
    expect(config).toContain('task.info.max-age=10s\n');
    expect(config).toContain('query.min-expire-age=1m\n');
  });

  it('the stamp is stable for one configuration and differs for another (the secret is kept per run folder)', () => {
    expect(configStamp(configFiles(target, s3))).toBe(configStamp(configFiles(target, s3)));
    expect(configStamp(configFiles(target, s3))).not.toBe(configStamp(configFiles(target, undefined)));
    expect(configStamp(configFiles(target, s3))).not.toBe(configStamp(configFiles({ ...target, pgPort: 1 }, s3)));
  });

  it('writeConfig writes etc/ and the stamp readStamp reads back', () => {
    const files = configFiles(target, s3);
    const etc = writeConfig(runDir, files);
    expect(readFileSync(join(etc, 'spooling-manager.properties'), 'utf8')).toBe(files['spooling-manager.properties']);
    expect(readStamp(runDir)).toBe(configStamp(files));
  });
});
