// The compute budget a payment transaction asks its fee payer for: the ComputeBudget program's unit limit and unit
// price, decoded with @solana-program/compute-budget — the copy @x402/svm's own facilitator decodes them with (a
// dependency of it, not declared here: its releases for @solana/kit 8 are a newer major). The priority fee is
// limit × price, paid by the fee payer.
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  ComputeBudgetInstruction,
  identifyComputeBudgetInstruction,
  parseSetComputeUnitLimitInstruction,
  parseSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';

export interface ComputeBudget {
  /** The largest SetComputeUnitLimit, or null when the transaction sets none. */
  unitLimit: number | null;
  /** The largest SetComputeUnitPrice in micro-lamports, or null when it sets none (no priority fee). */
  unitPriceMicroLamports: bigint | null;
}

/** The most a fee payer may be asked for. */
export interface ComputeBudgetLimits {
  maxUnitLimit: number;
  maxUnitPriceMicroLamports: bigint;
}

/**
 * Reads the compute budget of a base64 wire transaction (legacy or version 0). Programs cannot come from address
 * lookup tables, so every ComputeBudget instruction names the program among the static accounts.
 * @throws when the transaction or one of its ComputeBudget instructions cannot be decoded, or it is of a later
 *   version (whose budget sits in config values this reading does not know)
 */
export function computeBudgetOf(transactionBase64: string): ComputeBudget {
  const { messageBytes } = getTransactionDecoder().decode(getBase64Encoder().encode(transactionBase64));
  const message = getCompiledTransactionMessageDecoder().decode(messageBytes);
  if (message.version !== 'legacy' && message.version !== 0) throw new Error(`transaction version ${message.version} is not read here`);
  const budget: ComputeBudget = { unitLimit: null, unitPriceMicroLamports: null };
  for (const ix of message.instructions) {
    if (message.staticAccounts[ix.programAddressIndex] !== COMPUTE_BUDGET_PROGRAM_ADDRESS) continue;
    const instruction = { programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS, data: ix.data ?? new Uint8Array() };
    const kind = identifyComputeBudgetInstruction(instruction);
    if (kind === ComputeBudgetInstruction.SetComputeUnitLimit) {
      const { units } = parseSetComputeUnitLimitInstruction(instruction).data;
      budget.unitLimit = Math.max(budget.unitLimit ?? 0, units);
    } else if (kind === ComputeBudgetInstruction.SetComputeUnitPrice) {
      const { microLamports } = parseSetComputeUnitPriceInstruction(instruction).data;
      const price = BigInt(microLamports);
      budget.unitPriceMicroLamports = budget.unitPriceMicroLamports === null || price > budget.unitPriceMicroLamports ? price : budget.unitPriceMicroLamports;
    }
  }
  return budget;
}

/**
 * What in `budget` passes `limits`, in words; null when nothing does. A transaction without a unit limit runs at the
 * runtime's default (200,000 units per instruction), which no configured limit is meant to allow, so it is refused.
 */
export function budgetExcess(budget: ComputeBudget, limits: ComputeBudgetLimits): string | null {
  if (budget.unitLimit === null) return 'the transaction sets no compute-unit limit';
  if (budget.unitLimit > limits.maxUnitLimit) return `its compute-unit limit ${budget.unitLimit} is above ${limits.maxUnitLimit}`;
  const price = budget.unitPriceMicroLamports ?? 0n;
  if (price > limits.maxUnitPriceMicroLamports) return `its compute-unit price ${price} micro-lamports is above ${limits.maxUnitPriceMicroLamports}`;
  return null;
}
