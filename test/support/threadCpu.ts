/**
 * The CPU time of one thread of this process, read from Linux's /proc: a fuzz case is judged by the work it did,
 * and a benchmark worker by the CPU its own thread used, not by how long a machine shared with other jobs took to
 * give it that work. Linux only; elsewhere (or if /proc cannot be read) callers fall back to wall-clock time or
 * whole-process CPU.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU time in these ticks (100 on every mainstream kernel configuration). */
const TICKS_PER_SECOND = 100;

/** The calling thread's id (a worker thread asks for its own), or null when /proc has no thread-self. */
export function ownThreadId(): number | null {
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) the thread `tid` of this process has used, in ms; null if it cannot be read. */
export function threadCpuMs(tid: number): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis): state is
    // field 3, utime field 14, stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

/**
 * CPU time the calling thread has used, in ns, from /proc/thread-self/schedstat (the scheduler's own count, in
 * ns, where /proc's stat counts 10 ms ticks); null if it cannot be read.
 */
export function ownThreadCpuNs(): number | null {
  try {
    // "<ns on CPU> <ns waiting for a CPU> <time slices>"
    const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns : null;
  } catch {
    return null;
  }
}
