import type { Random } from '../../core/random';
import type { TimerId } from '../../core/scheduler';
import type { Micros } from '../../core/time';
import type { Trace } from '../../core/trace';
import type { Disk } from '../../world/disk';
import type { Process } from '../../world/process';
import type { RaftMessage } from './messages';

/**
 * Everything the raft client needs from the process that embeds it. The client is not an actor: the process
 * routes messages to it (`handleMessage`), tells it of disconnects, and lends it its timers, disk and network.
 */
export interface RaftIo {
  /** The process id, e.g. 'controller-1' or 'broker-2'. */
  readonly nodeId: string;
  now(): Micros;
  send(to: string, msg: RaftMessage, bytes: number): void;
  setTimer(delay: Micros, fn: () => void): TimerId;
  cancelTimer(id: TimerId): void;
  /** Close the connection to a peer (after a request timeout). */
  disconnect(peer: string): void;
  readonly disk: Disk;
  readonly random: Random;
  readonly trace: Trace;
}

/** The RaftIo of a process: its own timers, disk and connections, and a random stream forked for the raft client. */
export function processRaftIo(p: Process): RaftIo {
  return {
    nodeId: p.id,
    now: () => p.now,
    send: (to, msg, bytes) => p.send(to, msg, bytes),
    setTimer: (delay, fn) => p.setTimer(delay, fn),
    cancelTimer: (id) => p.cancelTimer(id),
    disconnect: (peer) => p.disconnect(peer),
    disk: p.disk,
    random: p.random.fork('raft'),
    trace: p.trace,
  };
}
