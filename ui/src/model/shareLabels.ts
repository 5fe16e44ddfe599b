import type { TraceEventOf } from '../../../sim/core/trace';
import type { DeadLetterFields } from './shareState';

/** The words of share groups (KIP-932) on the timeline and in the share view. */

const offsets = (list: readonly number[]): string => (list.length === 1 ? `offset ${list[0]}` : list.length <= 4 ? `offsets ${list.join(', ')}` : `${list.length} offsets (${list[0]}…${list[list.length - 1]})`);

/** A member id as a person reads it: its share consumer's name (the id's random suffix dropped) when known. */
export type NameOf = (memberId: string) => string;

export const SHARE_MARK = {
  lockExpired: (e: TraceEventOf<'share.transition'>, name: NameOf) =>
    `${e.group} ${e.topic}-${e.partition}: the acquisition lock of ${offsets(e.offsets)} held by ${e.memberId === '' ? 'nobody' : name(e.memberId)} expired; ${e.to === 'ARCHIVED' ? 'archived at the delivery-count limit' : 'available again'}`,
  archived: (e: TraceEventOf<'share.transition'>, name: NameOf) =>
    `${e.group} ${e.topic}-${e.partition}: ${offsets(e.offsets)} archived (${e.cause}${e.memberId === '' ? '' : ` by ${name(e.memberId)}`}, delivered ${e.deliveryCounts.join(', ')} time${e.deliveryCounts.length === 1 && e.deliveryCounts[0] === 1 ? '' : 's'})`,
  deadLetter: (d: DeadLetterFields) => `${d.group} ${d.topic}-${d.partition}: offset ${d.offset} written to the dead-letter topic ${d.dlqTopic || '?'}${d.reason ? ` (${d.reason})` : ''}${d.deliveryCount >= 0 ? `, after ${d.deliveryCount} deliveries` : ''}`,
};

/** What a record state means, for the legend and the hover. */
export const STATE_TEXT: Record<string, string> = {
  AVAILABLE: 'available: any member may acquire it',
  ACQUIRED: 'acquired: locked to one member until it acknowledges or the lock expires',
  ACKNOWLEDGED: 'acknowledged (ACCEPT): done',
  ARCHIVING: 'archiving: being written to the dead-letter topic',
  ARCHIVED: 'archived: never delivered again (REJECT, or the delivery-count limit)',
};

/** Why a record is in its state, from the transition's cause. */
export const CAUSE_TEXT: Record<string, string> = {
  acquire: 'acquired by a ShareFetch',
  accept: 'acknowledged ACCEPT',
  release: 'acknowledged RELEASE',
  reject: 'acknowledged REJECT',
  renew: 'lock renewed (RENEW)',
  'lock-expired': 'its acquisition lock expired',
  'member-left': 'its holder\'s share session closed',
  'log-start': 'the log start passed it',
  gap: 'a gap in the log',
  'leader-change': 'a new leader restored the share-partition',
  'dead-letter': 'written to the dead-letter topic',
};
