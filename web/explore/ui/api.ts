/**
 * The API as the page calls it: same origin, the credential entered on the page (credentials.ts) as a bearer token,
 * errors turned into the API's own message (`{"error": {"code", "message"}}`).
 */
import { parseJsonTree, type JsonNode } from '../model/json-tree.js';
import { credential } from './credentials.js';

export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = credential();
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

async function failure(res: Response): Promise<ApiFailure> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return new ApiFailure(body.error.message, res.status, body.error.code);
  } catch {
    // not the API's error body: fall through
  }
  return new ApiFailure(`HTTP ${res.status} ${res.statusText}`.trim(), res.status, undefined);
}

/** A request with the page's credential; a non-2xx status throws the API's message. */
export async function call(
  path: string,
  init: RequestInit & { accept?: string; extraHeaders?: Record<string, string> } = {},
): Promise<Response> {
  const extra: Record<string, string> = { Accept: init.accept ?? 'application/json', ...init.extraHeaders };
  if (init.body !== undefined) extra['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers: headers(extra) });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiFailure(`the gateway cannot be reached (${(err as Error).message})`, 0, undefined);
  }
  if (!res.ok) throw await failure(res);
  return res;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await (await call(path, { signal })).json()) as T;
}

export async function postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const res = await call(path, { method: 'POST', body: JSON.stringify(body), signal });
  return (await res.json()) as T;
}

/** A JSON read kept as a tree (every digit of big integers), with a cut body reported as the API's error. */
export async function getRows(path: string, signal?: AbortSignal): Promise<JsonNode[]> {
  const tree = parseJsonTree(await (await call(path, { signal })).text());
  const rows = tree.kind === 'object' ? tree.entries.find(([k]) => k === 'rows')?.[1] : undefined;
  const error = tree.kind === 'object' ? tree.entries.find(([k]) => k === 'error')?.[1] : undefined;
  const message = error?.kind === 'object' ? error.entries.find(([k]) => k === 'message')?.[1] : undefined;
  if (message?.kind === 'string') throw new ApiFailure(message.value, 200, undefined);
  return rows?.kind === 'array' ? rows.items : [];
}

/** `/v1/topics/{topic}` and its sub-resources. */
export function topicPath(topic: string, rest = ''): string {
  return `/v1/topics/${encodeURIComponent(topic)}${rest}`;
}

/** A failure's text for the page (the API's message; anything else as it is). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}
