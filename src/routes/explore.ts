/**
 * The explorer (API.md "Explorer"): `GET /explore` and `GET /explore/{topic}` are one static page shell, and
 * `/explore/assets/*` its scripts and style sheet, bundled by `npm run build` from web/explore/ (esbuild, with uPlot)
 * into dist/explore/: explore.js, small, starts the page's first API requests and imports explore-app.js, the pages,
 * which the shell preloads beside it. Each asset is sent as built in brotli or gzip when the browser accepts one
 * (the build writes them; a build without them sends the file as it is). The shell holds no data: the page's script
 * calls the API with the caller's credentials (entered on the page, kept for the tab), so it shows only what the API
 * answers that caller. The pages and assets are in the `docs` route group, as Swagger UI is; their CSP allows
 * scripts, styles and requests of this origin only, and no inline script or style.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../core/errors.js';
import type { ContentCoding } from '../core/content-codings.js';
import { negotiateContentCoding } from '../http/accept-encoding.js';
import { addVary } from '../http/vary.js';
import { AUTH_ERRORS, PATH_ERRORS, errorResponses } from './error-schema.js';
import { TopicParams } from './topics-schema.js';

/** Where `npm run build` writes the bundle: dist/explore/ of the project, from src/routes/ and dist/routes/ alike. */
export const EXPLORE_ASSETS = new URL('../../dist/explore/', import.meta.url);

/** The explorer's own policy: nothing but this origin's scripts, style sheets and API calls; no inline code. */
export const EXPLORE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ASSET_TYPES: Readonly<Record<string, string>> = {
  'explore.js': 'text/javascript; charset=utf-8',
  'explore.css': 'text/css; charset=utf-8',
  'explore-app.js': 'text/javascript; charset=utf-8',
};

/** The codings the build writes beside each asset, by file suffix. */
const PRECOMPRESSED: Readonly<Partial<Record<ContentCoding, string>>> = { br: '.br', gzip: '.gz' };
const OFFERED = Object.keys(PRECOMPRESSED) as ContentCoding[];

/** The page shell: the same for both pages, which the script tells apart by its path. */
export const EXPLORE_SHELL = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>topicgate explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/explore/assets/explore.css">
<script type="module" src="/explore/assets/explore.js"></script>
<link rel="modulepreload" href="/explore/assets/explore-app.js">
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header class="top"><a class="brand" href="/explore">topicgate explorer</a>
<nav aria-label="Other pages"><a href="/docs/">API reference</a> <a href="/docs/topics">Topic reference</a></nav>
<div id="credentials"></div></header>
<main id="main" tabindex="-1"><noscript>The explorer needs JavaScript; the API reference at /docs/ does not.</noscript></main>
</body></html>
`;

interface Asset {
  body: Buffer;
  etag: string;
}

/**
 * Reads the built assets once they exist (a build after start-up is picked up on the next request): each file as it
 * is, and its precompressed forms, each with an ETag of its own bytes.
 */
class AssetStore {
  readonly #dir: URL;
  readonly #cache = new Map<string, Asset | null>();
  constructor(dir: URL) {
    this.#dir = dir;
  }
  get(name: string, coding?: ContentCoding): Asset | undefined {
    const file = coding ? `${name}${PRECOMPRESSED[coding]}` : name;
    const cached = this.#cache.get(file);
    if (cached !== undefined) return cached ?? undefined;
    let body: Buffer;
    try {
      body = readFileSync(new URL(file, this.#dir));
    } catch {
      // A file as it is may be built later; a build writes its compressed forms with it.
      if (coding && this.get(name)) this.#cache.set(file, null);
      return undefined;
    }
    const asset = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    this.#cache.set(file, asset);
    return asset;
  }
}

const PAGE_SCHEMA = {
  tags: ['docs'],
  response: {
    200: {
      description: 'An HTML page (its script calls the API)',
      content: { 'text/html': { schema: Type.String() } },
    },
    ...errorResponses([...PATH_ERRORS, ...AUTH_ERRORS]),
  },
};

export interface ExploreOptions {
  /** Where the bundle is (tests point elsewhere). */
  assets?: URL;
}

const exploreRoutes: FastifyPluginAsyncTypebox<ExploreOptions> = async (app, opts) => {
  const store = new AssetStore(opts.assets ?? EXPLORE_ASSETS);
  const page = (_request: unknown, reply: FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', EXPLORE_CSP)
      .header('Cache-Control', 'no-cache')
      .send(EXPLORE_SHELL);
  app.get(
    '/explore',
    {
      config: { group: 'docs', sameForEveryone: true },
      schema: {
        ...PAGE_SCHEMA,
        summary: 'The explorer: the served topics with their event rate',
        description:
          'A page for people: the topics the caller may read, each with its event rate over a window. The page calls the API with the credentials entered on it.',
      },
    },
    page,
  );
  app.get(
    '/explore/:topic',
    {
      config: { group: 'docs', sameForEveryone: true },
      schema: {
        ...PAGE_SCHEMA,
        params: TopicParams,
        summary: "The explorer's page of one topic",
        description:
          'Event rate over a window (drag to narrow it), columns and JSON fields with their presence and top values, sample events, a filter and select builder showing the URL, curl, SQL and pushdown, downloads in every format and a live view. The topic is checked by the API calls the page makes.',
      },
    },
    page,
  );
  app.get(
    '/explore/assets/:file',
    {
      config: { group: 'docs', sameForEveryone: true },
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 64 }) }) },
    },
    async (request, reply) => {
      const { file } = request.params;
      const type = Object.hasOwn(ASSET_TYPES, file) ? ASSET_TYPES[file] : undefined;
      if (!type) throw new ApiError('TG_NOT_FOUND', `no explorer asset ${JSON.stringify(file)}`);
      const plain = store.get(file);
      if (!plain) {
        throw new ApiError('TG_NOT_FOUND', `the explorer's ${file} is not built: run npm run build`);
      }
      const coding = negotiateContentCoding(request.headers['accept-encoding'], OFFERED);
      const packed = coding ? store.get(file, coding) : undefined;
      const asset = packed ?? plain;
      reply.type(type).header('ETag', asset.etag).header('Cache-Control', 'no-cache');
      addVary(reply, ['Accept-Encoding']);
      if (packed) reply.header('Content-Encoding', coding!);
      if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
      return reply.send(asset.body);
    },
  );
};

export default exploreRoutes;
