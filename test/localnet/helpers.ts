// Shared fixtures for localnet tests: a temp-dir localnet, a kit RPC client, and transaction helpers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Address,
  type Rpc as KitRpc,
  type SolanaRpcApi,
  type Signature,
  type TransactionSigner,
} from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { startLocalnet, type Localnet, type LocalnetOptions } from '../../localnet/index.ts';

export const MEMO_V2 = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
export const MEMO_V1 = address('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo');

export type Rpc = KitRpc<SolanaRpcApi>;

export interface TestNet {
  ln: Localnet;
  rpc: Rpc;
  dataDir: string;
  /** Close (if still open) and delete the data dir. */
  dispose(): Promise<void>;
}

/** A slot length of one minute keeps slots and blockhashes still during a test unless it asks otherwise. */
export async function startTestNet(opts: Partial<LocalnetOptions> = {}): Promise<TestNet> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'localnet-test-')));
  const ln = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000, ...opts });
  return {
    ln,
    rpc: createSolanaRpc(ln.url) as Rpc,
    dataDir,
    async dispose() {
      await ln.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function fundedSigner(rpc: Rpc, sol = 10n): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  await rpc.requestAirdrop(signer.address, lamports(sol * 1_000_000_000n)).send();
  return signer;
}

export function memoIx(text: string, signers: TransactionSigner[] = [], programAddress: Address = MEMO_V2): Instruction {
  return getAddMemoInstruction({ memo: text, signers }, { programAddress });
}

export interface BuiltTx {
  wire: Base64EncodedWireTransaction;
  signature: Signature;
}

export async function buildTx(
  rpc: Rpc,
  payer: TransactionSigner,
  instructions: Instruction[],
  opts: { lifetime?: { blockhash: Blockhash; lastValidBlockHeight: bigint }; version?: 'legacy' | 0 } = {},
): Promise<BuiltTx> {
  const lifetime = opts.lifetime ?? (await rpc.getLatestBlockhash().send()).value;
  const message = pipe(
    createTransactionMessage({ version: opts.version ?? 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const tx = await signTransactionMessageWithSigners(message);
  return { wire: getBase64EncodedWireTransaction(tx), signature: getSignatureFromTransaction(tx) };
}

export async function sendIxs(
  rpc: Rpc,
  payer: TransactionSigner,
  instructions: Instruction[],
  opts: { skipPreflight?: boolean; version?: 'legacy' | 0 } = {},
): Promise<Signature> {
  const { wire } = await buildTx(rpc, payer, instructions, { version: opts.version });
  return rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight: opts.skipPreflight ?? false }).send();
}

export interface RawResponse {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Raw JSON-RPC call, to check exact wire shapes that kit would reshape. */
export async function raw(url: string, method: string, params?: unknown): Promise<RawResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  return (await res.json()) as RawResponse;
}

export async function postBody(url: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, text: await res.text() };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
