// The MCP tools of design §9, for one authenticated wallet: thin wrappers over the agent domain (agents/), the
// receipt and house reads, and the x402 top-up. Each returns `structuredContent` and a short text.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { AgentArcade } from '../../agents/arcade.ts';
import type { TopUps } from '../../payments/top-up.ts';
import type { Receipts } from '../../games/receipts.ts';
import { parseWager } from '../../games/lifecycle.ts';
import { houseView, type HouseDeps } from '../../house/view.ts';
import { PfwsError } from '../../protocol/errors.ts';
import type { ReplicationBarrier } from '../../store/replication.ts';
import { paymentError, toolError, toolResult } from './envelopes.ts';
import type { Address } from '../../protocol/address.ts';

/** What the tools read and call. */
export interface McpParts {
  agents: AgentArcade;
  receipts: Pick<Receipts, 'read'>;
  house: HouseDeps;
  topUps: TopUps;
  /** A tool's result goes out only once what it wrote is on the replicas (api/plugins/replicated.ts, for REST). */
  replication: ReplicationBarrier;
}

const INSTRUCTIONS =
  'Provably-fair Dice and Sweeper on Solana for one wallet (the bearer token). Start with get_arcade_state: it shows the ' +
  'balance, whether the agent key is authorized (and how the wallet owner authorizes it), the open ticket, the last plays ' +
  'and the agent limits (limits.maxBet per play, limits.maxWagered per rolling window). Amounts are USDC decimals. ' +
  'Never retry a play blindly after an error: read get_arcade_state or get_receipt first, the play may have settled.';

const amount = (what: string) =>
  z.union([z.number(), z.string()]).describe(`${what}, in USDC: a positive number or decimal string with at most 6 decimals (e.g. 0.05 or "0.05")`);
const clientSeed = z
  .string()
  .optional()
  .describe(
    'Optional: your own client seed, 32 bytes as 64 hex characters. Its sha256 is committed before the RNG index is assigned; ' +
      'pass a fresh one per play to verify the outcome yourself. Omitted: the service draws one and returns it.',
  );

// Input schemas are built once: a server lives for one request, and building zod objects is its largest cost.
// They check JSON types; values (amounts, enums, ranges) are the domain's to check, so a bad one gets the same
// REST envelope inside structuredContent as over REST. An enum is therefore listed for agents, not enforced here.
const oneOf = (values: string[]) => z.string().meta({ enum: values });
const NO_INPUT = z.object({});
const PLAY_DICE_INPUT = z.object({
  betAmount: amount('The stake'),
  target: z.number().describe('The target, 0.01–99.99 with at most 2 decimals (e.g. 49.5)'),
  direction: oneOf(['under', 'over']).describe('"under": win when the roll is below target; "over": win when it is above'),
  clientSeed,
});
const SWEEPER_OPEN_INPUT = z.object({
  betAmount: amount('The stake'),
  mode: oneOf(['easy', 'medium', 'hard']).describe('Board: easy (4 columns), medium (3) or hard (2); one mine per row'),
});
const SWEEPER_CHOOSE_INPUT = z.object({
  column: z.number().describe('The column to step on, an integer: 0..columns-1 (easy 0–3, medium 0–2, hard 0–1)'),
  clientSeed,
});
const SWEEPER_CASHOUT_INPUT = z.object({ clientSeed });
const GET_RECEIPT_INPUT = z.object({ id: z.string().min(1).max(200).describe('The receipt id a play returned') });
const TOP_UP_INPUT = z.object({
  amount: amount('The top-up'),
  payment: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .optional()
    .describe('The x402 payment payload: the base64 `payment-signature` header value, or the payload object'),
});

const money = (n: unknown) => `${String(n)} USDC`;

/** Built once: each server would otherwise compile a fresh Ajv instance, and a server lives for one request. */
const validator = new AjvJsonSchemaValidator();

/** @param client - the request's address: an archived receipt read spends its share of the archive's budget */
export function agentServer(parts: McpParts, wallet: Address, log: FastifyBaseLogger, client?: string): McpServer {
  const server = new McpServer({ name: 'pfws', version: '1.0.0' }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator });
  const { agents } = parts;

  /** Runs a tool body; every failure becomes its MCP envelope, never a protocol error. */
  const tool = async (body: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      const result = await body();
      if (!result.isError) await parts.replication.confirm();
      return result;
    } catch (err) {
      return toolError(err, log);
    }
  };

  server.registerTool(
    'get_arcade_state',
    {
      title: 'Arcade state',
      description:
        'Read first, and after any error: balance, the agent key and whether it is authorized (with the setup steps for the wallet ' +
        'owner when it is not), the open Sweeper ticket, the last 10 plays, the agent limits { maxBet, maxWagered, wagered, remaining, ' +
        'windowMs, resetsAt } and nextSteps in words.',
      inputSchema: NO_INPUT,
      annotations: { readOnlyHint: true },
    },
    async () =>
      tool(async () => {
        const state = await agents.state(wallet);
        const key = state.agentKey.authorized ? 'agent key authorized' : `agent key ${state.agentKey.status}`;
        return toolResult(
          state,
          `Balance ${money(state.balance)}; ${key}; ${state.limits.remaining} of ${state.limits.maxWagered} USDC left to wager. ${state.nextSteps.join(' ')}`,
        );
      }),
  );

  server.registerTool(
    'play_dice',
    {
      title: 'Play Dice',
      description:
        'One Dice bet, settled at once. A roll r is drawn in 0.00–99.99; direction "under" wins when r < target, "over" when r > target. ' +
        'Payout = betAmount × 0.99 × 100 / (winning outcomes in percent); a win chance between 1% and 98% is allowed. ' +
        'betAmount must be at most limits.maxBet (status 400 otherwise), and the window cap applies (status 429). ' +
        'Returns the outcome, the new balance, the receipt id and the proof (your seed, commitment, signed payload and ack, RNG index and reveal).',
      inputSchema: PLAY_DICE_INPUT,
    },
    async (input) =>
      tool(async () => {
        const r = await agents.playDice(wallet, input);
        const o = r.outcome as { rollDisplay: number | null; won: boolean; payout: number; direction: string; target: number };
        return toolResult(
          r,
          `Dice ${o.direction} ${o.target}: rolled ${o.rollDisplay}, ${o.won ? `won ${money(o.payout)}` : 'lost'} (bet ${money(r.betAmount)}). ` +
            `Balance ${money(r.balance)}. Receipt ${r.receiptId}.`,
        );
      }),
  );

  server.registerTool(
    'sweeper_open',
    {
      title: 'Open a Sweeper ticket',
      description:
        'Opens a Sweeper ticket: 8 rows, one mine per row; "easy" has 4 columns, "medium" 3, "hard" 2. The stake is locked now and counts ' +
        'against the agent window now. Then pick a column per row with sweeper_choose, and cash out with sweeper_cashout after at least one ' +
        'cleared row. One open ticket per wallet.',
      inputSchema: SWEEPER_OPEN_INPUT,
    },
    async (input) =>
      tool(async () => {
        const r = await agents.openTicket(wallet, input);
        return toolResult(
          r,
          `Ticket ${r.ticket.id} open (${r.ticket.mode}, ${money(r.ticket.betAmount)}). Choose a column 0..${r.ticket.columns - 1} for row 0. Balance ${money(r.balance)}.`,
        );
      }),
  );

  const sweeperSummary = (r: Awaited<ReturnType<AgentArcade['choose']>>) => {
    const t = r.ticket as { status: string; outcome: string | null; rowsWon: number; payout: number };
    const turn = r.turn;
    const what =
      turn.kind === 'cashout'
        ? 'Cashed out'
        : `Row ${turn.row}, column ${turn.choiceColumn}: ${turn.safe ? 'safe' : `mine (it was column ${turn.mineColumn})`}`;
    const state = t.status === 'running' ? `${t.rowsWon} rows cleared, current payout ${money(t.payout)}` : `ticket ${t.outcome}, paid ${money(t.payout)}`;
    return `${what}; ${state}. Balance ${money(r.balance)}.${r.receiptId ? ` Receipt ${r.receiptId}.` : ''}`;
  };

  server.registerTool(
    'sweeper_choose',
    {
      title: 'Sweeper: choose a column',
      description:
        'Picks a column on the next row of your open ticket (rows go in order, so the row is implied). A safe pick raises the payout; a mine ' +
        'ends the ticket at 0; clearing row 8 pays the full board. Returns the revealed mine column, the ticket and the proof.',
      inputSchema: SWEEPER_CHOOSE_INPUT,
    },
    async (input) =>
      tool(async () => {
        const r = await agents.choose(wallet, input);
        return toolResult(r, sweeperSummary(r));
      }),
  );

  server.registerTool(
    'sweeper_cashout',
    {
      title: 'Sweeper: cash out',
      description: 'Ends your open ticket and pays its current payout (needs at least one cleared row). Returns the settled ticket, receipt id and proof.',
      inputSchema: SWEEPER_CASHOUT_INPUT,
    },
    async (input) =>
      tool(async () => {
        const r = await agents.cashout(wallet, input);
        return toolResult(r, sweeperSummary(r));
      }),
  );

  server.registerTool(
    'get_receipt',
    {
      title: 'Receipt',
      description:
        'A settled play\'s public receipt by id (e.g. "dice_…" or "sweeper_…"): outcome, source, proof material and its on-chain anchor ' +
        '(anchor.status becomes "committed" once the bet log holding it is anchored). Verify it with `npx pfws-verify receipt <id>`.',
      inputSchema: GET_RECEIPT_INPUT,
      annotations: { readOnlyHint: true },
    },
    async ({ id }) =>
      tool(async () => {
        const receipt = await parts.receipts.read(id, client);
        if (!receipt) throw new PfwsError('RECEIPT_NOT_FOUND', `No receipt with id ${id}`);
        const r = receipt as { game: string; status: string; betAmount: number; payout: number; source: string; anchor: { status: string } };
        return toolResult(
          { receipt },
          `Receipt ${id}: ${r.game} ${r.status}, bet ${money(r.betAmount)}, payout ${money(r.payout)}, source ${r.source}, anchor ${r.anchor.status}.`,
        );
      }),
  );

  server.registerTool(
    'get_house',
    {
      title: 'House',
      description: 'The house read live from the vault: NAV (totalValue), exposure, and the house limits maxBet and maxPayout every play must fit.',
      inputSchema: NO_INPUT,
      annotations: { readOnlyHint: true },
    },
    async () =>
      tool(async () => {
        const house = await houseView(parts.house);
        return toolResult({ house }, `House NAV ${money(house.totalValue)}; house maxBet ${money(house.maxBet)}, maxPayout ${money(house.maxPayout)}.`);
      }),
  );

  server.registerTool(
    'top_up',
    {
      title: 'Top up with x402',
      description:
        'Tops the balance up with an x402 payment (exact scheme, Solana USDC) from the session wallet. Without `payment` the result is the ' +
        '402 envelope { error: { code: "X402_PAYMENT_REQUIRED" }, accepts, x402Version } (isError): build a payment for accepts[0] and call ' +
        'again with it. Each retry needs a freshly minted payment; a payment is credited once.',
      inputSchema: TOP_UP_INPUT,
    },
    async (input) => {
      let micro: bigint;
      try {
        micro = parseWager(input.amount, 'amount');
      } catch (err) {
        return toolError(err, log);
      }
      if (input.payment === undefined) {
        try {
          const offer = await parts.topUps.offer(wallet, micro);
          return toolResult(
            { ...offer },
            `Payment required: pay ${money(input.amount)} with x402 (accepts[0]), then call top_up again with the payment.`,
            true,
          );
        } catch (err) {
          return paymentError(err, log);
        }
      }
      try {
        const header = typeof input.payment === 'string' ? input.payment : encodePaymentSignatureHeader(input.payment as unknown as PaymentPayload);
        const paid = await parts.topUps.pay(wallet, micro, header);
        await parts.replication.confirm();
        return toolResult({ ...paid }, `Topped up ${money(paid.payment.amount)} (payment ${paid.payment.id}). Balance ${money(paid.balance)}.`);
      } catch (err) {
        return paymentError(err, log);
      }
    },
  );

  return server;
}
