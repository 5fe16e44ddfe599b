import { ValidationError, expectArray, expectNumber, expectObject, expectOneOf, expectString, isRecord, join } from '../core/validate';
import type { PoisonPill, ProcessingModel, ProcessingTime, SeekTarget } from '../kafka/client/consumer/processingModel';
import type { Micros } from '../core/time';
import { readTime, readTimeWithin } from './validate';

const MODEL_FIELDS = ['recordTime', 'commit', 'poisonPills', 'handoff', 'stalls', 'seeks', 'pollTimeoutMs', 'stop'] as const;

/**
 * Reads a consumer's processing model from a scenario document. Times are scenario times (ms or
 * duration texts); the runner shifts them onto the simulated clock.
 */
export function validateProcessing(raw: unknown, path: string, run: { readonly endUs: Micros; readonly quietUs: Micros } = { endUs: Infinity, quietUs: 0 }): ProcessingModel {
  const within = (v: unknown, p: string) => readTimeWithin(v, p, run.endUs, 'run', run.quietUs) / 1000;
  if (raw === undefined) return {};
  const o = expectObject(raw, path, MODEL_FIELDS);
  const m: { -readonly [K in keyof ProcessingModel]: ProcessingModel[K] } = {};
  if (o.recordTime !== undefined) m.recordTime = readRecordTime(o.recordTime, join(path, 'recordTime'));
  if (o.commit !== undefined) m.commit = expectOneOf(o.commit, join(path, 'commit'), ['auto', 'sync', 'async', 'before-processing', 'none'] as const);
  if (o.pollTimeoutMs !== undefined) m.pollTimeoutMs = expectNumber(o.pollTimeoutMs, join(path, 'pollTimeoutMs'), { min: 0, max: 600_000 });
  if (o.stop !== undefined) m.stopMs = within(o.stop, join(path, 'stop'));
  if (o.handoff !== undefined) {
    const h = expectObject(o.handoff, join(path, 'handoff'), ['maxQueuedRecords']);
    m.handoff = h.maxQueuedRecords === undefined ? {} : { maxQueuedRecords: expectNumber(h.maxQueuedRecords, join(path, 'handoff.maxQueuedRecords'), { min: 1, integer: true }) };
  }
  if (o.poisonPills !== undefined) {
    m.poisonPills = expectArray(o.poisonPills, join(path, 'poisonPills')).map((p, i) => readPill(p, join(join(path, 'poisonPills'), i)));
  }
  if (o.stalls !== undefined) {
    m.stalls = expectArray(o.stalls, join(path, 'stalls')).map((s, i) => {
      const sp = join(join(path, 'stalls'), i);
      const so = expectObject(s, sp, ['at', 'duration']);
      return { atMs: within(so.at, join(sp, 'at')), durationMs: readTime(so.duration, join(sp, 'duration')) / 1000 };
    });
  }
  if (o.seeks !== undefined) {
    m.seeks = expectArray(o.seeks, join(path, 'seeks')).map((s, i) => {
      const sp = join(join(path, 'seeks'), i);
      const so = expectObject(s, sp, ['at', 'to']);
      return { atMs: within(so.at, join(sp, 'at')), to: readSeek(so.to, join(sp, 'to')) };
    });
  }
  return m;
}

export function readRecordTime(v: unknown, path: string): ProcessingTime {
  const o = expectObject(v, path, ['kind', 'ms', 'meanMs', 'stddevMs']);
  const kind = expectOneOf(o.kind, join(path, 'kind'), ['fixed', 'exponential', 'normal'] as const);
  switch (kind) {
    case 'fixed':
      return { kind, ms: expectNumber(o.ms, join(path, 'ms'), { min: 0, max: 3_600_000 }) };
    case 'exponential':
      return { kind, meanMs: expectNumber(o.meanMs, join(path, 'meanMs'), { min: 0, max: 3_600_000 }) };
    case 'normal':
      return {
        kind,
        meanMs: expectNumber(o.meanMs, join(path, 'meanMs'), { min: 0, max: 3_600_000 }),
        stddevMs: expectNumber(o.stddevMs, join(path, 'stddevMs'), { min: 0, max: 3_600_000 }),
      };
  }
}

function readPill(v: unknown, path: string): PoisonPill {
  const o = expectObject(v, path, ['keyPrefix', 'valuePrefix', 'policy']);
  if (o.keyPrefix === undefined && o.valuePrefix === undefined) throw new ValidationError(path, v, 'a keyPrefix or a valuePrefix that marks the poison records');
  const po = expectObject(o.policy, join(path, 'policy'), ['kind', 'topic', 'attempts', 'backoffMs']);
  const kind = expectOneOf(po.kind, join(path, 'policy.kind'), ['retry-forever', 'skip', 'dead-letter'] as const);
  const backoff = po.backoffMs === undefined ? {} : { backoffMs: expectNumber(po.backoffMs, join(path, 'policy.backoffMs'), { min: 0, max: 3_600_000 }) };
  const policy =
    kind === 'skip'
      ? { kind }
      : kind === 'retry-forever'
        ? { kind, ...backoff }
        : { kind, topic: expectString(po.topic, join(path, 'policy.topic')), attempts: expectNumber(po.attempts, join(path, 'policy.attempts'), { min: 1, max: 1000, integer: true }), ...backoff };
  return {
    ...(o.keyPrefix !== undefined && { keyPrefix: expectString(o.keyPrefix, join(path, 'keyPrefix')) }),
    ...(o.valuePrefix !== undefined && { valuePrefix: expectString(o.valuePrefix, join(path, 'valuePrefix')) }),
    policy,
  };
}

function readSeek(v: unknown, path: string): SeekTarget {
  if (v === 'beginning' || v === 'end') return v;
  if (isRecord(v)) {
    const o = expectObject(v, path, ['offset', 'timestampMs']);
    if (o.offset !== undefined) return { offset: expectNumber(o.offset, join(path, 'offset'), { min: 0, integer: true }) };
    // A scenario time (ms or a duration text): the first record written at or after it.
    if (o.timestampMs !== undefined) return { timestampMs: readTime(o.timestampMs, join(path, 'timestampMs')) / 1000 };
  }
  throw new ValidationError(path, v, '"beginning", "end", {"offset": n} or {"timestampMs": t}');
}
