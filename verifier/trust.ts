// The pinned trust root: taken from a file the user gives, or pinned on first use and compared on every
// later run; then the chain objects it names are checked through the user's RPC (the cluster, the vault).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token';
import { keysOf, parseTrustRoot, trustRootDifferences, trustRootFingerprint, type TrustRoot } from '../protocol/trust-root.ts';
import type { Checks } from '../protocol/verify/report.ts';
import { FetchError, type ApiClient } from './http.ts';
import type { ChainData } from './chain-data.ts';
import { sha256Hex } from './crypto.ts';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The pin file of an API: one per URL, under the state directory. */
export const pinFileOf = (stateDir: string, apiUrl: string): string =>
  path.join(
    stateDir,
    'trust-roots',
    `${apiUrl
      .replace(/^https?:\/\//, '')
      .replace(/[^A-Za-z0-9.-]+/g, '_')
      .slice(0, 80)}-${sha256Hex(apiUrl).slice(0, 8)}.json`,
  );

/** Writes a file atomically (a crash leaves the old one or the new one, never half of one). */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

export interface LoadedTrust {
  root: TrustRoot;
  fingerprint: string;
  /** Where it came from, for the report. */
  source: string;
}

/**
 * Loads the trust root and records `trust-root`: it fails when the API serves a different one than the
 * pinned or given one (the operator changed a key, the vault or the cluster).
 * @throws {UsageError} when the given file is unreadable or malformed
 * @throws {FetchError} when nothing is pinned and the API cannot serve one
 */
export async function loadTrust(
  api: ApiClient,
  options: { file?: string; pinFile: string; notice: (text: string) => void },
  checks: Checks,
): Promise<LoadedTrust> {
  let served: TrustRoot | null = null;
  let servedProblem: string | null = null;
  try {
    served = parseTrustRoot(await api.get('/protocol/v1/trust-root', 64 * 1024));
  } catch (err) {
    servedProblem = err instanceof FetchError ? err.message : `the served trust root is malformed: ${(err as Error).message}`;
  }
  let pinned: TrustRoot;
  let source: string;
  const fileToRead = options.file ?? (existsSync(options.pinFile) ? options.pinFile : null);
  if (fileToRead) {
    try {
      pinned = parseTrustRoot(JSON.parse(readFileSync(fileToRead, 'utf8')));
    } catch (err) {
      throw new UsageError(`the trust root ${fileToRead} is unreadable: ${(err as Error).message}`);
    }
    source = options.file ? `given in ${fileToRead}` : `pinned in ${fileToRead}`;
  } else {
    if (!served) throw new FetchError(`nothing is pinned and the trust root cannot be read: ${servedProblem}`);
    pinned = served;
    writeFileAtomic(options.pinFile, `${JSON.stringify(served, null, 2)}\n`);
    source = `pinned on first use in ${options.pinFile}`;
    options.notice(
      `pfws-verify: pinned the service's trust root on first use (fingerprint ${trustRootFingerprint(served)}) in ${options.pinFile}. ` +
        'Compare the fingerprint with one published out of band; later runs fail if it changes.',
    );
  }
  if (!served) checks.error('trust-root', `the service does not serve its trust root: ${servedProblem}`);
  else {
    const diff = trustRootDifferences(pinned, served);
    checks.add(
      'trust-root',
      diff.length === 0,
      `the service now serves a trust root that differs from the one ${source} in ${diff.join(', ')} (fingerprint ${trustRootFingerprint(served)}, ` +
        `pinned ${trustRootFingerprint(pinned)}). If the operator announced this change, check it out of band and pin it again with --trust-root.`,
    );
  }
  return { root: pinned, fingerprint: trustRootFingerprint(pinned), source };
}

/** The RPC must serve the pinned cluster: another cluster's data proves nothing. */
export async function checkCluster(chain: ChainData, root: TrustRoot, checks: Checks): Promise<boolean> {
  let genesis: string;
  try {
    genesis = await chain.genesisHash();
  } catch (err) {
    checks.error('rpc-cluster', `the RPC ${chain.rpc.url} cannot be read: ${(err as Error).message}`);
    return false;
  }
  if (genesis !== root.genesisHash) {
    checks.error('rpc-cluster', `the RPC ${chain.rpc.url} serves genesis ${genesis}, the pinned cluster is ${root.genesisHash}`);
    return false;
  }
  checks.pass('rpc-cluster');
  return true;
}

/**
 * The vault named by the trust root: the keeper key's USDC associated token account, owned by the token
 * program, holding the pinned mint. Records `vault`; returns its balance when it is that account.
 */
export async function checkVault(chain: ChainData, root: TrustRoot, checks: Checks): Promise<bigint | null> {
  const keepers = keysOf(root, 'keeper');
  const atas = await Promise.all(
    keepers.map(
      async (k) => (await findAssociatedTokenPda({ owner: address(k), mint: address(root.usdcMint), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0] as string,
    ),
  );
  if (!atas.includes(root.vaultTokenAccount)) {
    checks.fail('vault', `the vault ${root.vaultTokenAccount} is not the keeper key's USDC associated token account`);
    return null;
  }
  let account: Awaited<ReturnType<ChainData['account']>>;
  try {
    account = await chain.account(root.vaultTokenAccount);
  } catch (err) {
    checks.error('vault', `the vault cannot be read: ${(err as Error).message}`);
    return null;
  }
  if (!account || account.owner !== TOKEN_PROGRAM_ADDRESS || account.data.length !== 165) {
    checks.fail('vault', `the vault ${root.vaultTokenAccount} is not a token account on this cluster`);
    return null;
  }
  const token = getTokenDecoder().decode(account.data);
  if (token.mint !== root.usdcMint || !keepers.includes(token.owner)) {
    checks.fail('vault', `the vault holds ${token.mint} for ${token.owner}, not the pinned USDC mint for the keeper key`);
    return null;
  }
  checks.pass('vault');
  return token.amount;
}
