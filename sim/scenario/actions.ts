import { parseDuration, ms, type Micros } from '../core/time';
import { ValidationError, expectArray, expectNumber, expectObject, expectOneOf, expectString, isRecord, join } from '../core/validate';
import { readSelectors, type TargetResolver } from '../world/nemesis';
import { tpKey } from '../kafka/topicPartition';

/** The id of the admin client the runner starts to carry out actions. */
export const OPERATOR_ID = 'operator';

/** kafka-topics --alter --partitions. */
export interface CreatePartitionsAction {
  readonly index: number;
  readonly atUs: Micros;
  readonly action: 'create-partitions';
  readonly topic: string;
  readonly count: number;
}

/** What a rolling restart waits for between steps. */
export type RollWait = { readonly kind: 'no-under-replicated' } | { readonly kind: 'pause'; readonly us: Micros };

/** A rolling restart (see RollingRestartActionSpec). */
export interface RollingRestartAction {
  readonly index: number;
  readonly atUs: Micros;
  readonly action: 'rolling-restart';
  readonly targets: readonly string[];
  readonly via: 'stop' | 'crash';
  readonly wait: RollWait;
  readonly downUs: Micros;
  readonly timeoutUs: Micros;
  readonly failToStart: readonly string[];
}

/** kafka-reassign-partitions (see ReassignPartitionsActionSpec). */
export interface ReassignPartitionsAction {
  readonly index: number;
  readonly atUs: Micros;
  readonly action: 'reassign-partitions';
  readonly partitions: readonly { readonly topic: string; readonly partition: number; readonly replicas: readonly number[] }[];
  /** Bytes per second, or null for none. */
  readonly throttle: number | null;
}

/** kafka-leader-election (see ElectLeadersActionSpec). */
export interface ElectLeadersAction {
  readonly index: number;
  readonly atUs: Micros;
  readonly action: 'elect-leaders';
  readonly election: 'PREFERRED' | 'UNCLEAN';
  /** null = every partition. */
  readonly partitions: readonly { readonly topic: string; readonly partition: number }[] | null;
}

/** A validated operator action (see ActionSpec): when, and what. */
export type ScenarioAction = CreatePartitionsAction | RollingRestartAction | ReassignPartitionsAction | ElectLeadersAction;

/** The operator actions a scenario may take, and the fields each takes besides "at" and "action". */
export const ACTION_KINDS = {
  'create-partitions': ['topic', 'count'],
  'rolling-restart': ['targets', 'via', 'wait', 'down', 'timeout', 'failToStart'],
  'reassign-partitions': ['partitions', 'throttle'],
  'elect-leaders': ['election', 'partitions'],
} as const;
export type ActionKind = keyof typeof ACTION_KINDS;

/** The default bound on one wait of a rolling restart. */
export const DEFAULT_ROLL_TIMEOUT_US = ms(5 * 60_000);

function readTime(v: unknown, path: string): Micros {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return ms(v);
  if (typeof v === 'string') {
    const t = parseDuration(v);
    if (t !== null) return t;
  }
  throw new ValidationError(path, v, 'a time in milliseconds (a number >= 0) or a duration such as "30s", "500ms", "2m"');
}

function readWait(v: unknown, path: string): RollWait {
  if (v === undefined || v === 'no-under-replicated') return { kind: 'no-under-replicated' };
  if (typeof v === 'number' || (typeof v === 'string' && parseDuration(v) !== null)) return { kind: 'pause', us: readTime(v, path) };
  throw new ValidationError(path, v, '"no-under-replicated" (until the node is back and no partition is under-replicated) or a pause such as "30s"');
}

export interface ActionContext {
  readonly durationUs: Micros;
  /** Topic name -> partition count, as the scenario declares them. */
  readonly topics: ReadonlyMap<string, number>;
  /** The hosts and selectors a target may name. */
  readonly resolver: TargetResolver;
  /** Broker ids are 1..brokers. */
  readonly brokers: number;
}

/** A topic of the scenario and one of its partitions (as declared; create-partitions may add more later). */
function readTopicPartition(o: Record<string, unknown>, path: string, topics: ReadonlyMap<string, number>): { topic: string; partition: number } {
  const topic = expectString(o.topic, join(path, 'topic'));
  const n = topics.get(topic);
  if (n === undefined) throw new ValidationError(join(path, 'topic'), topic, `a topic of this scenario (${[...topics.keys()].join(', ') || 'none declared'})`);
  const partition = expectNumber(o.partition, join(path, 'partition'), { min: 0, max: n - 1, integer: true });
  return { topic, partition };
}

/**
 * Checks the operator actions: each names a known action, happens within the duration, and makes sense for the
 * scenario at that moment (a partition count only grows, counting earlier actions on the same topic; a rolling
 * restart names hosts of this scenario).
 */
export function readActions(v: unknown, ctx: ActionContext): ScenarioAction[] {
  if (v === undefined) return [];
  const entries = expectArray(v, 'actions').map((a, index): ScenarioAction => {
    const p = join('actions', index);
    if (!isRecord(a)) throw new ValidationError(p, a, 'an object with "at" and "action"');
    const action = expectOneOf(a.action, join(p, 'action'), Object.keys(ACTION_KINDS) as ActionKind[]);
    const o = expectObject(a, p, ['at', 'action', ...ACTION_KINDS[action]]);
    const atUs = readTime(o.at, join(p, 'at'));
    if (atUs > ctx.durationUs) throw new ValidationError(join(p, 'at'), o.at, `a time within the duration (${ctx.durationUs / 1000} ms)`);
    switch (action) {
      case 'create-partitions': {
        const topic = expectString(o.topic, join(p, 'topic'));
        if (!ctx.topics.has(topic)) throw new ValidationError(join(p, 'topic'), topic, `a topic of this scenario (${[...ctx.topics.keys()].join(', ') || 'none declared'})`);
        const count = expectNumber(o.count, join(p, 'count'), { min: 1, max: 10_000, integer: true });
        return { index, atUs, action, topic, count };
      }
      case 'rolling-restart': {
        const targets = readSelectors(o.targets, join(p, 'targets'), ctx.resolver);
        const via = o.via === undefined ? 'stop' : expectOneOf(o.via, join(p, 'via'), ['stop', 'crash'] as const);
        const wait = readWait(o.wait, join(p, 'wait'));
        const downUs = o.down === undefined ? 0 : readTime(o.down, join(p, 'down'));
        const timeoutUs = o.timeout === undefined ? DEFAULT_ROLL_TIMEOUT_US : readTime(o.timeout, join(p, 'timeout'));
        if (timeoutUs <= 0) throw new ValidationError(join(p, 'timeout'), o.timeout, 'a duration > 0');
        const failToStart = o.failToStart === undefined ? [] : readSelectors(o.failToStart, join(p, 'failToStart'), ctx.resolver);
        return { index, atUs, action, targets, via, wait, downUs, timeoutUs, failToStart };
      }
      case 'reassign-partitions': {
        const seen = new Set<string>();
        const partitions = expectArray(o.partitions, join(p, 'partitions'), { minLength: 1 }).map((x, i) => {
          const pp = join(join(p, 'partitions'), i);
          const po = expectObject(x, pp, ['topic', 'partition', 'replicas']);
          const tp = readTopicPartition(po, pp, ctx.topics);
          if (seen.has(tpKey(tp.topic, tp.partition))) throw new ValidationError(join(pp, 'partition'), tp.partition, `a partition not already listed in this reassignment`);
          seen.add(tpKey(tp.topic, tp.partition));
          const replicas = expectArray(po.replicas, join(pp, 'replicas'), { minLength: 1 }).map((b, k) => expectNumber(b, join(join(pp, 'replicas'), k), { min: 1, max: ctx.brokers, integer: true }));
          if (new Set(replicas).size !== replicas.length) throw new ValidationError(join(pp, 'replicas'), po.replicas, 'distinct broker ids');
          return { ...tp, replicas };
        });
        const throttle = o.throttle === undefined ? null : expectNumber(o.throttle, join(p, 'throttle'), { min: 1, integer: true });
        return { index, atUs, action, partitions, throttle };
      }
      case 'elect-leaders': {
        const election = o.election === undefined ? 'PREFERRED' : expectOneOf(o.election, join(p, 'election'), ['preferred', 'unclean'] as const) === 'preferred' ? 'PREFERRED' : 'UNCLEAN';
        const partitions =
          o.partitions === undefined
            ? null
            : expectArray(o.partitions, join(p, 'partitions'), { minLength: 1 }).map((x, i) => {
                const pp = join(join(p, 'partitions'), i);
                return readTopicPartition(expectObject(x, pp, ['topic', 'partition']), pp, ctx.topics);
              });
        return { index, atUs, action, election, partitions };
      }
    }
  });
  // Partition counts only grow: check each action against the count the earlier ones leave.
  const counts = new Map(ctx.topics);
  for (const a of [...entries].sort((x, y) => x.atUs - y.atUs || x.index - y.index)) {
    if (a.action !== 'create-partitions') continue;
    const now = counts.get(a.topic)!;
    if (a.count <= now) {
      throw new ValidationError(join(join('actions', a.index), 'count'), a.count, `more than the ${now} partition(s) topic "${a.topic}" has by then (partitions are never removed)`);
    }
    counts.set(a.topic, a.count);
  }
  return entries;
}

/** One line for the trace and the report: what the action does. */
export function describeAction(a: ScenarioAction): string {
  switch (a.action) {
    case 'create-partitions':
      return `${a.topic} to ${a.count} partitions`;
    case 'rolling-restart': {
      const wait = a.wait.kind === 'pause' ? `a ${a.wait.us / 1000} ms pause` : 'no under-replicated partitions';
      return `${a.via === 'stop' ? 'stop' : 'kill -9'} ${a.targets.join(', ')} one at a time, waiting for ${wait}`;
    }
    case 'reassign-partitions':
      return `${a.partitions.map((x) => `${x.topic}-${x.partition} to [${x.replicas.join(',')}]`).join(', ')}${a.throttle === null ? '' : ` throttled to ${a.throttle} B/s`}`;
    case 'elect-leaders':
      return `${a.election.toLowerCase()} election for ${a.partitions === null ? 'every partition' : a.partitions.map((x) => tpKey(x.topic, x.partition)).join(', ')}`;
  }
}
