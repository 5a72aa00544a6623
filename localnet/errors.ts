// Transaction errors in the real RPC's JSON form and Display text, plus the JSON-RPC error type.
import * as svmTypes from 'litesvm/dist/internal.js';
import type { Json } from './json.ts';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Json,
  ) {
    super(message);
  }
}

export const invalidParams = (msg: string): RpcError => new RpcError(-32602, msg);

/** Serde (externally tagged) form of `TransactionError`, as the RPC returns it. */
export type TxErr = string | { [k: string]: Json };

// Index = litesvm's TransactionErrorFieldless value.
const TX_ERRORS: [string, string][] = [
  ['AccountInUse', 'Account in use'],
  ['AccountLoadedTwice', 'Account loaded twice'],
  ['AccountNotFound', 'Attempt to debit an account but found no record of a prior credit.'],
  ['ProgramAccountNotFound', 'Attempt to load a program that does not exist'],
  ['InsufficientFundsForFee', 'Insufficient funds for fee'],
  ['InvalidAccountForFee', 'This account may not be used to pay transaction fees'],
  ['AlreadyProcessed', 'This transaction has already been processed'],
  ['BlockhashNotFound', 'Blockhash not found'],
  ['CallChainTooDeep', 'Loader call chain is too deep'],
  ['MissingSignatureForFee', 'Transaction requires a fee but has no signature present'],
  ['InvalidAccountIndex', 'Transaction contains an invalid account reference'],
  ['SignatureFailure', 'Transaction did not pass signature verification'],
  ['InvalidProgramForExecution', 'This program may not be used for executing instructions'],
  ['SanitizeFailure', 'Transaction failed to sanitize accounts offsets correctly'],
  ['ClusterMaintenance', 'Transactions are currently disabled due to cluster maintenance'],
  ['AccountBorrowOutstanding', 'Transaction processing left an account with an outstanding borrowed reference'],
  ['WouldExceedMaxBlockCostLimit', 'Transaction would exceed max Block Cost Limit'],
  ['UnsupportedVersion', 'Transaction version is unsupported'],
  ['InvalidWritableAccount', 'Transaction loads a writable account that cannot be written'],
  ['WouldExceedMaxAccountCostLimit', 'Transaction would exceed max account limit within the block'],
  ['WouldExceedAccountDataBlockLimit', 'Transaction would exceed account data limit within the block'],
  ['TooManyAccountLocks', 'Transaction locked too many accounts'],
  ['AddressLookupTableNotFound', "Transaction loads an address table account that doesn't exist"],
  ['InvalidAddressLookupTableOwner', 'Transaction loads an address table account with an invalid owner'],
  ['InvalidAddressLookupTableData', 'Transaction loads an address table account with invalid data'],
  ['InvalidAddressLookupTableIndex', 'Transaction address table lookup uses an invalid index'],
  ['InvalidRentPayingAccount', 'Transaction leaves an account with a lower balance than rent-exempt minimum'],
  ['WouldExceedMaxVoteCostLimit', 'Transaction would exceed max Vote Cost Limit'],
  ['WouldExceedAccountDataTotalLimit', 'Transaction would exceed total account data limit'],
  ['MaxLoadedAccountsDataSizeExceeded', 'Transaction exceeded max loaded accounts data size cap'],
  ['ResanitizationNeeded', 'Sanitized transaction differed before/after feature activiation. Needs to be resanitized.'],
  ['InvalidLoadedAccountsDataSizeLimit', 'LoadedAccountsDataSizeLimit set for transaction must be greater than 0.'],
  ['UnbalancedTransaction', 'Sum of account balances before and after transaction do not match'],
  ['ProgramCacheHitMaxLimit', 'Program cache hit max limit'],
  ['CommitCancelled', 'CommitCancelled'],
];

// Index = litesvm's InstructionErrorFieldless value.
const IX_ERRORS: [string, string][] = [
  ['GenericError', 'generic instruction error'],
  ['InvalidArgument', 'invalid program argument'],
  ['InvalidInstructionData', 'invalid instruction data'],
  ['InvalidAccountData', 'invalid account data for instruction'],
  ['AccountDataTooSmall', 'account data too small for instruction'],
  ['InsufficientFunds', 'insufficient funds for instruction'],
  ['IncorrectProgramId', 'incorrect program id for instruction'],
  ['MissingRequiredSignature', 'missing required signature for instruction'],
  ['AccountAlreadyInitialized', 'instruction requires an uninitialized account'],
  ['UninitializedAccount', 'instruction requires an initialized account'],
  ['UnbalancedInstruction', 'sum of account balances before and after instruction do not match'],
  ['ModifiedProgramId', 'instruction illegally modified the program id of an account'],
  ['ExternalAccountLamportSpend', 'instruction spent from the balance of an account it does not own'],
  ['ExternalAccountDataModified', 'instruction modified data of an account it does not own'],
  ['ReadonlyLamportChange', 'instruction changed the balance of a read-only account'],
  ['ReadonlyDataModified', 'instruction modified data of a read-only account'],
  ['DuplicateAccountIndex', 'instruction contains duplicate accounts'],
  ['ExecutableModified', 'instruction changed executable bit of an account'],
  ['RentEpochModified', 'instruction modified rent epoch of an account'],
  ['NotEnoughAccountKeys', 'insufficient account keys for instruction'],
  ['AccountDataSizeChanged', "program other than the account's owner changed the size of the account data"],
  ['AccountNotExecutable', 'instruction expected an executable account'],
  ['AccountBorrowFailed', 'instruction tries to borrow reference for an account which is already borrowed'],
  ['AccountBorrowOutstanding', 'instruction left account with an outstanding borrowed reference'],
  ['DuplicateAccountOutOfSync', 'instruction modifications of multiply-passed account differ'],
  ['InvalidError', 'program returned invalid error code'],
  ['ExecutableDataModified', 'instruction changed executable accounts data'],
  ['ExecutableLamportChange', 'instruction changed the balance of an executable account'],
  ['ExecutableAccountNotRentExempt', 'executable accounts must be rent exempt'],
  ['UnsupportedProgramId', 'Unsupported program id'],
  ['CallDepth', 'Cross-program invocation call depth too deep'],
  ['MissingAccount', 'An account required by the instruction is missing'],
  ['ReentrancyNotAllowed', 'Cross-program invocation reentrancy not allowed for this instruction'],
  ['MaxSeedLengthExceeded', 'Length of the seed is too long for address generation'],
  ['InvalidSeeds', 'Provided seeds do not result in a valid address'],
  ['InvalidRealloc', 'Failed to reallocate account data'],
  ['ComputationalBudgetExceeded', 'Computational budget exceeded'],
  ['PrivilegeEscalation', 'Cross-program invocation with unauthorized signer or writable account'],
  ['ProgramEnvironmentSetupFailure', 'Failed to create program execution environment'],
  ['ProgramFailedToComplete', 'Program failed to complete'],
  ['ProgramFailedToCompile', 'Program failed to compile'],
  ['Immutable', 'Account is immutable'],
  ['IncorrectAuthority', 'Incorrect authority provided'],
  ['AccountNotRentExempt', 'An account does not have enough lamports to be rent-exempt'],
  ['InvalidAccountOwner', 'Invalid account owner'],
  ['ArithmeticOverflow', 'Program arithmetic overflowed'],
  ['UnsupportedSysvar', 'Unsupported sysvar'],
  ['IllegalOwner', 'Provided owner is not allowed'],
  ['MaxAccountsDataAllocationsExceeded', 'Accounts data allocations exceeded the maximum allowed per transaction'],
  ['MaxAccountsExceeded', 'Max accounts exceeded'],
  ['MaxInstructionTraceLengthExceeded', 'Max instruction trace length exceeded'],
  ['BuiltinProgramsMustConsumeComputeUnits', 'Builtin programs must consume compute units'],
  ['BorshIoError', 'Failed to serialize or deserialize account data'],
];

type SvmTxError = ReturnType<svmTypes.FailedTransactionMetadata['err']>;
type SvmIxError = ReturnType<svmTypes.TransactionErrorInstructionError['err']>;

function ixErrorJson(e: SvmIxError): Json {
  if (typeof e === 'number') return IX_ERRORS[e]?.[0] ?? 'GenericError';
  if (e instanceof svmTypes.InstructionErrorCustom) return { Custom: e.code };
  return { BorshIoError: e.msg };
}

export function txErrorFromSvm(e: SvmTxError): TxErr {
  if (typeof e === 'number') return TX_ERRORS[e]?.[0] ?? 'SanitizeFailure';
  if (e instanceof svmTypes.TransactionErrorInstructionError) return { InstructionError: [e.index, ixErrorJson(e.err())] };
  if (e instanceof svmTypes.TransactionErrorDuplicateInstruction) return { DuplicateInstruction: e.index };
  if (e instanceof svmTypes.TransactionErrorInsufficientFundsForRent) return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
}

type Fields = Record<string, unknown>;
const fields = (v: unknown): Fields | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : null);

function ixErrorText(e: Json): string {
  if (typeof e === 'string') return IX_ERRORS.find(([n]) => n === e)?.[1] ?? e;
  const o = fields(e);
  if (o) {
    const custom = o.Custom;
    if (typeof custom === 'number') return `custom program error: 0x${custom.toString(16)}`;
    if ('BorshIoError' in o) return 'Failed to serialize or deserialize account data';
  }
  return 'generic instruction error';
}

/** Agave's Display text for a TransactionError, used in preflight failure messages. */
export function txErrorText(err: TxErr): string {
  if (typeof err === 'string') return TX_ERRORS.find(([n]) => n === err)?.[1] ?? err;
  const ie = err.InstructionError;
  if (Array.isArray(ie)) return `Error processing Instruction ${String(ie[0])}: ${ixErrorText(ie[1] ?? null)}`;
  const dup = err.DuplicateInstruction;
  if (typeof dup === 'number') return `Transaction contains a duplicate instruction (${dup}) that is not allowed`;
  const rent = fields(err.InsufficientFundsForRent);
  if (rent) {
    return `Transaction results in an account (${String(rent.account_index)}) with insufficient funds for rent`;
  }
  const restricted = fields(err.ProgramExecutionTemporarilyRestricted);
  if (restricted) {
    return `Execution of the program referenced by account at index ${String(restricted.account_index)} is temporarily restricted.`;
  }
  return 'transaction error';
}
