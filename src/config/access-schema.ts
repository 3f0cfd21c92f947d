/**
 * The access blocks of the config file (API.md "Access"; names there are the contract): `auth`, `access`,
 * `rowPolicies` and `limits`. config.ts puts them into ConfigFileSchema; checkAccessConfig adds the rules a
 * schema cannot say (one key source for JWT, no duplicate keys).
 */
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { literalUnion } from './schema-problems.js';
import { isLoopback } from './is-loopback.js';

/**
 * The request schemas' own ceilings on list lengths: the `limits` caps below (default lower) are configured up to
 * these, and a request past a cap gets a 422 naming it (query/passes/request-caps.ts).
 */
export const CAP_CEILINGS = { selectItems: 1000, orderItems: 100, groupByItems: 100, dedupeColumns: 100 } as const;

/** The deepest nesting `limits.maxDepth` may allow: the filter grammar refuses deeper before it builds a tree. */
export const MAX_DEPTH = 256;

/** Route groups that may be served without credentials (`auth.public`). */
export const ROUTE_GROUPS = ['health', 'docs', 'metrics'] as const;
export type RouteGroup = (typeof ROUTE_GROUPS)[number];

/** What a role may do on a topic (`access[].actions`). */
export const ACTIONS = ['read', 'explain', 'infer', 'cursors', 'loads', 'admin'] as const;
export type Action = (typeof ACTIONS)[number];

const Name = Type.String({ minLength: 1, maxLength: 256 });
const Roles = Type.Array(Name, { maxItems: 256 });

const ApiKey = Type.Object(
  {
    principal: Name,
    sha256: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'hex SHA-256 of the key' }),
    roles: Type.Optional(Roles),
  },
  { additionalProperties: false },
);

const Jwt = Type.Object(
  {
    jwksUrl: Type.Optional(Type.String({ minLength: 1 })),
    publicKeyFile: Type.Optional(Type.String({ minLength: 1 })),
    secretFile: Type.Optional(Type.String({ minLength: 1 })),
    issuer: Type.String({ minLength: 1 }),
    audience: Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]),
    principalClaim: Type.Optional(Type.String({ minLength: 1 })),
    rolesClaim: Type.Optional(Type.String({ minLength: 1 })),
    /** Clock skew allowed on exp/nbf/iat. */
    clockToleranceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 300 })),
  },
  { additionalProperties: false },
);

export const AuthSchema = Type.Object(
  {
    apiKeys: Type.Optional(Type.Array(ApiKey)),
    jwt: Type.Optional(Jwt),
    public: Type.Optional(Type.Array(literalUnion(ROUTE_GROUPS))),
  },
  { additionalProperties: false },
);

const AccessRule = Type.Object(
  {
    roles: Type.Array(Name, { minItems: 1 }),
    topics: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    actions: Type.Array(literalUnion(ACTIONS), { minItems: 1 }),
  },
  { additionalProperties: false },
);
export const AccessSchema = Type.Array(AccessRule);

const RowPolicy = Type.Object(
  { roles: Type.Array(Name, { minItems: 1 }), filter: Type.String({ minLength: 1, maxLength: 8192 }) },
  { additionalProperties: false },
);
/**
 * What a caller holding none of a topic's policy roles sees on a topic that has policies (`rowPolicies.default`):
 * `allow` every row, `deny` none (also when left out: start-up says so, as the default was `allow` before).
 */
export const ROW_POLICY_DEFAULTS = ['allow', 'deny'] as const;
export type RowPolicyDefault = (typeof ROW_POLICY_DEFAULTS)[number];

/**
 * `rowPolicies`: a list of policies per topic id, and `default: allow | deny`. A list under `default` is the policies
 * of a topic of that name; its text is checked by splitRowPolicies, with a message naming it.
 */
export const RowPoliciesSchema = Type.Object(
  { default: Type.Optional(Type.Union([Type.Array(RowPolicy), Type.String()])) },
  { additionalProperties: Type.Array(RowPolicy) },
);

const count = (dflt: number, maximum: number, description: string) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum, default: dflt, description }));

/**
 * `limits` (API.md "Access"): quotas per caller and for the gateway, and per-request caps on everything a request
 * can multiply. Every entry has its default here, so the limits in force (`Limits`) are this schema with the
 * defaults filled in, but for those whose default is applied where they are read: `requestsPerMinute` (off unless
 * configured), `concurrentQueries` (DEFAULT_CONCURRENT_QUERIES in each instance; counted across instances only
 * when configured), `maxGatewayBytes` (gatewayBytesOf: from the heap's size) and `maxDepth` (DEFAULT_MAX_DEPTH).
 */
export const LimitsSchema = Type.Object(
  {
    requestsPerMinute: Type.Optional(Type.Integer({ minimum: 1, description: 'requests a minute per principal' })),
    concurrentQueries: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Trino queries running at once per principal (default 16)' }),
    ),
    maxConcurrentQueries: count(32, 100_000, 'Trino queries running at once for the whole gateway'),
    /**
     * Queries that may wait for a free slot, and for how long, before a 429: a burst waits for its slots, as a
     * database pool's caller waits up to its acquisition timeout (30 s) for a connection.
     */
    queuedQueries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, default: 64 })),
    queueWaitMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000, default: 30_000 })),
    // Per-request caps (a 422 TG_TOO_EXPENSIVE naming the cap; query/passes/request-caps.ts).
    maxSelectItems: count(200, CAP_CEILINGS.selectItems, 'columns and aggregates a request selects'),
    maxOrderItems: count(20, CAP_CEILINGS.orderItems, 'sort keys of a request'),
    maxGroupByItems: count(20, CAP_CEILINGS.groupByItems, 'group keys of a request'),
    maxDedupeColumns: count(20, CAP_CEILINGS.dedupeColumns, 'columns a dedupe compares'),
    maxFilters: count(200, 10_000, 'filter conditions of a request, all groups counted'),
    maxInValues: count(1000, 100_000, 'values of every in, any/all and array list of a request together'),
    maxJsonPaths: count(32, 1000, 'distinct JSON arrow paths a request names'),
    maxSessionStreams: count(64, 10_000, 'streams of one read session (API.md "Read sessions")'),
    maxFollowers: count(4, 10_000, 'follows (`follow=true`) one principal keeps open at once, on each instance'),
    maxBuckets: count(100_000, 100_000_000, 'time buckets of a bucketed aggregation over its since..until window'),
    mcpMaxRows: count(200, 100_000, 'rows (or groups) an MCP tool returns at most; a larger result is cut and marked'),
    mcpMaxBytes: count(
      1_048_576,
      1_073_741_824,
      'bytes of JSON an MCP tool returns at most; a larger answer is a tool error saying how to narrow it',
    ),
    // Its default (gatewayBytesOf) is applied where it is read: it follows the heap the process was given.
    maxGatewayBytes: Type.Optional(
      Type.Integer({
        minimum: 65_536,
        maximum: 2 ** 40,
        description:
          'bytes of rows and values the gateway holds for all responses together (sorts, aggregates and look-ahead of decoded payloads; default a quarter of the heap limit)',
      }),
    ),
    // Its default (DEFAULT_MAX_DEPTH) is applied where it is read, so the limits in force list it only when set.
    maxDepth: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_DEPTH,
        description:
          'nesting depth of a request (default 64): JSON body, filter groups, not. chains, JSON arrow path steps',
      }),
    ),
  },
  { additionalProperties: false },
);

export type AuthSettings = Static<typeof AuthSchema>;
export type JwtSettings = NonNullable<AuthSettings['jwt']>;
export type ApiKeySettings = NonNullable<AuthSettings['apiKeys']>[number];
export type AccessRule = Static<typeof AccessRule>;
export type RowPolicyRule = Static<typeof RowPolicy>;
export type RowPoliciesSettings = Static<typeof RowPoliciesSchema>;
export type LimitSettings = Static<typeof LimitsSchema>;

/** Limits in force: the schema's, with every default filled in (those without one stay optional). */
export type Limits = Readonly<
  LimitSettings &
    Required<Omit<LimitSettings, 'requestsPerMinute' | 'concurrentQueries' | 'maxGatewayBytes' | 'maxDepth'>>
>;

/** `limits.maxDepth` when the config file does not set it. */
export const DEFAULT_MAX_DEPTH = 64;

/**
 * `limits.concurrentQueries` when the config file does not set it, counted in each instance: half of
 * `maxConcurrentQueries` (32), so one caller never takes the whole gateway (two at their limit fill it), and enough
 * for what one client rightly runs at once: a bulk read's slices (`maxParallel`, 8) and the streams of a read session
 * read together (16 in the tests and examples). Without it one caller's requests were bounded by the gateway's limit
 * alone. What they hold in memory is bounded by `maxGatewayBytes` in any case.
 */
export const DEFAULT_CONCURRENT_QUERIES = 16;

/** The per-caller query limit in force (the configured one, else DEFAULT_CONCURRENT_QUERIES). */
export function concurrentQueriesOf(l: Pick<Limits, 'concurrentQueries'>): number {
  return l.concurrentQueries ?? DEFAULT_CONCURRENT_QUERIES;
}

/**
 * `limits.maxGatewayBytes` in force: the configured one, else a quarter of V8's heap limit (`heapLimit`, which
 * --max-old-space-size sets). The rest of the heap is for what is bounded by counts rather than bytes (Trino pages
 * and spooled segments in flight, one batch per response being encoded, the process itself), and the load shedding
 * answers 503 from nine tenths of it: a quarter leaves that margin even when the estimate is off by half.
 */
export function gatewayBytesOf(l: Pick<Limits, 'maxGatewayBytes'>, heapLimit: number): number {
  return l.maxGatewayBytes ?? Math.floor(heapLimit / 4);
}

/** The per-request caps alone (query/passes/request-caps.ts reads these). */
export type RequestCaps = Pick<
  Limits,
  | 'maxSelectItems'
  | 'maxOrderItems'
  | 'maxGroupByItems'
  | 'maxDedupeColumns'
  | 'maxFilters'
  | 'maxInValues'
  | 'maxJsonPaths'
  | 'maxBuckets'
  | 'maxDepth'
>;

export function limitsOf(l: LimitSettings | undefined): Limits {
  return Value.Default(LimitsSchema, structuredClone(l ?? {})) as Limits;
}

/**
 * Problems the schema cannot express, one line each, named by their place in the file. The row policies' filters
 * are parsed by the loader (server/load-config.ts), which knows the filter grammar.
 */
export function checkAccessConfig(file: {
  auth?: AuthSettings;
  access?: readonly AccessRule[];
  rowPolicies?: RowPoliciesSettings;
}): string[] {
  const problems: string[] = [];
  const { auth } = file;
  const { policies, problems: policyProblems } = splitRowPolicies(file.rowPolicies);
  problems.push(...policyProblems);
  if (auth && !auth.apiKeys?.length && !auth.jwt) {
    problems.push('auth: name apiKeys or jwt (an auth block without either lets no one in)');
  }
  // Without auth every caller is anonymous with no roles: grants and row policies would bind no one.
  if (!auth && file.access !== undefined)
    problems.push('access: needs an auth block (without one no caller has a role)');
  if (!auth && Object.keys(policies).length > 0)
    problems.push('rowPolicies: need an auth block (without one no caller has a role, so no policy would apply)');
  const seen = new Set<string>();
  for (const [i, k] of (auth?.apiKeys ?? []).entries()) {
    const h = k.sha256.toLowerCase();
    if (seen.has(h)) problems.push(`auth.apiKeys[${i}]: the same sha256 is configured twice`);
    seen.add(h);
  }
  const jwt = auth?.jwt;
  if (jwt) {
    const sources = [jwt.jwksUrl, jwt.publicKeyFile, jwt.secretFile].filter((s) => s !== undefined);
    if (sources.length !== 1) problems.push('auth.jwt: name exactly one of jwksUrl, publicKeyFile, secretFile');
    if (jwt.jwksUrl !== undefined) {
      // Keys fetched over plain HTTP could be swapped on the way; only a loopback address is exempt (tests, sidecars).
      const u = URL.canParse(jwt.jwksUrl) ? new URL(jwt.jwksUrl) : null;
      const ok = u !== null && (u.protocol === 'https:' || (u.protocol === 'http:' && isLoopback(u.hostname)));
      if (!ok) problems.push('auth.jwt.jwksUrl: must be an https:// URL (http:// only on a loopback address)');
    }
  }
  return problems;
}

/**
 * The `rowPolicies` block read apart: the topics' lists of policies, and `default` (other than allow or deny, a
 * problem naming it).
 */
export function splitRowPolicies(block: RowPoliciesSettings | undefined): {
  policies: Record<string, readonly RowPolicyRule[]>;
  default: RowPolicyDefault | undefined;
  problems: string[];
} {
  const policies: Record<string, readonly RowPolicyRule[]> = {};
  const problems: string[] = [];
  let dflt: RowPolicyDefault | undefined;
  for (const [key, value] of Object.entries(block ?? {})) {
    if (typeof value !== 'string') policies[key] = value;
    else if ((ROW_POLICY_DEFAULTS as readonly string[]).includes(value)) dflt = value as RowPolicyDefault;
    else problems.push(`rowPolicies.default: allow or deny, not ${JSON.stringify(value)}`);
  }
  return { policies, default: dflt, problems };
}
