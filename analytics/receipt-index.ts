/**
 * The fields the archive indexes a stored receipt by, read from its JSON text. Every receipt opens with the same
 * head (`receiptHead` in protocol/receipt.ts) and closes with its anchor and `createdAt`, so those are read where
 * they stand, without parsing the whole body (several kB, and the archive takes one per settled bet); a body of
 * any other shape is parsed in full.
 * @module
 */

export interface ReceiptIndex {
  receiptId: string;
  game: string;
  /** Public alias. */
  player: string;
  status: string;
  /** The status of the anchor the body carries (`pending_commit` as it settled). */
  anchorStatus: string;
  /** When the receipt was made (its settlement), ISO 8601; the epoch when it names no valid time. */
  createdAt: string;
}

const STR = '"((?:[^"\\\\])*)"';
const NUM = '-?[0-9][0-9.eE+-]*';
// `d`: each group's offsets, to cut a stored body's fields from its bytes (`receiptIndexOf`).
const HEAD_RE = new RegExp(
  `^\\{"id":${STR},"receiptId":${STR},"game":${STR},"gameId":${STR},"player":${STR},"actorAlias":${STR},"source":${STR},"betAmount":${NUM},"payout":${NUM},"profit":${NUM},"status":${STR}[,}]`,
  'd',
);
const ANCHOR_KEY = ',"anchor":{"status":"';
// The anchor object holds no nested object (its only array holds hex strings), and createdAt ends the receipt.
const TAIL_RE = new RegExp(`^,"anchor":\\{"status":${STR}[^{}]*\\},"createdAt":${STR}\\}$`, 'd');

const EPOCH = new Date(0).toISOString();
const isTime = (v: unknown): v is string => typeof v === 'string' && Number.isFinite(Date.parse(v));

// The head is far shorter; only this much of a stored body is decoded to find it.
const HEAD_BYTES = 1024;

/**
 * Reads a receipt's indexed fields from its JSON, as text or as the UTF-8 bytes Redis holds.
 * @returns null when the JSON is not a receipt (not an object with a string receiptId)
 * @example receiptIndexOf(JSON.stringify(receipt)).player // 'p_…'
 */
export function receiptIndexOf(body: string | Buffer): ReceiptIndex | null {
  return typeof body === 'string' ? indexOfText(body) : indexOfBytes(body);
}

function indexOfText(body: string): ReceiptIndex | null {
  const head = HEAD_RE.exec(body);
  const at = head ? body.lastIndexOf(ANCHOR_KEY) : -1;
  const tail = at > 0 ? TAIL_RE.exec(body.slice(at)) : null;
  if (head && tail && isTime(tail[2])) {
    return {
      receiptId: head[2] as string,
      game: head[3] as string,
      player: head[5] as string,
      status: head[8] as string,
      anchorStatus: tail[1] as string,
      createdAt: tail[2],
    };
  }
  return parsedIndexOf(body);
}

/**
 * A stored body's head and tail are matched on a latin1 view (one character per byte; JSON's quotes and backslashes
 * are never part of a multi-byte character), and each field is cut from the bytes at its own offsets and decoded
 * alone. The archive holds the fields until its INSERT is done, and V8 keeps a substring's whole parent string alive:
 * cut from the view, each receipt's would keep a kilobyte of it.
 */
function indexOfBytes(body: Buffer): ReceiptIndex | null {
  const head = HEAD_RE.exec(body.toString('latin1', 0, HEAD_BYTES));
  const at = head ? body.lastIndexOf(ANCHOR_KEY) : -1;
  const tail = at > 0 ? TAIL_RE.exec(body.toString('latin1', at)) : null;
  if (head && tail) {
    const cut = (m: RegExpExecArray, group: number, from: number) => {
      const [start, end] = m.indices?.[group] ?? [0, 0];
      return body.toString('utf8', from + start, from + end);
    };
    const createdAt = cut(tail, 2, at);
    if (isTime(createdAt)) {
      return {
        receiptId: cut(head, 2, 0),
        game: cut(head, 3, 0),
        player: cut(head, 5, 0),
        status: cut(head, 8, 0),
        anchorStatus: cut(tail, 1, at),
        createdAt,
      };
    }
  }
  return parsedIndexOf(body.toString('utf8'));
}

function parsedIndexOf(body: string): ReceiptIndex | null {
  let r: unknown;
  try {
    r = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof r !== 'object' || r === null || typeof (r as { receiptId?: unknown }).receiptId !== 'string') return null;
  const o = r as Record<string, unknown>;
  const anchor = o.anchor as { status?: unknown } | undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
  return {
    receiptId: o.receiptId as string,
    game: text(o.game),
    player: text(o.player),
    status: text(o.status),
    anchorStatus: typeof anchor?.status === 'string' ? anchor.status : 'pending_commit',
    createdAt: [o.createdAt, o.settledAt, o.endedAt].find(isTime) ?? EPOCH,
  };
}
