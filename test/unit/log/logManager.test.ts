import { describe, expect, it } from 'vitest';
import { LogManager } from '../../../sim/kafka/log/logManager';
import { logConfig, logManagerConfig, type LogConfig, type LogManagerConfig } from '../../../sim/kafka/log/logConfig';
import { buildBatch } from '../../../sim/kafka/records';
import { ms, seconds } from '../../../sim/core/time';
import { eventsOf, kv, processEnv, values } from './logTestKit';

const A = { topic: 'orders', partition: 0 };
const B = { topic: 'orders', partition: 1 };
const C = { topic: 'my-topic.v2', partition: 12 };

function manager(envOf: ReturnType<typeof processEnv>['envOf'], broker: Partial<LogManagerConfig> = {}, topics: Record<string, Partial<LogConfig>> = {}) {
  return new LogManager(envOf(), logManagerConfig(broker), (topic) => logConfig(topics[topic] ?? {}));
}

describe('the log manager', () => {
  it('opens every log found on its disk at start-up, and creates new ones', () => {
    const { envOf, crashCycle } = processEnv(1, { writebackDelayMs: null });
    const m1 = manager(envOf);
    expect(m1.startup()).toEqual([]);
    m1.getOrCreateLog(A).appendAsLeader(values(3), 0, 0);
    m1.getOrCreateLog(C).appendAsLeader(values(2), 0, 0);
    m1.getOrCreateLog(B);
    crashCycle();
    const m2 = manager(envOf);
    const logs = m2.startup();
    expect(logs.map((l) => [l.name, l.logEndOffset])).toEqual([
      ['my-topic.v2-12', 2],
      ['orders-0', 3],
      ['orders-1', 0],
    ]);
    expect(m2.getLog(A)).toBe(logs[1]);
    expect(m2.getOrCreateLog(A)).toBe(logs[1]);
  });

  it('runs retention after log.initial.task.delay.ms, then every log.retention.check.interval.ms', () => {
    const { w, envOf } = processEnv();
    const m = manager(envOf, { 'log.initial.task.delay.ms': 30_000, 'log.retention.check.interval.ms': 60_000 }, { orders: { 'retention.ms': 10_000, 'segment.bytes': 200 } });
    m.startup();
    const log = m.getOrCreateLog(A);
    for (let i = 0; i < 10; i++) log.appendAsLeader(buildBatch([{ key: null, value: `v${i}`, timestamp: 0 }]), 0, 0);
    log.updateHighWatermark(log.logEndOffset);
    w.runUntil(seconds(29));
    expect(eventsOf(w, 'log.retention')).toEqual([]);
    w.runUntil(seconds(30));
    expect(eventsOf(w, 'log.retention')).toHaveLength(1);
    expect(log.logStartOffset).toBe(log.activeSegment.baseOffset);
    // New old data is only noticed at the next check, 60 s later.
    for (let i = 0; i < 10; i++) log.appendAsLeader(buildBatch([{ key: null, value: `w${i}`, timestamp: 30_000 }]), 0, 30_000);
    log.updateHighWatermark(log.logEndOffset);
    w.runUntil(seconds(89));
    expect(eventsOf(w, 'log.retention')).toHaveLength(1);
    w.runUntil(seconds(90));
    expect(eventsOf(w, 'log.retention')).toHaveLength(2);
  });

  it('checkpoints high watermarks every 5 s; a restarted broker starts from the last checkpoint', () => {
    const { w, envOf, powerCycle } = processEnv(1, { writebackDelayMs: null, fsyncLatencyMs: 1 });
    const m = manager(envOf, { 'replica.high.watermark.checkpoint.interval.ms': 5000 });
    m.startup();
    const log = m.getOrCreateLog(A);
    log.appendAsLeader(values(10), 0, 0);
    w.runUntil(log.flush());
    log.updateHighWatermark(4);
    w.runUntil(seconds(5) + ms(10)); // checkpointed at 5 s
    log.updateHighWatermark(8); // not yet checkpointed
    w.runUntil(seconds(7));
    powerCycle();
    const m2 = manager(envOf);
    const [again] = m2.startup();
    expect(again!.highWatermark).toBe(4);
    expect(m2.readHighWatermarkCheckpoint().get('orders-0')).toBe(4);
  });

  it('cleans compacted logs with the log cleaner', () => {
    const { w, envOf } = processEnv();
    const m = manager(envOf, {}, { compacted: { 'cleanup.policy': 'compact', 'segment.bytes': 500 } });
    m.startup();
    const log = m.getOrCreateLog({ topic: 'compacted', partition: 0 });
    for (let i = 0; i < 100; i++) log.appendAsLeader(kv([[`k${i % 5}`, `v${i}`]]), 0, 0);
    log.updateHighWatermark(log.logEndOffset);
    w.runUntil(seconds(20));
    expect(eventsOf(w, 'log.clean')).toHaveLength(1);
    expect(m.cleaner?.checkpointOf(log)).toBe(log.activeSegment.baseOffset);
  });

  it('flushes by flush.ms only when log.flush.scheduler.interval.ms runs the flusher', () => {
    const run = (broker: Partial<LogManagerConfig>) => {
      const { w, h, envOf } = processEnv(1, { writebackDelayMs: null });
      const m = manager(envOf, { 'log.initial.task.delay.ms': 1000, ...broker }, { orders: { 'flush.ms': 2000 } });
      m.startup();
      const log = m.getOrCreateLog(A);
      log.appendAsLeader(values(3), 0, 0);
      w.runUntil(seconds(10));
      return h.disk.durableChunks(log.activeSegment.file);
    };
    expect(run({})).toBe(0);
    expect(run({ 'log.flush.scheduler.interval.ms': 1000 })).toBe(1);
  });

  it('marks a clean shutdown once everything is durable, and recovers as clean', () => {
    const { w, envOf, h } = processEnv(1, { writebackDelayMs: null });
    const m = manager(envOf);
    m.startup();
    m.getOrCreateLog(A).appendAsLeader(values(3), 0, 0);
    const done = m.shutdown(17);
    expect(done).toBeGreaterThan(w.now);
    w.runUntil(done);
    expect(h.disk.read('/tmp/kafka-logs/.kafka_cleanshutdown')[0]?.data).toEqual({ version: 0, brokerEpoch: 17 });
    // The broker exits only now; a power loss afterwards keeps everything.
    h.powerOff();
    h.restart(0);
    w.runUntil(w.now);
    const m2 = manager(envOf);
    const [log] = m2.startup();
    expect(m2.hadCleanShutdown).toBe(true);
    expect(log!.logEndOffset).toBe(3);
    expect(log!.recoveryPoint).toBe(3);
    expect(eventsOf(w, 'log.recovery').at(-1)).toMatchObject({ cleanShutdown: true });
  });

  it('is not marked clean when the power fails before the shutdown completes', () => {
    const { w, envOf, powerCycle } = processEnv(1, { writebackDelayMs: null });
    const m = manager(envOf);
    m.startup();
    m.getOrCreateLog(A).appendAsLeader(values(3), 0, 0);
    const done = m.shutdown();
    w.runUntil(done - 1);
    powerCycle();
    const m2 = manager(envOf);
    m2.startup();
    expect(m2.hadCleanShutdown).toBe(false);
  });

  it('deletes a log and its files', () => {
    const { envOf, h } = processEnv();
    const m = manager(envOf);
    m.startup();
    m.getOrCreateLog(A).appendAsLeader(values(3), 0, 0);
    expect(h.disk.list('/tmp/kafka-logs/orders-0/').length).toBeGreaterThan(0);
    expect(m.deleteLog(A)).toBe(true);
    expect(m.getLog(A)).toBeUndefined();
    expect(h.disk.list('/tmp/kafka-logs/orders-0/')).toEqual([]);
  });
});
