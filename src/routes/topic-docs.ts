/**
 * `GET /docs/topics`: one server-rendered page, from the live catalog, listing each served topic with its columns and
 * expanded fields, their Trino types, and filters that apply to each, so a newcomer can build a query from the page.
 * Every name on it comes from Trino or the config file, so everything is HTML-escaped (and the page gets a CSP that
 * allows no script at all).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../config/config.js';
import type { TableInfo } from '../query/tree/topic-model.js';
import { topicModel } from '../read/topic-catalog.js';
import { expansionOf, nativeExpansionOf } from '../blob/json/native-expansion.js';
import { typeFamily } from '../core/type-family.js';
import type { ColumnNode } from '../query/tree/nodes.js';
import { AUTH_ERRORS, TRINO_ERRORS, errorResponses } from './error-schema.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const code = (text: string) => `<code>${escapeHtml(text)}</code>`;

/** Filters that apply to a column, by the family of its type (src/query/request/filters.ts decides what is accepted). */
export function filterExamples(c: Pick<ColumnNode, 'name' | 'type'>): string[] {
  const n = c.name;
  switch (typeFamily(c.type)) {
    case 'varchar':
      return [`${n}=eq.text`, `${n}=in.(a,b,"c,d")`, `${n}=like.*text*`, `${n}=match.^te?xt$`, `${n}=is.null`];
    case 'varbinary':
      return [`${n}=eq.text`, `${n}=eq.\\xff00`, `${n}=like.*text*`, `${n}=is.null`, `${n}->>field=eq.text`];
    case 'integer':
      return [`${n}=eq.42`, `${n}=gte.10`, `${n}=in.(1,2,3)`];
    case 'decimal':
      return [`${n}=gt.9.99`, `${n}=lte.100.00`];
    case 'double':
      return [`${n}=lt.0.5`];
    case 'boolean':
      return [`${n}=is.true`, `${n}=eq.false`];
    case 'timestamp':
      return [`${n}=gte.2026-11-01T00:00:00Z`, `${n}=lt.2026-11-02T00:00:00Z`];
    case 'date':
      return [`${n}=eq.2026-11-01`];
    case 'other':
      return c.type.startsWith('array(') ? [`${n}=is.null`, `${n}=cs.{a,b}`, `${n}=ov.{a,b}`] : [`${n}=is.null`];
  }
}

/** A window of the demo data, so the examples below find rows (and satisfy the guardrail on JSON paths). */
const DEMO_DAY = 'since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z&limit=5';

/**
 * JSON arrow paths into the payload of the demo topics: each runs as shown (test/integration/openapi.test.ts).
 * Other topics get the generic form.
 */
export const PATH_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  orders: [
    'value->>status=eq.paid',
    'value->customer->address->>country=in.(DE,FR)',
    'value->items->0->>sku=eq.SKU-3',
    'value->>amount=gt.400',
    'select=key,country:value->customer->address->>country,first_sku:value->items->0->>sku',
    'order=value->>amount.desc&select=key,amount:value->amount',
  ],
  clicks: ['value->>page=like./p/1*', 'value->>ms=gte.2900', 'value->>ref=is.null&select=key,page:value->>page'],
  s3_events: [
    'value->Records->0->>eventName=like.ObjectRemoved:*',
    'select=key,size:value->Records->0->s3->object->>size,object:value->Records->0->s3->object',
  ],
};

function pathExamples(t: TableInfo, base: string): string {
  if (t.kind !== 'topic') return '';
  const list = PATH_EXAMPLES[t.id] ?? ['value->>field=eq.text', 'select=key,f:value->a->>b'];
  const links = list.map((q) => {
    const url = `${base}/events?${q}&${DEMO_DAY}`;
    return PATH_EXAMPLES[t.id] ? `<a href="${escapeHtml(url)}">${code(q)}</a>` : code(q);
  });
  return `<p>JSON fields of the payload, without declaring them: ${links.join(' ')}. ${code('->')} steps into JSON (the
result is JSON), ${code('->>')} ends the path with text; a number is an array index. Such filters run after the scan, so
they need ${code('since')}.</p>`;
}

function columnRow(c: ColumnNode, expandPath: string | undefined): string {
  // Filters on an expanded field run after the scan: the API then wants a time window (TG_TIME_BOUND_REQUIRED).
  const origin =
    c.source.kind !== 'json'
      ? 'table'
      : `expansion of ${code(c.source.from)} at ${code(expandPath ?? '')}; filters on it need ${code('since')}`;
  const filters = filterExamples(c).map(code).join(' ');
  return `<tr><td>${code(c.name)}</td><td>${code(c.type)}</td><td>${origin}</td><td>${filters}</td></tr>`;
}

/** The caller may see this topic id (the other table of a topic is named only then). */
type Sees = (id: string) => boolean;

function expansionNote(
  t: TableInfo,
  tables: ReadonlyMap<string, TableInfo>,
  topics: Config['topics'],
  sees: Sees,
): string {
  const native = nativeExpansionOf(t, tables, topics[t.id]);
  if (native && sees(native.name)) {
    const link = native.found
      ? `<a href="#${escapeHtml(encodeURIComponent(`topic-${native.name}`))}">${escapeHtml(native.name)}</a>`
      : code(native.name);
    return `<p>Native expansion table: ${link}. ${escapeHtml(native.note)}</p>`;
  }
  const of = t.kind === 'table' ? expansionOf(t, tables, topics) : null;
  return of && sees(of)
    ? `<p>The native expansion table of topic ${code(of)}: typed columns parsed from its payloads.</p>`
    : '';
}

function topicSection(
  t: TableInfo,
  tables: ReadonlyMap<string, TableInfo>,
  config: Pick<Config, 'catalog' | 'topics'>,
  sees: Sees,
): string {
  const model = topicModel(t, config);
  const expand = config.topics[t.id]?.expand ?? {};
  const base = `/v1/topics/${encodeURIComponent(t.id)}`;
  const sample = `${base}/events?limit=5`;
  const rows = [...model.columns.values()].map((c) => columnRow(c, expand[c.name]?.path)).join('\n');
  const time = model.time
    ? `<p>Time window: ${code('since')} / ${code('until')} bound ${code(model.time.name)}.</p>`
    : `<p>No ${code('timestamp_broker')} column: ${code('since')} / ${code('until')} do not apply.</p>`;
  return `<section id="${escapeHtml(`topic-${t.id}`)}">
<h2>${escapeHtml(t.id)} <small>(${escapeHtml(t.kind)})</small></h2>
<p>Trino table ${code(`${config.catalog}.${t.schema}.${t.table}`)}. Try ${`<a href="${escapeHtml(sample)}">${code(sample)}</a>`},
describe it with <a href="${escapeHtml(base)}">${code(base)}</a>.</p>
${time}
${pathExamples(t, base)}
${expansionNote(t, tables, config.topics, sees)}
<table><thead><tr><th>column</th><th>Trino type</th><th>origin</th><th>filters (query parameters)</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>`;
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}code{background:#f4f4f4;padding:0 .2em}
td code{margin-right:.4em;white-space:nowrap}small{color:#666;font-weight:normal}`;

/** The whole page for the given tables (sorted by id), naming other tables only when `sees` them. */
export function renderTopicDocs(
  tables: ReadonlyMap<string, TableInfo>,
  config: Pick<Config, 'catalog' | 'topics'>,
  sees: Sees = (id) => tables.has(id),
): string {
  const list = [...tables.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const toc = list.map(
    (t) =>
      `<li><a href="#${escapeHtml(encodeURIComponent(`topic-${t.id}`))}">${escapeHtml(t.id)}</a> (${escapeHtml(t.kind)})</li>`,
  );
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>topicgate: served topics</title><style>${STYLE}</style></head>
<body>
<h1>Served topics</h1>
<p>Every column below can be selected (${code('select=a,b')}), filtered, ordered (${code('order=a.desc')}) and grouped.
A filter is a query parameter ${code('column=[not.]op.value')} in PostgREST's grammar (every operator and its
differences: docs/postgrest-parity.md); combine several with ${code('&')}, or group them: ${code('or=(a.eq.1,b.lt.2)')}.
Values of varbinary columns are UTF-8 text or ${code('\\x')} + hex bytes. A JSON arrow path is a column too:
${code('value->customer->>country=eq.DE')}, ${code('select=key,country:value->customer->>country')}.
Back to the <a href="/docs/">API reference (Swagger UI)</a> or the <a href="/openapi.json">OpenAPI document</a>.</p>
<ul>
${toc.join('\n')}
</ul>
${list.map((t) => topicSection(t, tables, config, sees)).join('\n')}
</body></html>
`;
}

const topicDocsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/docs/topics',
    {
      schema: {
        tags: ['docs'],
        summary: 'The served topics, their columns and expanded fields, as an HTML page',
        description:
          'Built from the live catalog and the config file: each column with its Trino type, its origin, and filters that apply to it.',
        response: {
          200: {
            description: 'An HTML page',
            content: { 'text/html': { schema: Type.String() } },
          },
          ...errorResponses([...AUTH_ERRORS, ...TRINO_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      // Only the topics the caller may see (API.md "Access"), and expansion notes among them.
      const all = [...(await app.tg.catalog.tables()).values()];
      const tables = new Map(app.access.grants.visibleTopics(request.principal, all).map((t) => [t.id, t]));
      return reply
        .type('text/html; charset=utf-8')
        .header(
          'Content-Security-Policy',
          "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
        )
        .send(renderTopicDocs(tables, app.tg.config, (id) => app.access.grants.sees(request.principal, id)));
    },
  );
};

export default topicDocsRoutes;
