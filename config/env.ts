// Configuration: every variable is validated once at start against one schema; a bad one fails by name.
import path from 'node:path';
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { AgentLimitSettings } from '../protocol/agent-limits.ts';
import { parseDecimalAmount } from '../protocol/money.ts';
import { parseWitnessKey } from '../protocol/witness.ts';

const Int = (min: number, max: number, dflt: number, description: string) => Type.Integer({ minimum: min, maximum: max, default: dflt, description });
// `accepted` says, in words, what a patterned variable takes: a failed start names the variable and this.
const Url = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9+.-]*://.+', description, accepted: 'an absolute URL such as https://host:port' }));
const Base58Key = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description, accepted: 'a base58 public key (32 to 44 characters)' }));
const OneOf = <const T extends string>(values: readonly T[], dflt: T | undefined, description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { ...(dflt === undefined ? {} : { default: dflt }), description },
  );
const SENTINEL = '(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9_.-]+):[0-9]{1,5}';
const UsdcAmount = (dflt: string, description: string) =>
  Type.String({
    default: dflt,
    pattern: '^(0|[1-9][0-9]{0,9})(\\.[0-9]{1,6})?$',
    description: `${description} (decimal, at most 6 decimals)`,
    accepted: 'a decimal USDC amount with at most 6 decimals',
  });

export const ConfigSchema = Type.Object({
  PORT: Int(0, 65535, 8080, 'API port'),
  HOST: Type.String({ default: '0.0.0.0', description: 'API bind address' }),
  PUBLIC_BASE_URL: Url('Public URL of the API, used in links and the wallet challenge'),
  TRUST_PROXY: Type.String({
    default: 'false',
    pattern: '^(true|false|[0-9A-Fa-f.:/, ]+)$',
    accepted: 'false, true, or comma-separated proxy addresses or CIDRs',
    description: 'Trust X-Forwarded-* from: false, true (any peer), or proxy addresses/CIDRs (comma-separated)',
  }),
  DATA_DIR: Type.String({
    default: './data',
    minLength: 1,
    accepted: 'a directory path',
    description: 'Local state: localnet snapshot and history, genesis, operator keys and RNG chains',
  }),
  REDIS_URL: Type.String({
    default: 'redis://127.0.0.1:6379',
    pattern: '^rediss?://',
    accepted: 'a redis:// or rediss:// URL, such as redis://user:password@host:6379/0',
    description: 'Redis ledger',
  }),
  REDIS_SENTINELS: Type.Optional(
    Type.String({
      pattern: `^${SENTINEL}(,${SENTINEL})*$`,
      accepted: 'comma-separated host:port of the Redis Sentinels, such as sentinel-1:26379,sentinel-2:26379,sentinel-3:26379',
      description: 'Redis Sentinels that name the primary (HA mode); REDIS_URL then gives only the credentials and database',
    }),
  ),
  REDIS_SENTINEL_NAME: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_.-]{1,64}$',
      accepted: 'the master name the Sentinels monitor (1 to 64 characters from A-Z a-z 0-9 _ . -)',
      description: 'The primary as the Sentinels name it (required with REDIS_SENTINELS)',
    }),
  ),
  REDIS_WAIT_REPLICAS: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 16,
      description:
        'Replicas every acknowledged write must reach (WAIT) before its answer goes out; 0 (single node) turns it off. Default 1 with REDIS_SENTINELS, else 0',
    }),
  ),
  REDIS_WAIT_TIMEOUT_MS: Int(
    10,
    30_000,
    500,
    'How long an acknowledged write waits for its replicas; then the request gets 503 SERVICE_UNAVAILABLE (below half of REDIS_COMMAND_TIMEOUT_MS)',
  ),
  REDIS_PREFIX: Type.String({
    default: 'pfws',
    pattern: '^[A-Za-z0-9_.-]{1,40}$',
    accepted: '1 to 40 characters from A-Z a-z 0-9 _ . -',
    description: 'Prefix of every Redis key',
  }),
  SOLANA_RPC_URL: Url('Solana RPC; unset runs the embedded localnet'),
  PUBLIC_RPC_URL: Url('RPC URL published to clients in /config; defaults to the RPC in use'),
  LOCALNET_PORT: Int(0, 65535, 8899, 'Port of the embedded localnet RPC'),
  CLICKHOUSE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^/]+(/[A-Za-z_][A-Za-z0-9_]*)?/?$',
      accepted: 'an http(s) URL such as http://user:password@host:8123/database',
      description: 'ClickHouse server for analytics; unset runs chDB in-process under DATA_DIR/chdb (only when every role runs in one process)',
    }),
  ),
  ANALYTICS_CACHE_MS: Int(
    0,
    60_000,
    1_000,
    'How long one analytics answer (activity, rankings, stats) serves the same query; 0 queries ClickHouse for every request, except that identical requests arriving while that query runs share it',
  ),
  CLUSTER: Type.Optional(
    OneOf(['localnet', 'devnet', 'testnet', 'mainnet-beta'], undefined, 'Solana cluster; localnet without SOLANA_RPC_URL, else mainnet-beta'),
  ),
  USDC_MINT: Base58Key('USDC mint (required with SOLANA_RPC_URL)'),
  LP_MINT: Base58Key('LP share mint (required with SOLANA_RPC_URL)'),
  KEYS_DIR: Type.Optional(
    Type.String({ minLength: 1, accepted: 'a directory path', description: 'Operator keypair files ack.json, anchor.json, keeper.json' }),
  ),
  TILES_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      accepted: 'a directory path',
      description:
        'Full bet-log tiles as files in the C2SP tlog-tiles layout (tile/<L>/<N>, tile/entries/<N>), written once by the worker; default DATA_DIR/tiles',
    }),
  ),
  WITNESSES: Type.Optional(
    Type.String({
      pattern:
        '^\\s*[^\\s+,]+\\+[0-9a-f]{8}\\+[A-Za-z0-9+/]{44}\\s+https?://[^\\s,]+\\s*(,\\s*[^\\s+,]+\\+[0-9a-f]{8}\\+[A-Za-z0-9+/]{44}\\s+https?://[^\\s,]+\\s*)*$',
      accepted: 'comma-separated "<witness vkey> <URL prefix>" pairs, such as "witness.example+1a2b3c4d+BA… https://witness.example"',
      description:
        'C2SP tlog-witness witnesses the worker asks to cosign each checkpoint (POST <URL prefix>/add-checkpoint); their cosignatures are served with it',
    }),
  ),
  EXPLORER_BASE_URL: Type.String({ default: 'https://explorer.solana.com', description: 'Block explorer for commit links' }),
  LOG_LEVEL: OneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino log level'),
  LOG_FORMAT: OneOf(['auto', 'pretty', 'json'], 'auto', 'Log lines: pretty (readable) or json; auto is pretty on a terminal, json otherwise'),
  CHALLENGE_TTL_MS: Int(1_000, 3_600_000, 300_000, 'Wallet challenge lifetime'),
  TOKEN_TTL_MS: Int(60_000, 30 * 86_400_000, 86_400_000, 'Bearer token lifetime'),
  PREPARE_TTL_MS: Int(1_000, 3_600_000, 300_000, 'How long a prepared bet payload can be committed'),
  REVEAL_DEADLINE_MS: Int(1_000, 30 * 86_400_000, 86_400_000, 'Committed bets settle by this deadline'),
  MAX_EXPOSURE_BPS: Int(1, 10_000, 2_500, 'maxExposure as basis points of NAV'),
  MAX_PAYOUT_BPS: Int(1, 10_000, 100, 'maxPayout as basis points of NAV'),
  MAX_BET_BPS: Int(1, 10_000, 50, 'maxBet as basis points of NAV'),
  MAX_WALLET_EXPOSURE_BPS: Int(
    1,
    10_000,
    500,
    "One wallet's open exposure (unrevealed bets, Sweeper turns in flight) at most, as basis points of maxExposure; more is GAME_INPUT_REJECTED (wallet_exposure)",
  ),
  SCARCE_EXPOSURE_BPS: Int(
    0,
    10_000,
    1_000,
    "Above this share of maxExposure (basis points), the house's open exposure is scarce: a bet or turn that adds to it gets SCARCE_REVEAL_DEADLINE_MS; 10000 turns it off",
  ),
  SCARCE_REVEAL_DEADLINE_MS: Int(1_000, 30 * 86_400_000, 300_000, 'The reveal deadline of a bet committed while exposure is scarce'),
  TICKET_IDLE_MS: Int(1_000, 30 * 86_400_000, 900_000, 'A Sweeper ticket with no turn in flight for this long is closed by the deadline worker'),
  SETTLED_RETENTION_MS: Int(
    0,
    365 * 86_400_000,
    3_600_000,
    "How long a settled play's records (its bet, receipt, recovery seed and ended ticket: about 9 kB a Dice bet) stay in Redis after it settled, once the ClickHouse archive and the worker's TILES_DIR hold them; its receipt is then served from the archive, and a re-sent commit or reveal of it is refused as unknown. 0 keeps them in Redis for ever",
  ),
  ARCHIVE_READS_PER_SEC: Int(
    1,
    100_000,
    20,
    'Most reads a second this process makes of the ClickHouse archive for receipts and journal events Redis no longer holds (each a query of its own, 11–12 ms of chDB CPU measured for a receipt), shared evenly by the clients (addresses) reading in the last 5 s; past its share a request is 503 SERVICE_UNAVAILABLE with the Retry-After of its next read',
  ),
  X402_FACILITATOR_URL: Url('Remote x402 facilitator; unset runs the embedded one, which pays fees with KEYS_DIR/x402.json'),
  MIN_TOP_UP_USDC: UsdcAmount('1', 'Smallest x402 top-up, USDC; a smaller one gets INVALID_BET_AMOUNT with details.minimum'),
  X402_MAX_CU_PRICE_MICROLAMPORTS: Int(
    0,
    5_000_000,
    50_000,
    'An x402 payment whose transaction sets a higher compute-unit price (priority fee, micro-lamports per unit) is refused before the fee payer signs',
  ),
  X402_MAX_CU_LIMIT: Int(
    1,
    1_400_000,
    40_000,
    'An x402 payment whose transaction sets a higher compute-unit limit (or none) is refused before the fee payer signs',
  ),
  FEE_PAYER_MIN_LAMPORTS: Int(
    0,
    Number.MAX_SAFE_INTEGER,
    50_000_000,
    'Below this many lamports the x402 fee payer is reported low: /ready marks x402FeePayer degraded and a warning is logged',
  ),
  RNG_CHAIN_LENGTH: Int(16, 100_000_000, 1_000_000, 'Indices per operator RNG chain'),
  RNG_ROLLOVER_MARGIN: Int(1, 10_000_000, 10_000, 'Commit the next chain head when this many indices remain'),
  ANCHOR_MAX_ENTRIES: Int(1, 1_000_000, 1_000, 'Commit the bet log at least every this many entries'),
  ANCHOR_MAX_DELAY_MS: Int(50, 3_600_000, 2_000, 'Commit the bet log at least this often, unless STATE_TREE_CPU_PERCENT holds it back'),
  STATE_TREE_CPU_PERCENT: Int(
    1,
    100,
    10,
    "Most of one core, in percent, that building the commits' state trees may take (each is built anew: about 13–20 µs a wallet); past it commits wait and a commit held back covers every entry, so anchoring slows as wallets grow rather than play. Trees of under 10 ms are never held back; 100 commits as often as ANCHOR_MAX_ENTRIES and ANCHOR_MAX_DELAY_MS ask",
  ),
  MANIFEST_MAX_EVENTS: Int(1, 1_000_000, 1_000, 'Sign a journal manifest at least every this many events'),
  MANIFEST_MAX_DELAY_MS: Int(50, 3_600_000, 2_000, 'Sign a journal manifest at least this often'),
  INDEXER_POLL_MS: Int(50, 60_000, 1_000, 'Indexer polling interval'),
  INDEXER_COMMITMENT: Type.Optional(
    OneOf(['confirmed', 'finalized'], undefined, 'Commitment for crediting and anchoring; confirmed on localnet, finalized otherwise'),
  ),
  API_WORKERS: Int(0, 64, 2, 'API processes sharing PORT (node:cluster), forked beside the main process; 0 serves the API in the main process'),
  RATE_LIMIT_MAX: Int(1, 10_000_000, 2_000, 'Requests per RATE_LIMIT_WINDOW_MS per wallet or IP'),
  RATE_LIMIT_WINDOW_MS: Int(100, 3_600_000, 10_000, 'Rate limit window'),
  HEADERS_TIMEOUT_MS: Int(1_000, 600_000, 10_000, 'A request whose headers are not all received within this long gets 408 and its connection is closed'),
  REQUEST_BODY_TIMEOUT_MS: Int(1_000, 600_000, 10_000, 'A request body that stalls (no bytes) this long gets 408 and its connection is closed'),
  REQUEST_TIMEOUT_MS: Int(
    1_000,
    3_600_000,
    30_000,
    'A whole request (headers and body) not received within this long gets 408; responses, such as a stream, are not cut',
  ),
  KEEP_ALIVE_TIMEOUT_MS: Int(100, 600_000, 5_000, 'An idle keep-alive connection is closed after this long'),
  MAX_CONNECTIONS: Int(1, 1_000_000, 1_024, 'Open connections per API process; more are closed at once'),
  REDIS_COMMAND_TIMEOUT_MS: Int(
    100,
    60_000,
    2_000,
    'A request waits at most this long for Redis, then gets 503 SERVICE_UNAVAILABLE (each command gets half: it may queue behind a batch in flight)',
  ),
  CHAIN_RPC_TIMEOUT_MS: Int(100, 120_000, 5_000, 'A chain RPC call on a request path waits at most this long; the request then gets 503 SERVICE_UNAVAILABLE'),
  MAX_PREPARED_BETS_PER_WALLET: Int(1, 100_000, 64, 'Outstanding prepared bets per wallet; a new one past the cap expires the oldest'),
  MAX_UNREVEALED_BETS_PER_WALLET: Int(1, 100_000, 16, 'Committed, unrevealed bets per wallet; one more commit is GAME_INPUT_REJECTED (unrevealed_limit)'),
  TOKEN_CACHE_TTL_MS: Int(
    0,
    1_000,
    1_000,
    'How long an API process trusts a bearer token it resolved before asking Redis again; a revocation (DELETE /api/wallet/session) reaches every process at once through Redis pub/sub, and this bounds it should a message be lost',
  ),
  SHUTDOWN_TIMEOUT_MS: Int(1_000, 600_000, 25_000, 'On SIGTERM, how long requests and jobs in flight may take before the process exits anyway'),
  SSE_KEEPALIVE_MS: Int(100, 3_600_000, 15_000, 'GET /api/activity/stream sends a keep-alive comment this often'),
  SSE_CLIENT_BUFFER_BYTES: Int(
    4_096,
    64 * 1024 * 1024,
    262_144,
    'An activity stream client with more bytes than this waiting to be sent is disconnected (it resumes with Last-Event-ID)',
  ),
  SSE_FLUSH_MS: Int(
    0,
    1_000,
    50,
    'GET /api/activity/stream writes plays to its clients at most this often: a play goes out at once, or with those that follow it until this long after the last write, in one write a client',
  ),
  SSE_REPLAY_MAX_EVENTS: Int(
    1,
    1_000_000,
    10_000,
    'A Last-Event-ID resume replays at most this many journal events from Redis; further behind, the client gets a fresh snapshot',
  ),
  DEV_HOUSE_CAPITAL: Int(0, 1_000_000_000_000, 1_000_000, 'localnet only: USDC the house starts with'),
  AGENT_MAX_BET: UsdcAmount('0.05', 'Largest stake of one MCP play, USDC'),
  AGENT_MAX_WAGERED: UsdcAmount('1', 'Most that MCP plays of one wallet may stake within AGENT_WINDOW_MS, USDC'),
  AGENT_WINDOW_MS: Int(1_000, 365 * 86_400_000, 86_400_000, 'Rolling window of the agent wager cap'),
  MIN_WITHDRAWAL_USDC: UsdcAmount('1', 'Smallest withdrawal, USDC; a smaller one is INVALID_BET_AMOUNT with details.minimum'),
  MAX_PENDING_WITHDRAWALS_PER_WALLET: Int(
    1,
    100_000,
    1_000,
    'Withdrawals of one wallet not yet paid; one more is GAME_INPUT_REJECTED (pending_withdrawal_limit)',
  ),
});

export type RawConfig = Static<typeof ConfigSchema>;
export type Role = 'api' | 'indexer' | 'worker';

/** Where the ledger's Redis is: the URL's server, or the primary a set of Sentinels names (the URL then gives credentials and database). */
export interface RedisTarget {
  url: string;
  sentinels?: { host: string; port: number }[];
  sentinelName?: string;
}

export interface Config extends Omit<RawConfig, 'INDEXER_COMMITMENT' | 'REDIS_WAIT_REPLICAS'> {
  INDEXER_COMMITMENT: 'confirmed' | 'finalized';
  REDIS_WAIT_REPLICAS: number;
  /** REDIS_URL, REDIS_SENTINELS and REDIS_SENTINEL_NAME as every connection takes them. */
  redis: RedisTarget;
  roles: Role[];
  localnet: boolean;
  cluster: 'localnet' | 'devnet' | 'testnet' | 'mainnet-beta';
  dataDir: string;
  keysDir: string;
  /** TILES_DIR resolved: where full tiles are kept as files. */
  tilesDir: string;
  /** WITNESSES parsed: each witness's verifier key and URL prefix. */
  witnesses: { vkey: string; url: string }[];
  /** AGENT_MAX_BET, AGENT_MAX_WAGERED and AGENT_WINDOW_MS as the ledger uses them. */
  agentLimits: AgentLimitSettings;
  /** MIN_WITHDRAWAL_USDC (micro-USDC) and MAX_PENDING_WITHDRAWALS_PER_WALLET. */
  withdrawalLimits: { minimum: bigint; maxPending: number };
  /** MIN_TOP_UP_USDC in micro-USDC. */
  minTopUp: bigint;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const ROLES: readonly Role[] = ['api', 'indexer', 'worker'];

/** Parses `--role api|indexer|worker` (repeatable or comma-separated); all roles when absent. */
export function parseRoles(argv: readonly string[]): Role[] {
  const roles: Role[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = arg === '--role' ? argv[++i] : arg.startsWith('--role=') ? arg.slice(7) : undefined;
    if (arg !== '--role' && !arg.startsWith('--role=')) continue;
    for (const role of (value ?? '').split(',')) {
      if (!ROLES.includes(role as Role)) throw new ConfigError(`--role must be one of ${ROLES.join(', ')} (got "${role}")`);
      if (!roles.includes(role as Role)) roles.push(role as Role);
    }
  }
  return roles.length ? roles : [...ROLES];
}

/** `host:port,host:port` (a host may be `[ipv6]`) as ioredis's `sentinels`. */
export function parseSentinels(value: string): { host: string; port: number }[] {
  return value.split(',').map((item) => {
    const at = item.lastIndexOf(':');
    const port = Number(item.slice(at + 1));
    if (at < 1 || !Number.isInteger(port) || port < 1 || port > 65535)
      throw new ConfigError(`invalid environment variable REDIS_SENTINELS: "${item}" is not host:port`);
    return { host: item.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port };
  });
}

function redisTargetOf(parsed: RawConfig): RedisTarget {
  const { REDIS_SENTINELS: sentinels, REDIS_SENTINEL_NAME: name } = parsed;
  if (!sentinels && !name) return { url: parsed.REDIS_URL };
  if (!sentinels || !name) throw new ConfigError('REDIS_SENTINELS and REDIS_SENTINEL_NAME go together: set both for Sentinel (HA) mode, or neither');
  return { url: parsed.REDIS_URL, sentinels: parseSentinels(sentinels), sentinelName: name };
}

/** Fastify's `trustProxy` from TRUST_PROXY. */
export const trustProxyOf = (value: string): boolean | string => (value === 'true' || value === 'false' ? value === 'true' : value);

/** What a variable accepts, in words: the listed values, an integer range, or its `accepted` note. */
export function acceptedValues(schema: TSchema): string {
  const s = schema as { anyOf?: { const?: unknown }[]; type?: string; minimum?: number; maximum?: number; accepted?: string };
  if (s.anyOf?.every((member) => typeof member.const === 'string')) return `one of ${s.anyOf.map((m) => m.const).join(', ')}`;
  if (s.type === 'integer') return `an integer from ${s.minimum ?? '-∞'} to ${s.maximum ?? '∞'}`;
  return s.accepted ?? (s.type === 'string' ? 'text' : String(s.type));
}

/**
 * Builds the config from an environment.
 * @throws {ConfigError} naming the first bad variable
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, argv: readonly string[] = []): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const value = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, raw)) as Record<string, unknown>;
  const errors = Value.Errors(ConfigSchema, value);
  if (errors.length) {
    const first = errors[0]!;
    const name =
      first.instancePath.replace(/^\//, '').split('/')[0] || String((first.params as { requiredProperties?: string[] }).requiredProperties?.[0] ?? '?');
    const schema = (ConfigSchema.properties as Record<string, TSchema>)[name];
    const description = (schema as { description?: string } | undefined)?.description;
    const accepted = schema ? acceptedValues(schema) : first.message;
    throw new ConfigError(
      `invalid environment variable ${name}=${JSON.stringify(env[name] ?? '')}: expected ${accepted}${description ? ` (${description})` : ''}`,
    );
  }
  const parsed = value as RawConfig;
  const roles = parseRoles(argv);
  const localnet = !parsed.SOLANA_RPC_URL;
  if (!localnet) {
    for (const name of ['USDC_MINT', 'LP_MINT', 'KEYS_DIR'] as const) {
      if (!parsed[name]) throw new ConfigError(`${name} is required when SOLANA_RPC_URL is set`);
    }
  }
  // The embedded chain and chDB each belong to one process: roles spread over processes need real servers.
  if (localnet && roles.length < ROLES.length) {
    throw new ConfigError('SOLANA_RPC_URL is required when roles run as separate processes (the embedded localnet runs only with every role)');
  }
  if (!parsed.CLICKHOUSE_URL && roles.length < ROLES.length) {
    throw new ConfigError(
      'CLICKHOUSE_URL is required when roles run as separate processes: without it analytics run in chDB under DATA_DIR/chdb, which only one process can open',
    );
  }
  const redis = redisTargetOf(parsed);
  const waitReplicas = parsed.REDIS_WAIT_REPLICAS ?? (redis.sentinels ? 1 : 0);
  // The WAIT must answer before its own command times out (each command gets half of REDIS_COMMAND_TIMEOUT_MS).
  if (waitReplicas > 0 && parsed.REDIS_WAIT_TIMEOUT_MS >= Math.floor(parsed.REDIS_COMMAND_TIMEOUT_MS / 2)) {
    throw new ConfigError(
      `invalid environment variable REDIS_WAIT_TIMEOUT_MS=${JSON.stringify(String(parsed.REDIS_WAIT_TIMEOUT_MS))}: must be below half of REDIS_COMMAND_TIMEOUT_MS (${parsed.REDIS_COMMAND_TIMEOUT_MS})`,
    );
  }
  const dataDir = path.resolve(parsed.DATA_DIR);
  const positive = (name: 'AGENT_MAX_BET' | 'AGENT_MAX_WAGERED' | 'MIN_WITHDRAWAL_USDC' | 'MIN_TOP_UP_USDC') => {
    const micro = parseDecimalAmount(parsed[name]);
    if (micro <= 0n) throw new ConfigError(`invalid environment variable ${name}=${JSON.stringify(parsed[name])}: must be positive`);
    return micro;
  };
  const agentLimits = { maxBet: positive('AGENT_MAX_BET'), maxWagered: positive('AGENT_MAX_WAGERED'), windowMs: parsed.AGENT_WINDOW_MS };
  return {
    ...parsed,
    REDIS_WAIT_REPLICAS: waitReplicas,
    redis,
    roles,
    localnet,
    cluster: parsed.CLUSTER ?? (localnet ? 'localnet' : 'mainnet-beta'),
    // Credits and anchors follow the chain at this level; a real cluster's confirmed blocks can still be dropped.
    INDEXER_COMMITMENT: parsed.INDEXER_COMMITMENT ?? (localnet ? 'confirmed' : 'finalized'),
    dataDir,
    keysDir: path.resolve(parsed.KEYS_DIR ?? path.join(dataDir, 'keys')),
    tilesDir: path.resolve(parsed.TILES_DIR ?? path.join(dataDir, 'tiles')),
    witnesses: (parsed.WITNESSES ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)
      .map((item) => {
        const [vkey, url] = item.split(/\s+/) as [string, string];
        try {
          parseWitnessKey(vkey);
        } catch (err) {
          throw new ConfigError(`invalid environment variable WITNESSES: ${JSON.stringify(vkey)}: ${(err as Error).message}`);
        }
        return { vkey, url: url.replace(/\/+$/, '') };
      }),
    agentLimits,
    withdrawalLimits: { minimum: positive('MIN_WITHDRAWAL_USDC'), maxPending: parsed.MAX_PENDING_WITHDRAWALS_PER_WALLET },
    minTopUp: positive('MIN_TOP_UP_USDC'),
  };
}
