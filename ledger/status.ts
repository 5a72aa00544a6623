// `npm run ledger -- status`: the ledger against the chain's newest commit and the ClickHouse archive; writes nothing.
import { toHex } from '../protocol/encoding.ts';
import { newestOperatorCommit } from '../chain/operator-history.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import type { RecoveryArchive } from '../analytics/recovery-archive.ts';
import { forkMessage } from '../transparency/log-guard.ts';
import type { AnchorStore } from '../store/anchor-store.ts';
import type { LedgerRestore } from '../store/ledger-restore.ts';

export interface StatusDeps {
  anchors: AnchorStore;
  restore: Pick<LedgerRestore, 'journalSeq'>;
  archive: RecoveryArchive;
  rpc: SolanaRpc;
  anchorKey: string;
}

/** @returns the lines to print, and whether the log holds the chain's newest commit and the journal the archive's */
export async function ledgerStatus(d: StatusDeps): Promise<{ lines: string[]; whole: boolean }> {
  const lines: string[] = [];
  const [chain, logSize, journalSeq, archiveSeq, refusal] = await Promise.all([
    newestOperatorCommit(d.rpc, d.anchorKey),
    d.anchors.logSize(),
    d.restore.journalSeq(),
    d.archive.maxSeq(),
    d.anchors.forkRefusal(),
  ]);
  let whole = true;
  if (!chain) lines.push(`chain: no commit of the anchor key ${d.anchorKey} yet; the ledger's log holds ${logSize} entries`);
  else {
    const tree = await d.anchors.loadTree();
    const at = Math.min(logSize, chain.entryCount);
    await tree.extendTo(at);
    const root = toHex(tree.log.root(at));
    if (logSize >= chain.entryCount && root === chain.betLogRoot) {
      lines.push(`log: whole. The ledger's ${logSize} entries hold the newest commit ${chain.signature} (${chain.entryCount} entries, root ${root})`);
    } else {
      whole = false;
      lines.push(`log: NOT WHOLE. ${forkMessage({ anchorKey: d.anchorKey, ledgerSize: logSize, ledgerRoot: root, chain: { ...chain } })}`);
    }
  }
  if (archiveSeq > journalSeq) {
    whole = false;
    lines.push(
      `journal: the ledger is at seq ${journalSeq}, the ClickHouse archive at seq ${archiveSeq}: ${archiveSeq - journalSeq} archived events are missing from the ledger (recover restores them)`,
    );
  } else lines.push(`journal: the ledger is at seq ${journalSeq}, the ClickHouse archive at seq ${archiveSeq}`);
  if (refusal) lines.push(`anchor: refusing to commit since a check failed: ${refusal}`);
  return { lines, whole };
}
