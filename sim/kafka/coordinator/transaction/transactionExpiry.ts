/**
 * The coordinator's two periodic sweeps: open transactions past their timeout (aborted every
 * `transaction.abort.timed.out.transaction.cleanup.interval.ms`) and idle transactional ids past
 * `transactional.id.expiration.ms` (removed every `transaction.remove.expired.transaction.cleanup.interval.ms`).
 * [src: core/.../transaction/TransactionStateManager.scala `timedOutTransactions`, `shouldExpire`]
 */
import type { TransactionMetadata } from './transactionMetadata';
import { isExpirationAllowed } from './transactionState';

/** Ongoing, nothing pending, and started more than its timeout ago (strictly). */
export function isTimedOut(m: TransactionMetadata, nowMs: number): boolean {
  return m.pendingState === undefined && m.state === 'Ongoing' && m.txnStartTimestamp + m.txnTimeoutMs < nowMs;
}

/** Idle in a state that may expire and not updated for `transactional.id.expiration.ms`. */
export function shouldExpire(m: TransactionMetadata, nowMs: number, transactionalIdExpirationMs: number): boolean {
  return m.pendingState === undefined && isExpirationAllowed(m.state) && m.txnLastUpdateTimestamp <= nowMs - transactionalIdExpirationMs;
}

/** The timed-out transactions of a set of ids, in id order (the sweep's deterministic order). */
export function timedOutTransactions(all: Iterable<TransactionMetadata>, nowMs: number): TransactionMetadata[] {
  return [...all].filter((m) => isTimedOut(m, nowMs)).sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : a.transactionalId > b.transactionalId ? 1 : 0));
}
