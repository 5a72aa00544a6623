// Fee of a message as the runtime charges it: signature fees plus the compute-budget priority fee.
import { COMPUTE_BUDGET_PROGRAM } from './programs.ts';
import type { Message } from './wire.ts';

export const LAMPORTS_PER_SIGNATURE = 5000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000n;
// SIMD-0170: builtin programs get a small default allocation.
const BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT = 3_000n;
const BUILTINS = new Set([
  '11111111111111111111111111111111',
  COMPUTE_BUDGET_PROGRAM,
  'AddressLookupTab1e1111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);
const PRECOMPILES = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);

export function feeForMessage(m: Message): bigint {
  let signatures = BigInt(m.header.numRequiredSignatures);
  let limit: bigint | null = null;
  let microLamports = 0n;
  let defaultLimit = 0n;
  for (const ix of m.instructions) {
    const program = m.staticKeys[ix.programIdIndex] ?? '';
    if (PRECOMPILES.has(program)) signatures += BigInt(ix.data[0] ?? 0);
    defaultLimit += BUILTINS.has(program) ? BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT : DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
    if (program !== COMPUTE_BUDGET_PROGRAM) continue;
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 2 && ix.data.length >= 5) limit = BigInt(view.getUint32(1, true));
    if (ix.data[0] === 3 && ix.data.length >= 9) microLamports = view.getBigUint64(1, true);
  }
  let units = limit ?? defaultLimit;
  if (units > MAX_COMPUTE_UNIT_LIMIT) units = MAX_COMPUTE_UNIT_LIMIT;
  const priority = (microLamports * units + 999_999n) / 1_000_000n;
  return signatures * LAMPORTS_PER_SIGNATURE + priority;
}
