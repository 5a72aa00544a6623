// Journal entries as the archive holds them, for ledger recovery: a script given some writes them again, with their
// own stream ids and seqs, instead of new ones (`replay_journal` in scripts/_lib.lua).

/** One journal stream entry: its stream id and its fields, `data` as the JSON text journaled. */
export interface JournalRecord {
  id: string;
  seq: number;
  type: string;
  at: string;
  data: string;
}

/** The scripts' `replayJson` argument: '' when nothing is replayed. */
export const replayArg = (entries: readonly JournalRecord[] | undefined): string =>
  entries?.length ? JSON.stringify(entries.map((e) => ({ id: e.id, seq: String(e.seq), type: e.type, at: e.at, data: e.data }))) : '';
