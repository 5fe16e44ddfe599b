import type { ProcessContext } from '../../../sim/world/host';
import { Process } from '../../../sim/world/process';
import { World } from '../../../sim/world/world';
import type { DiskConfig } from '../../../sim/world/disk';
import { buildBatch, type RecordBatch } from '../../../sim/kafka/records';
import { actorTaskScheduler, directTaskScheduler } from '../../../sim/kafka/log/taskScheduler';
import { logConfig, type LogConfig } from '../../../sim/kafka/log/logConfig';
import { UnifiedLog, type LogEnvironment, type LogOpenOptions } from '../../../sim/kafka/log/unifiedLog';
import { ofKind, type TraceEventOf, type TraceKind } from '../../../sim/core/trace';

/** A process that does nothing but own timers, so they die with it on a crash or power loss. */
export class IdleProcess extends Process {
  constructor(ctx: ProcessContext) {
    super('broker', ctx);
  }
  onMessage(): void {}
}

export const TP = { topic: 'orders', partition: 0 };

/** A world with one host; the log runs on the world's scheduler directly (timers never die). */
export function directEnv(seed = 1, disk: Partial<DiskConfig> = {}) {
  const w = new World({ seed, disk });
  const h = w.addHost({ id: 'b1' });
  const env: LogEnvironment = { disk: h.disk, trace: w.trace, node: 'b1', tasks: directTaskScheduler(w.scheduler), random: w.random.fork('log') };
  return { w, h, env };
}

/** A world with one host running one process whose timers the log uses (they die with the process). */
export function processEnv(seed = 1, disk: Partial<DiskConfig> = {}) {
  const w = new World({ seed, disk });
  const h = w.addHost({ id: 'b1', startupDelayMs: 0 });
  h.addProcess({ id: 'broker', create: (ctx) => new IdleProcess(ctx) });
  w.start();
  const envOf = (): LogEnvironment => {
    const p = h.process('broker');
    if (!p) throw new Error('the broker process is not running');
    return { disk: h.disk, trace: w.trace, node: 'b1', tasks: actorTaskScheduler(p), random: w.random.fork(`log#${p.incarnation}`) };
  };
  /** Power loss, then power on and run until the process is back. */
  const powerCycle = () => {
    h.powerOff();
    h.restart(0);
    w.runUntil(w.now);
  };
  const crashCycle = () => {
    h.crash();
    h.restart(0);
    w.runUntil(w.now);
  };
  return { w, h, envOf, powerCycle, crashCycle };
}

export function openLog(env: LogEnvironment, config: Partial<LogConfig> = {}, opts: Partial<LogOpenOptions> = {}): UnifiedLog {
  return UnifiedLog.open(env, { topicPartition: TP, config: logConfig(config), ...opts });
}

/** A batch of records with the given keys and values, all at timestamp `ts`. */
export function kv(pairs: readonly (readonly [string | null, string | null])[], ts = 0, producer: { producerId?: number; producerEpoch?: number; baseSequence?: number } = {}): RecordBatch {
  return buildBatch(
    pairs.map(([key, value]) => ({ key, value, timestamp: ts })),
    producer,
  );
}

/** A batch of `n` records with values v<i>, no keys. */
export function values(n: number, ts = 0, prefix = 'v'): RecordBatch {
  return buildBatch(
    Array.from({ length: n }, (_, i) => ({ key: null, value: `${prefix}${i}`, timestamp: ts })),
  );
}

export function eventsOf<K extends TraceKind>(w: World, kind: K): TraceEventOf<K>[] {
  return ofKind(w.memory?.events ?? [], kind);
}

/** Every record of a log as (offset, key, value), in log order. */
export function allRecords(log: UnifiedLog): { offset: number; key: string | null; value: string | null; epoch: number }[] {
  const out: { offset: number; key: string | null; value: string | null; epoch: number }[] = [];
  for (const s of log.logSegments()) {
    for (const b of s.batches) for (const r of b.recordList()) out.push({ offset: b.baseOffset + r.offsetDelta, key: r.key, value: r.value, epoch: b.partitionLeaderEpoch });
  }
  return out;
}

/** Reads the whole log from `from` like a consumer does (one segment per fetch), returning every batch. */
export function readAll(log: UnifiedLog, from = log.logStartOffset, maxOffsetExclusive = log.logEndOffset): RecordBatch[] {
  const out: RecordBatch[] = [];
  let offset = from;
  for (let guard = 0; guard < 1_000_000 && offset < maxOffsetExclusive; guard++) {
    const r = log.read(offset, 1 << 20, maxOffsetExclusive, true);
    if (r.error !== null) throw new Error(r.message);
    if (r.batches.length === 0) break;
    for (const b of r.batches) out.push(b);
    const last = r.batches[r.batches.length - 1]!;
    offset = last.baseOffset + last.lastOffsetDelta + 1;
  }
  return out;
}
