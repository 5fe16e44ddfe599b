import { rel } from '../lib/format';
import type { TraceModel } from './traceModel';
import type { ValueInfo } from './valueTable';

/**
 * What happened to a record's offset after its leader appended it, read from the trace: the elections of its
 * partition and the truncations that removed it from a replica. The checker writes a full story for the first lost
 * writes only; with these lines every record's story ends with how it was lost (or kept).
 */
export function recordAftermath(model: TraceModel, info: ValueInfo): string[] {
  if (info.offset < 0 || info.appendT < 0) return [];
  const lines: string[] = [];
  const t0 = model.t0;
  for (let i = info.appendI + 1; i < model.n; i++) {
    const e = model.events[i]! as unknown as Record<string, unknown> & { kind: string; t: number };
    if (e.kind !== 'controller.election' && e.kind !== 'replica.truncate') continue;
    if (e['topic'] !== info.topic || e['partition'] !== info.partition) continue;
    if (e.kind === 'controller.election') {
      const leader = e['leader'] as number;
      lines.push(leader >= 0 ? `The controller elected ${model.names.broker(leader)} leader in epoch ${String(e['leaderEpoch'])} at ${rel(e.t, t0)} (from ${String(e['source'] ?? 'the ISR')}).` : `At ${rel(e.t, t0)} the partition had no leader.`);
    } else {
      const from = e['from'] as number;
      const to = e['to'] as number;
      if (to <= info.offset && info.offset < from) lines.push(`Broker ${String(e['broker'])} truncated its log from ${from} to ${to} at ${rel(e.t, t0)} (${String(e['reason'])}): offset ${info.offset} was among the removed records.`);
    }
    if (lines.length >= 12) {
      lines.push('… (later moves of the partition: see the events view)');
      break;
    }
  }
  return lines;
}
