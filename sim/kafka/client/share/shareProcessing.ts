/**
 * What the application around a share consumer does with its records: plain data in a scenario. Each record
 * takes a processing time; failure rules say which records fail and how the application acknowledges them:
 * a poison pill fails every time (`times: "always"`), a flaky record fails its first `times` deliveries and then
 * succeeds. A failed record is RELEASEd (delivered again, up to the delivery-count limit) or REJECTed (archived
 * at once). Rules need share.acknowledgement.mode=explicit: in implicit mode every record is accepted.
 */
import type { ProcessingTime } from '../consumer/processingModel';
import type { AcknowledgeType } from '../../share/acknowledgeType';
import type { AcknowledgementBatch } from '../../share/sharePartition';

export interface ShareFailureRule {
  /** For the trace: `poison` or `flaky`, with the prefix. */
  readonly name: string;
  readonly keyPrefix?: string;
  readonly valuePrefix?: string;
  /** How many deliveries fail: Infinity for a poison pill. */
  readonly times: number;
  readonly ack: 'RELEASE' | 'REJECT';
}

/**
 * How the application commits its acknowledgements:
 * - `piggyback` (default): they ride on the next ShareFetch (the application never calls commit);
 * - `sync`: commitSync() after each poll's records (a ShareAcknowledge, waited for);
 * - `async`: commitAsync() after each poll's records.
 */
export type ShareCommitStrategy = 'piggyback' | 'sync' | 'async';

export interface ShareProcessingModel {
  readonly startMs: number;
  readonly stopMs?: number;
  readonly pollTimeoutMs: number;
  readonly recordTime: ProcessingTime;
  readonly commit: ShareCommitStrategy;
  readonly failures: readonly ShareFailureRule[];
  /** Explicit mode: while a poll's records are processed, RENEW their locks this often (KIP-1222, Kafka 4.2). */
  readonly renewIntervalMs?: number;
}

/** The rule that makes this delivery of the record fail, if any (the first that matches). */
export function failureFor(rules: readonly ShareFailureRule[], r: { readonly key: string | null; readonly value: string | null; readonly deliveryCount: number }): ShareFailureRule | undefined {
  for (const f of rules) {
    const matches = (f.keyPrefix !== undefined && r.key !== null && r.key.startsWith(f.keyPrefix)) || (f.valuePrefix !== undefined && r.value !== null && r.value.startsWith(f.valuePrefix));
    if (matches && r.deliveryCount <= f.times) return f;
  }
  return undefined;
}

/** Acknowledgements as the wire carries them: runs of consecutive offsets with one type, in offset order. [Acknowledgements.java `getAcknowledgementBatches`] */
export function acknowledgementBatches(acks: readonly { readonly offset: number; readonly type: AcknowledgeType }[]): AcknowledgementBatch[] {
  const sorted = [...acks].sort((a, b) => a.offset - b.offset);
  const out: AcknowledgementBatch[] = [];
  for (const a of sorted) {
    const last = out[out.length - 1];
    if (last && last.lastOffset === a.offset - 1 && last.type === a.type) out[out.length - 1] = { ...last, lastOffset: a.offset };
    else if (!last || last.lastOffset < a.offset) out.push({ firstOffset: a.offset, lastOffset: a.offset, type: a.type });
  }
  return out;
}
