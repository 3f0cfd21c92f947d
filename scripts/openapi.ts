/**
 * `npm run openapi`: writes openapi/openapi.json, the OpenAPI document generated from the routes' schemas.
 * Building the app needs no Trino (only the cursor store is opened, in memory here); the settings are fixed rather
 * than read from the environment, so the document does not depend on who runs this. `--check` exits 1 when the
 * committed file differs instead of writing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/load-config.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../openapi/openapi.json', import.meta.url));

/** The document as committed: 2-space JSON with a final newline. */
export async function generateOpenapi(): Promise<string> {
  const app = await buildApp(loadConfig({ TOPICGATE_STATE_URL: 'sqlite::memory:' }), { logger: false });
  try {
    await app.ready();
    return JSON.stringify(app.swagger(), null, 2) + '\n';
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const text = await generateOpenapi();
  let committed = '';
  try {
    committed = readFileSync(OPENAPI_FILE, 'utf8');
  } catch {
    // no committed document yet
  }
  if (process.argv.includes('--check')) {
    if (committed !== text) {
      process.stderr.write(`${OPENAPI_FILE} is out of date: run npm run openapi\n`);
      process.exit(1);
    }
    process.stdout.write(`${OPENAPI_FILE} is up to date\n`);
    return;
  }
  writeFileSync(OPENAPI_FILE, text);
  process.stdout.write(`${committed === text ? 'unchanged' : 'wrote'} ${OPENAPI_FILE}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
