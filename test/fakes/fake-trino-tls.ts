/**
 * A throwaway certificate authority and a server certificate for 127.0.0.1 and localhost, made with openssl in
 * a temporary folder, for the fake Trino's HTTPS listener.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** The CA certificate (PEM) a client must trust. */
  ca: string;
  /** The server's key and certificate (PEM), signed by the CA. */
  key: string;
  cert: string;
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'fake-trino-tls-'));
  const at = (f: string) => join(dir, f);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl(
      'req',
      '-x509',
      ...ec,
      '-days',
      '2',
      '-subj',
      '/CN=fake-trino-test-ca',
      '-keyout',
      at('ca.key'),
      '-out',
      at('ca.pem'),
    );
    openssl('req', '-new', ...ec, '-subj', '/CN=127.0.0.1', '-keyout', at('server.key'), '-out', at('server.csr'));
    writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    openssl(
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      at('ca.pem'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      at('san.ext'),
      '-out',
      at('server.pem'),
    );
    const read = (f: string) => readFileSync(at(f), 'utf8');
    return { ca: read('ca.pem'), key: read('server.key'), cert: read('server.pem') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
