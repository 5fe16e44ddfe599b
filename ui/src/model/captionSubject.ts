import type { TraceModel } from './traceModel';

/** What a caption talks about, read from the event it is anchored to: the hosts, the replicas, the partition. */
export interface CaptionSubject {
  /** Host ids whose cards the caption names (broker-2, controller-1). */
  readonly hosts: readonly string[];
  /** Brokers whose replica rows it names. */
  readonly brokers: readonly number[];
  /** The partition key ("orders-0") it is about, if any. */
  readonly partition: string | null;
}

const NONE: CaptionSubject = { hosts: [], brokers: [], partition: null };

/**
 * The subject of the event at index `about`: its node when that is a broker or controller, the brokers its fields
 * name (broker, leader, previousLeader), a fault's hosts, and its topic-partition.
 */
export function captionSubject(model: TraceModel, about: number): CaptionSubject {
  if (about < 0 || about >= model.n) return NONE;
  const e = model.events[about]! as unknown as Record<string, unknown>;
  const hosts = new Set<string>();
  const brokers = new Set<number>();
  const node = String(e['node']);
  if (/^(broker|controller)-\d+$/.test(node)) hosts.add(node);
  for (const f of ['broker', 'leader', 'previousLeader']) {
    const b = e[f];
    if (typeof b === 'number' && b >= 0) {
      brokers.add(b);
      hosts.add(`broker-${b}`);
    }
  }
  if (Array.isArray(e['hosts'])) for (const h of e['hosts']) if (typeof h === 'string') hosts.add(h);
  // A fault on a broker names its replica rows too.
  for (const h of hosts) {
    const m = /^broker-(\d+)$/.exec(h);
    if (m) brokers.add(Number(m[1]));
  }
  const partition = typeof e['topic'] === 'string' && typeof e['partition'] === 'number' ? `${e['topic']}-${e['partition']}` : null;
  return { hosts: [...hosts], brokers: [...brokers], partition };
}
