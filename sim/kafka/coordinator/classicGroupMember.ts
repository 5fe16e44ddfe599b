import { NO_TIMER, type TimerId } from '../../core/scheduler';
import type { KafkaError } from '../errors';
import type { JoinGroupProtocol, JoinGroupResponse, Req, TopicPartition } from '../protocol';

/** What a parked JoinGroup is eventually answered with (the coordinator adds type and correlation id). */
export type JoinGroupResult = Omit<JoinGroupResponse, keyof Req<'JoinGroupResponse'>>;

export interface SyncGroupResult {
  readonly error: KafkaError;
  readonly partitions: readonly TopicPartition[];
}

export type JoinReply = (result: JoinGroupResult) => void;
export type SyncReply = (result: SyncGroupResult) => void;

/** The member id a dynamic member sends before it has one (JoinGroupRequest.UNKNOWN_MEMBER_ID). */
export const UNKNOWN_MEMBER_ID = '';

/** A join answered with an error carries no group information. */
export function joinError(error: KafkaError, memberId: string): JoinGroupResult {
  return { error, generationId: -1, protocolName: null, leader: '', skipAssignment: false, memberId, members: [] };
}

/** Canonical text of a member's protocols: Kafka compares the serialized metadata bytes. */
export function protocolsKey(protocols: readonly JoinGroupProtocol[]): string {
  return JSON.stringify(
    protocols.map((p) => [p.name, p.topics, p.ownedPartitions.map((tp) => [tp.topic, tp.partition]), p.generation]),
  );
}

/**
 * One member of a classic group as the coordinator keeps it: its timeouts, its supported protocols (one per
 * assignor, each carrying its subscription), its assignment, and the JoinGroup / SyncGroup it has parked.
 * [group-coordinator/.../classic/ClassicGroupMember.java]
 */
export class ClassicGroupMember {
  protocols: readonly JoinGroupProtocol[];
  private key: string;
  assignment: readonly TopicPartition[];
  awaitingJoin: JoinReply | null = null;
  awaitingSync: SyncReply | null = null;
  /** Joined during the current rebalance: may expire while its join is parked. */
  isNew = false;
  heartbeatTimer: TimerId = NO_TIMER;

  constructor(
    readonly memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    protocols: readonly JoinGroupProtocol[],
    assignment: readonly TopicPartition[] = [],
  ) {
    this.protocols = protocols;
    this.key = protocolsKey(protocols);
    this.assignment = assignment;
  }

  get isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== null;
  }

  setProtocols(protocols: readonly JoinGroupProtocol[]): void {
    this.protocols = protocols;
    this.key = protocolsKey(protocols);
  }

  /** Same protocols with the same metadata as `protocols`. [ClassicGroupMember.java `matches`] */
  matches(protocols: readonly JoinGroupProtocol[]): boolean {
    return protocolsKey(protocols) === this.key;
  }

  protocolNames(): string[] {
    return this.protocols.map((p) => p.name);
  }

  /** A member parked in a join or sync counts as heartbeating, unless it is new. [ClassicGroupMember.java `hasSatisfiedHeartbeat`] */
  hasSatisfiedHeartbeat(): boolean {
    if (this.isNew) return false;
    return this.isAwaitingJoin || this.isAwaitingSync;
  }

  /** The metadata it sent for `protocolName`. */
  metadata(protocolName: string | null): JoinGroupProtocol {
    const p = this.protocols.find((x) => x.name === protocolName) ?? this.protocols[0];
    if (!p) throw new Error(`member ${this.memberId} has no protocols`);
    return p;
  }
}
