/**
 * The records of `__transaction_state`: key = the transactional id, value = its TxnTransitMetadata (null: a
 * tombstone, the id expired). Compaction keeps the last value per id; a coordinator that becomes leader of a
 * partition replays them to rebuild its cache. [src: transaction-coordinator/.../TransactionLog.java `keyToBytes`,
 * `valueToBytes`, `readTxnRecordValue`]
 */
import type { CoordinatorRecord } from '../storage';
import type { TxnTransitMetadata } from './transactionMetadata';

const KEY_PREFIX = 'txn:';

export function transactionRecord(transactionalId: string, t: TxnTransitMetadata): CoordinatorRecord {
  return { key: KEY_PREFIX + transactionalId, value: JSON.stringify(t) };
}

export function transactionTombstone(transactionalId: string): CoordinatorRecord {
  return { key: KEY_PREFIX + transactionalId, value: null };
}

/** The last value per transactional id, in the order ids first appeared; tombstones remove. */
export function replayTransactionLog(records: Iterable<CoordinatorRecord>): Map<string, TxnTransitMetadata> {
  const out = new Map<string, TxnTransitMetadata>();
  for (const r of records) {
    if (!r.key.startsWith(KEY_PREFIX)) continue;
    const id = r.key.slice(KEY_PREFIX.length);
    if (r.value === null) out.delete(id);
    else out.set(id, JSON.parse(r.value) as TxnTransitMetadata);
  }
  return out;
}
