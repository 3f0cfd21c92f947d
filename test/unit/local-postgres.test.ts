import { describe, expect, it } from 'vitest';
import {
  PG_HBA,
  binDirMajor,
  chooseBinDir,
  pgLayout,
  pgUrl,
  serverConf,
  shellQuote,
} from '../../scripts/local-postgres.js';

describe('local-postgres: bin dir choice', () => {
  const c = (major: number) => ({ dir: `/usr/lib/postgresql/${major}/bin`, major });

  it('reads the major version from a Debian bin dir path', () => {
    expect(binDirMajor('/usr/lib/postgresql/15/bin')).toBe(15);
    expect(binDirMajor('/usr/lib/postgresql/9.6/bin/')).toBe(9);
    expect(binDirMajor('/opt/pg/bin')).toBeUndefined();
  });

  it('takes the newest major version (numerically, not by name)', () => {
    expect(chooseBinDir([c(9), c(15), c(13)])?.dir).toBe('/usr/lib/postgresql/15/bin');
    expect(chooseBinDir([c(17), c(100), c(16)])?.major).toBe(100);
  });

  it("prefers pg_config's (or the configured) dir when it qualifies", () => {
    expect(chooseBinDir([c(17), c(15)], { preferred: '/usr/lib/postgresql/15/bin' })?.major).toBe(15);
    expect(chooseBinDir([c(17), c(15)], { preferred: '/usr/lib/postgresql/14/bin' })?.major).toBe(17);
  });

  it("insists on the existing data dir's version", () => {
    expect(chooseBinDir([c(17), c(15)], { wantMajor: 15 })?.major).toBe(15);
    expect(chooseBinDir([c(17)], { wantMajor: 15 })).toBeUndefined();
  });

  it('finds nothing in an empty list', () => {
    expect(chooseBinDir([])).toBeUndefined();
  });
});

describe('local-postgres: layout and URL', () => {
  it('defaults to port 15432 and the role/database topicgate', () => {
    const l = pgLayout({ TOPICGATE_CACHE_DIR: '/tmp/tg-cache' });
    expect(l.port).toBe(15432);
    expect(l.url).toBe('postgres://topicgate:topicgate@127.0.0.1:15432/topicgate');
    expect(l.dataDir).toBe('/tmp/tg-cache/pg-15432');
    expect(l.socketDir).toBe(l.dataDir);
  });

  it('follows TOPICGATE_LOCAL_PG_PORT and rejects a bad one', () => {
    const l = pgLayout({ TOPICGATE_CACHE_DIR: '/c', TOPICGATE_LOCAL_PG_PORT: '25432' });
    expect(l.url).toBe('postgres://topicgate:topicgate@127.0.0.1:25432/topicgate');
    expect(l.dataDir).toBe('/c/pg-25432');
    expect(() => pgLayout({ TOPICGATE_LOCAL_PG_PORT: 'abc' })).toThrow(/TOPICGATE_LOCAL_PG_PORT/);
  });

  it('uses the XDG cache dir like local-trino.ts', () => {
    expect(pgLayout({ XDG_CACHE_HOME: '/x' }).dataDir).toBe('/x/topicgate/pg-15432');
  });

  it('escapes URL parts', () => {
    expect(pgUrl({ port: 5, user: 'a b', password: 'p@ss:/', database: 'd' })).toBe(
      'postgres://a%20b:p%40ss%3A%2F@127.0.0.1:5/d',
    );
  });
});

describe('local-postgres: server settings', () => {
  const conf = serverConf({ port: 15432, socketDir: "/tmp/o'brien/pg-15432" });

  it('listens on 127.0.0.1 only, with the socket in the data dir', () => {
    expect(conf).toContain("listen_addresses = '127.0.0.1'");
    expect(conf).toContain('port = 15432');
    expect(conf).toContain("unix_socket_directories = '/tmp/o''brien/pg-15432'");
    expect(conf).toContain('shared_buffers = 128MB');
    expect(conf).toContain('max_connections = 100');
  });

  it('asks for a password on TCP', () => {
    expect(PG_HBA).toMatch(/^host\s+all\s+all\s+127\.0\.0\.1\/32\s+scram-sha-256$/m);
    expect(PG_HBA).not.toMatch(/^host\s.*trust/m);
  });

  it('quotes words for su -c', () => {
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});
