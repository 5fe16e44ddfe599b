import { formatTime } from '../core/time';
import type { TraceEvent, UntypedTraceEvent } from '../core/trace';
import type { History, SendOp } from './history';

/**
 * The story of a lost write, told from the trace: who acknowledged it and when, which replicas held it
 * (and whether any fsynced it), which fault removed it, and which election made it unreachable.
 */
export function lostWriteStory(events: readonly TraceEvent[], h: History, s: SendOp): string[] {
  const at = (t: number) => formatTime(t - h.startUs);
  const story: string[] = [];
  const la = s.leaderAppend;
  const topic = s.topic;
  const partition = la?.partition ?? s.partition;
  const offset = s.offset >= 0 ? s.offset : (la?.offset ?? -1);
  const epoch = la?.epoch ?? -1;
  const where = `${topic}-${partition}`;
  story.push(`${s.producer} sent ${s.value} at ${at(s.invokeUs)}.`);
  if (la) story.push(`Broker ${la.broker}, leader in epoch ${la.epoch}, appended it at offset ${la.offset} at ${at(la.t)}.`);
  story.push(
    s.acks === '0'
      ? `With acks=0 the producer counted it as sent at ${at(s.ackUs)} without any answer.`
      : `Broker ${s.broker} acknowledged it at ${at(s.ackUs)} (acks=${s.acks}).`,
  );
  if (offset < 0) return story;
  const holders = new Set<number>();
  const hostOf = (b: number) => `broker-${b}`;
  const relevant = new Set<string>();
  // Nothing before the send can be part of its story: start at the first event of that moment (events are in time order).
  const from = Math.min(la?.t ?? s.invokeUs, s.invokeUs) - 1;
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid]!.t < from) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < events.length; i++) {
    const e = events[i]!;
    if ((e as UntypedTraceEvent).topic !== topic || (e as UntypedTraceEvent).partition !== partition) {
      if (e.kind === 'fault.start' || e.kind === 'fault.end' || e.kind === 'host.crash' || e.kind === 'host.stop' || e.kind === 'host.power-off' || e.kind === 'disk.power-loss' || e.kind === 'host.restart') {
        if (e.t >= (la?.t ?? s.invokeUs) - 1) {
          const hosts = 'hosts' in e ? e.hosts : [e.node];
          if (hosts.some((x) => [...holders].map(hostOf).includes(x) || relevant.has(x))) story.push(describeHostEvent(e, at));
        }
      }
      continue;
    }
    switch (e.kind) {
      case 'replica.append': {
        const base = e.base as number;
        const last = e.last as number;
        if (base <= offset && offset <= last && (e.epoch as number) === epoch && e.role === 'follower') {
          holders.add(e.broker as number);
          relevant.add(hostOf(e.broker as number));
          story.push(`Broker ${e.broker as number} copied it at ${at(e.t)}.`);
        }
        if (e.role === 'leader' && base <= offset && offset <= last && (e.epoch as number) === epoch) {
          holders.add(e.broker as number);
          relevant.add(hostOf(e.broker as number));
        }
        break;
      }
      case 'log.flush': {
        if ((e.upTo as number) > offset && holders.has(Number(/\d+$/.exec(e.node)?.[0] ?? -1))) {
          story.push(`${e.node} fsynced it (durable at ${at(e.completesAt as number)}).`);
        }
        break;
      }
      case 'replica.truncate': {
        const from = e.from as number;
        const to = e.to as number;
        if (to <= offset && offset < from && holders.has(e.broker as number)) {
          story.push(`Broker ${e.broker as number} truncated offsets ${to}..${from - 1} at ${at(e.t)} (${String(e.reason)}), following leader ${e.leader as number} in epoch ${e.leaderEpoch as number}.`);
        }
        break;
      }
      case 'log.recovery': {
        if (e.t < s.ackUs || !holders.has(Number(/\d+$/.exec(e.node)?.[0] ?? -1))) break;
        story.push(`${e.node} recovered its log of ${where} at ${at(e.t)} from what survived on disk.`);
        break;
      }
      case 'log.truncate': {
        const rf = e.removedFrom as number | null;
        const rt = e.removedTo as number | null;
        if (rf !== null && rt !== null && rf <= offset && offset < rt && !story.some((x) => x.includes('truncated offsets') && x.includes(e.node))) {
          story.push(`${e.node} removed offsets ${rf}..${rt - 1} of ${where} at ${at(e.t)}.`);
        }
        break;
      }
      case 'controller.election': {
        if (e.t >= s.ackUs) {
          const src = e.source === null ? 'no replica could lead' : e.source === 'UNCLEAN' ? 'an unclean election (outside the ISR)' : e.source === 'LAST_KNOWN_LEADER' ? 'the last-known-leader rule' : `its ${String(e.source)}`;
          story.push(
            (e.leader as number) >= 0
              ? `The controller elected broker ${e.leader as number} leader of ${where} at ${at(e.t)} from ${src} (${String(e.reason)}); ISR ${JSON.stringify(e.isr)}.`
              : `${where} lost its leader at ${at(e.t)} (${String(e.reason)}).`,
          );
        }
        break;
      }
    }
  }
  if (story.length > 40) return [...story.slice(0, 38), `... (${story.length - 38} more steps)`];
  return story;
}

function describeHostEvent(e: TraceEvent, at: (t: number) => string): string {
  const t = at(e.t);
  switch (e.kind) {
    case 'fault.start':
      return `Fault at ${t}: ${String(e.fault)} of ${(e.hosts as string[]).join(', ')}${e.detail ? ` ${String(e.detail)}` : ''}.`;
    case 'fault.end':
      return `At ${t} the ${String(e.fault)} of ${(e.hosts as string[]).join(', ')} ended.`;
    case 'host.crash':
      return `${e.node} crashed at ${t} (its page cache survived).`;
    case 'host.stop':
      return `${e.node} was stopped (SIGTERM) at ${t}: a graceful shutdown.`;
    case 'host.power-off':
      return `${e.node} lost power at ${t}: whatever was not on disk is gone.`;
    case 'disk.power-loss': {
      const files = (e.files as { file: string; lost: number }[]).filter((f) => f.lost > 0 && f.file.includes('/'));
      return `${e.node}'s disk lost ${files.reduce((a, f) => a + f.lost, 0)} unflushed write(s) at ${t}.`;
    }
    case 'host.restart':
      return `${e.node} restarted at ${t}.`;
    default:
      return `${e.kind} at ${t}`;
  }
}
