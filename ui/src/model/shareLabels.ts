import type { TraceEventOf, TraceKind } from '../../../sim/core/trace';
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

const at = (e: { group: string; topic: string; partition: number }) => `${e.group} ${e.topic}-${e.partition}`;
const counts = (xs: readonly number[]) => (xs.every((x) => x === xs[0]) ? `delivery ${xs[0]}` : `deliveries ${xs.join(', ')}`);

/** Share-group events in plain words (the events list, the timeline's hover). */
export const SHARE_DESCRIBE: { readonly [K in TraceKind]?: (e: TraceEventOf<K>) => string } = {
  'share.member': (e) => `share group ${e.group}: ${e.memberId} ${e.change} (member epoch ${e.memberEpoch}, group epoch ${e.groupEpoch}); target ${e.assignment.join(', ') || 'nothing'}`,
  'share.assignment': (e) => `share group ${e.group}: assigned ${e.owned.join(', ') || 'nothing'} (member epoch ${e.memberEpoch})`,
  'share.partition.init': (e) => `${at(e)}: share-partition ${e.source === 'persisted' ? 'restored from its persisted state' : 'created at share.auto.offset.reset'} in leader epoch ${e.leaderEpoch}: SPSO ${e.spso}, SPEO ${e.speo}`,
  'share.acquire': (e) => `${at(e)}: ${offsets(e.offsets)} acquired by ${e.memberId} (${counts(e.deliveryCounts)}); SPSO ${e.spso}, SPEO ${e.speo}`,
  'share.transition': (e) => `${at(e)}: ${offsets(e.offsets)} ${e.to} (${CAUSE_TEXT[e.cause] ?? e.cause}${e.memberId ? `, held by ${e.memberId}` : ''}); SPSO ${e.spso}, SPEO ${e.speo}`,
  'share.ack.refused': (e) => `${at(e)}: ${e.type} of ${offsets(e.offsets)} by ${e.memberId} refused: ${e.error}`,
  'share.ack': (e) => `${e.type} ${e.topic}-${e.partition} ${offsets(e.offsets)} (via ${e.via})`,
  'share.poll': (e) => `poll returned ${e.count} record(s) of share group ${e.group}`,
  'share.process.fail': (e) => `processing ${e.topic}-${e.partition} offset ${e.offset} failed (${e.rule}, delivery ${e.deliveryCount}): acknowledges ${e.type}`,
};
