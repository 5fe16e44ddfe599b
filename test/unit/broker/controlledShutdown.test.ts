import { describe, expect, it } from 'vitest';
import { ofKind, type TraceEventOf, type TraceKind } from '../../../sim/core/trace';
import { BROKER_SHUTDOWN_TIMEOUT_MS } from '../../../sim/kafka/broker/broker';
import { runScenario, type RunResult } from '../../../sim/scenario/runner';
import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { validateScenario } from '../../../sim/scenario/validate';

/** A small cluster under an acks=all producer, with one fault; short runs (a few simulated seconds of interest). */
function run(faults: ScenarioSpec['faults'], extra: Partial<ScenarioSpec> = {}): RunResult {
  return runScenario(
    validateScenario({
      id: 'controlled-shutdown',
      duration: '18s',
      quiet: '2s',
      topics: [{ name: 't', partitions: 3, replicationFactor: 3, config: { 'min.insync.replicas': 2 } }],
      producers: [{ id: 'p1', config: { acks: 'all' }, workload: { topic: 't', rate: 100 } }],
      faults,
      ...extra,
    }),
  );
}

const after = (r: RunResult, ms: number) => r.startUs + ms * 1000;
const of = <K extends TraceKind>(r: RunResult, kind: K, node?: string): TraceEventOf<K>[] => ofKind(r.trace, kind).filter((e) => node === undefined || e.node === node);
const first = <K extends TraceKind>(r: RunResult, kind: K, pred: (e: TraceEventOf<K>) => boolean = () => true): TraceEventOf<K> | undefined => ofKind(r.trace, kind).find(pred);

/** The leader of every partition of `topic` as the committed controller.partition events say, at time t. */
function leadersAt(r: RunResult, topic: string, t: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of r.trace) {
    if (e.t > t) break;
    if (e.kind === 'controller.partition' && e.topic === topic) out.set(e.partition, e.leader);
  }
  return out;
}

describe('controlled shutdown end to end [BrokerLifecycleManager, BrokerServer.shutdown, handleBrokerInControlledShutdown]', () => {
  it('stop: the controller moves every leadership away before the process exits; the restart is clean and skips recovery', () => {
    const r = run([{ at: '5s', fault: 'stop', targets: ['broker-1'], duration: '5s' }]);
    // Kafka's BrokerState through the stop and the restart.
    expect(of(r, 'broker.state', 'broker-1').filter((e) => e.t >= after(r, 5000)).map((e) => e.state)).toEqual(['pending-controlled-shutdown', 'shutting-down', 'recovery', 'running']);
    // BrokerHeartbeatManager's transitions, in order: UNFENCED -> CONTROLLED_SHUTDOWN -> SHUTDOWN_NOW.
    const changes = of(r, 'controller.broker').filter((e) => e.broker === 1 && e.t >= after(r, 5000)).map((e) => e.change);
    expect(changes).toEqual(['controlled_shutdown', 'shutdown_now', 'registered', 'unfenced']);
    const exit = first(r, 'process.exit', (e) => e.process === 'broker-1')!;
    expect(exit.reason).toBe('clean shutdown');
    expect(first(r, 'broker.shutdown')!['reason']).toMatch(/SHUTDOWN_NOW/);
    // Every partition broker 1 led got a new leader from the ISR, elected for the controlled shutdown, before it exited.
    const moved = of(r, 'controller.election').filter((e) => e.previousLeader === 1 && e.t < exit.t);
    expect(moved.length).toBeGreaterThan(0);
    for (const e of moved) expect([e.reason, e.source]).toEqual(['enterControlledShutdown[1]', 'ISR']);
    expect([...leadersAt(r, 't', exit.t).values()]).not.toContain(1);
    // The clean-shutdown file named its epoch: the controller sees a clean shutdown and the logs skip recovery.
    const registered = of(r, 'controller.broker').find((e) => e.broker === 1 && e.change === 'registered' && e.t > exit.t)!;
    expect(registered.reason).toBe('clean shutdown');
    const recovered = of(r, 'log.recovery', 'broker-1').filter((e) => e.t > exit.t);
    expect(recovered.length).toBeGreaterThan(0);
    expect(recovered.every((e) => e.cleanShutdown === true)).toBe(true);
    // The writes never stalled for a session timeout, and none was lost.
    expect(r.checks['lost-write']!.count).toBe(0);
    expect(r.checks['unavailability.longest-ms']!.count).toBeLessThan(500);
  });

  it('crash (kill -9) instead: no clean-shutdown file, the controller fences after the session timeout, recovery runs', () => {
    const r = run([{ at: '5s', fault: 'crash', targets: ['broker-1'], duration: '11s' }]);
    const changes = of(r, 'controller.broker').filter((e) => e.broker === 1 && e.t >= after(r, 5000));
    expect(changes.map((e) => e.change)).toEqual(['fenced', 'registered', 'unfenced']);
    // Fenced by broker.session.timeout.ms (9 s) after its last heartbeat, not at once.
    expect(changes[0]!.t - after(r, 5000)).toBeGreaterThan(6_500_000);
    expect(changes[1]!['reason']).toBe('unclean shutdown');
    expect(of(r, 'log.recovery', 'broker-1').filter((e) => e.t > after(r, 5000)).every((e) => e.cleanShutdown === false)).toBe(true);
    expect(r.checks['unavailability.longest-ms']!.count).toBeGreaterThan(5000);
  });

  it('controlled.shutdown.enable=false: the broker exits at once, still cleanly, and its partitions wait for the fencing', () => {
    const r = run([{ at: '5s', fault: 'stop', targets: ['broker-1'], duration: '11s' }], { cluster: { broker: { 'controlled.shutdown.enable': false } } });
    expect(first(r, 'broker.shutdown')!['reason']).toBe('controlled.shutdown.enable=false');
    const changes = of(r, 'controller.broker').filter((e) => e.broker === 1 && e.t >= after(r, 5000));
    expect(changes.map((e) => [e.change, e.reason])).toEqual([
      ['fenced', 'no heartbeat for broker.session.timeout.ms=9000'],
      ['registered', 'clean shutdown'],
      ['unfenced', 'heartbeat'],
    ]);
    expect(r.checks['unavailability.longest-ms']!.count).toBeGreaterThan(5000);
  });

  it('cut off from the controller: the broker gives up after the shutdown timeout and exits anyway', () => {
    const r = run(
      [
        { at: '2s', fault: 'isolate', targets: ['broker-1'], duration: '400s' },
        { at: '3s', fault: 'stop', targets: ['broker-1'] },
      ],
      { duration: '310s', quiet: '0s', producers: [] },
    );
    const exit = first(r, 'process.exit', (e) => e.process === 'broker-1')!;
    expect(exit.t - after(r, 3000)).toBeGreaterThanOrEqual(BROKER_SHUTDOWN_TIMEOUT_MS * 1000);
    expect(exit.t - after(r, 3000)).toBeLessThan(BROKER_SHUTDOWN_TIMEOUT_MS * 1000 + 1_000_000);
    expect(first(r, 'broker.shutdown')!['reason']).toMatch(/timed out after 300000 ms/);
  });

  it('ELR: a cleanly stopped replica keeps its ELR membership when it registers again; a crashed one loses it (KIP-966)', () => {
    // RF 2, min ISR 2: the follower leaving makes the ISR [1] < 2, so it enters the ELR.
    const elrAtRegistration = (fault: 'stop' | 'crash'): number[] => {
      const r = run([{ at: '3s', fault, targets: ['broker-2'], duration: '12s' }], {
        topics: [{ name: 't', partitions: 1, replicationFactor: 2, config: { 'min.insync.replicas': 2 }, assignment: [[1, 2]] }],
        producers: [],
        consumers: [],
      });
      const reg = of(r, 'controller.broker').find((e) => e.broker === 2 && e.change === 'registered' && e.t > after(r, 3000))!;
      let elr: number[] = [];
      for (const e of r.trace) {
        if (e === reg) break;
        if (e.kind === 'controller.partition' && e.topic === 't') elr = e.elr;
      }
      return elr;
    };
    expect(elrAtRegistration('stop')).toEqual([2]);
    expect(elrAtRegistration('crash')).toEqual([]);
  });

  it('stopping the active controller: it resigns at once and a successor leads within a round of elections', () => {
    const r = run([{ at: '5s', fault: 'stop', targets: ['controller:active'], duration: '3s' }]);
    const stopped = first(r, 'host.stop')!;
    const successor = first(r, 'controller.active', (e) => e.t > stopped.t)!;
    expect(successor.node).not.toBe(stopped.node);
    expect(successor.t - stopped.t).toBeLessThan(500_000);
    const exit = first(r, 'process.exit', (e) => e.process === stopped.node)!;
    expect(exit.reason).toBe('clean shutdown');
    expect(first(r, 'raft.state-change', (e) => e.node === stopped.node && e.reason === 'shutdown')!['state']).toBe('Resigned');
    expect(r.checks['unavailability.longest-ms']!.count).toBeLessThan(500);
  });
});
