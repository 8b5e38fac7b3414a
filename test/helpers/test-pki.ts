import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The certificates are made with the openssl CLI (Node has no API to make one); .ci/run installs it.
// Without it the set-up fails, saying so: a skipped suite would pass with HTTPS untested.

export interface TestPki {
  dir: string;
  caPath: string;
  certPath: string;
  keyPath: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** A private CA and a server certificate for 127.0.0.1 and localhost, made fresh for this run. */
export function makePki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-tls-'));
  const at = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      throw new Error(
        missing
          ? 'the openssl CLI is needed to make the test certificates: apt-get install openssl (.ci/run does)'
          : `openssl ${args[0]} failed: ${String(error)}`,
      );
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-subj', '/CN=docextract test CA', '-days', '2');
  openssl('req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(at('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
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
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('server.ext'),
  );
  return {
    dir,
    caPath: at('ca.pem'),
    certPath: at('server.pem'),
    keyPath: at('server.key'),
    ca: readFileSync(at('ca.pem')),
    cert: readFileSync(at('server.pem')),
    key: readFileSync(at('server.key')),
  };
}
