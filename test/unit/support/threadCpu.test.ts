import { describe, expect, it } from 'vitest';
import { ownThreadCpuNs, ownThreadId, threadCpuMs } from '../../support/threadCpu';

/*
 * Per-thread CPU time from /proc: the fuzz harness judges a case by it, the chaos bench a worker. A thread that
 * spins sees its own count grow by at least what it spun, however long a busy machine made it wait.
 */
describe('thread CPU time', () => {
  it('reads a thread\'s own CPU time from its stat ticks', () => {
    const tid = ownThreadId();
    expect(tid).not.toBeNull();
    const before = threadCpuMs(tid!)!;
    // Spin until the thread has used 100 ms of CPU: on a busy machine that takes longer in wall-clock time.
    const t0 = performance.now();
    let used = 0;
    while (used < 100 && performance.now() - t0 < 20_000) used = threadCpuMs(tid!)! - before;
    expect(used).toBeGreaterThanOrEqual(100);
    // /proc counts in 10 ms ticks and `before` may be read just before one lands: allow three ticks of slack (a
    // 100 ms spin once read as 110 ms of CPU in 91 ms of wall time under load).
    expect(performance.now() - t0).toBeGreaterThanOrEqual(used - 30);
  });

  it('reads the calling thread\'s CPU time in ns from its schedstat, never more than the wall time passed', () => {
    const before = ownThreadCpuNs();
    expect(before).not.toBeNull();
    const t0 = performance.now();
    let usedNs = 0;
    while (usedNs < 50e6 && performance.now() - t0 < 20_000) usedNs = ownThreadCpuNs()! - before!;
    const wallNs = (performance.now() - t0) * 1e6;
    expect(usedNs).toBeGreaterThanOrEqual(50e6);
    // A thread cannot use more CPU than the time that passed. The kernel brings a running thread's schedstat up
    // to date only at a scheduler tick or a context switch, so `before` may lag by up to one tick (4 ms at
    // HZ=250, 10 ms at HZ=100): CI once read 51.9 ms of CPU in 50.3 ms of wall time. Allow one tick and 1 ms.
    expect(usedNs).toBeLessThanOrEqual(wallNs + 11e6);
    // It is this thread's count: the whole process's (stat ticks of the main thread) agree to within a few ticks.
    const tickMs = threadCpuMs(ownThreadId()!)!;
    expect(Math.abs(tickMs - ownThreadCpuNs()! / 1e6)).toBeLessThan(50);
  });
});
