/**
 * The group coordinator's side of share groups: it serves ShareGroupHeartbeat for the groups whose
 * `__consumer_offsets` partition this broker leads, runs each member's session timer and traces membership.
 * The decisions are `shareGroup.ts`; this file wires timers, replies and the trace.
 * [src: group-coordinator/.../GroupMetadataManager.java `shareGroupHeartbeat`, `scheduleShareGroupSessionTimeout`,
 * `shareGroupFenceMemberOperation`; GroupCoordinatorService.java `shareGroupHeartbeat`]
 */
import { NO_TIMER, type TimerId } from '../../core/scheduler';
import { ms, type Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { BrokerConfig } from '../config/configs';
import { shareGroupLimits, type ShareGroupLimits } from './shareGroupConfig';
import { removeShareGroupMember, ShareGroup, shareGroupHeartbeat } from './shareGroup';
import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, TopicPartitions } from './shareProtocol';

export interface ShareCoordinatorHost {
  readonly nodeId: string;
  readonly now: Micros;
  readonly trace: Trace;
  readonly config: BrokerConfig;
  setTimer(delay: Micros, fn: () => void): TimerId;
  cancelTimer(id: TimerId): void;
  /** Whether this broker coordinates the group now (it leads the group's __consumer_offsets partition). */
  coordinates(groupId: string): boolean;
  partitionCount(topic: string): number;
  groupConfig(groupId: string): Readonly<Record<string, string>>;
}

const owned = (a: readonly TopicPartitions[]): string[] => a.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));

export class ShareGroupCoordinator {
  private readonly groups = new Map<string, ShareGroup>();
  private readonly sessions = new Map<string, TimerId>();

  constructor(private readonly host: ShareCoordinatorHost) {}

  private limits(groupId: string): ShareGroupLimits {
    const l = shareGroupLimits(this.host.config, this.host.groupConfig(groupId));
    return typeof l === 'string' ? (shareGroupLimits(this.host.config) as ShareGroupLimits) : l;
  }

  heartbeat(from: string, req: ShareGroupHeartbeatRequest): ShareGroupHeartbeatResponse {
    const base = { type: 'ShareGroupHeartbeatResponse' as const, correlationId: req.correlationId };
    if (!this.host.coordinates(req.groupId)) {
      // This broker lost the group (or never had it): what it knew of it is gone; the member finds the new coordinator.
      this.forget(req.groupId);
      return { ...base, error: 'NOT_COORDINATOR', errorMessage: null, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
    }
    let group = this.groups.get(req.groupId);
    if (!group) this.groups.set(req.groupId, (group = new ShareGroup(req.groupId)));
    const limits = this.limits(req.groupId);
    const r = shareGroupHeartbeat(group, req, {
      clientId: from,
      heartbeatIntervalMs: limits.heartbeatIntervalMs,
      maxSize: this.host.config['group.share.max.size'],
      partitionCount: (t) => this.host.partitionCount(t),
    });
    if (r.error === 'NONE') {
      const m = group.members.get(r.memberId);
      if (r.left) {
        this.cancelSession(req.groupId, r.memberId);
        this.emitMember(group, r.memberId, -1, 'left', []);
      } else if (m) {
        this.armSession(group, r.memberId, limits.sessionTimeoutMs);
        if (r.joined) this.emitMember(group, r.memberId, m.memberEpoch, 'joined', m.assignment);
      }
    }
    return { ...base, error: r.error, errorMessage: r.errorMessage, memberId: r.error === 'NONE' ? r.memberId : null, memberEpoch: r.memberEpoch, heartbeatIntervalMs: limits.heartbeatIntervalMs, assignment: r.assignment };
  }

  private emitMember(group: ShareGroup, memberId: string, memberEpoch: number, change: 'joined' | 'left' | 'expired', assignment: readonly TopicPartitions[]): void {
    this.host.trace.emit('share.member', this.host.nodeId, { group: group.groupId, memberId, memberEpoch, groupEpoch: group.groupEpoch, change, assignment: owned(assignment) });
  }

  /** A member without a heartbeat for share.session.timeout.ms is removed. [GroupMetadataManager.java `scheduleShareGroupSessionTimeout`] */
  private armSession(group: ShareGroup, memberId: string, timeoutMs: number): void {
    const k = `${group.groupId}\u0000${memberId}`;
    this.host.cancelTimer(this.sessions.get(k) ?? NO_TIMER);
    this.sessions.set(
      k,
      this.host.setTimer(ms(timeoutMs), () => {
        this.sessions.delete(k);
        if (this.groups.get(group.groupId) !== group) return;
        if (removeShareGroupMember(group, memberId)) this.emitMember(group, memberId, -1, 'expired', []);
      }),
    );
  }

  private cancelSession(groupId: string, memberId: string): void {
    const k = `${groupId}\u0000${memberId}`;
    const t = this.sessions.get(k);
    if (t !== undefined) this.host.cancelTimer(t);
    this.sessions.delete(k);
  }

  private forget(groupId: string): void {
    const g = this.groups.get(groupId);
    if (!g) return;
    for (const id of g.members.keys()) this.cancelSession(groupId, id);
    this.groups.delete(groupId);
  }

  /** After a metadata update: drop the groups this broker no longer coordinates. */
  onMetadataApplied(): void {
    for (const id of [...this.groups.keys()]) if (!this.host.coordinates(id)) this.forget(id);
  }
}
