import type { TraceEvent } from '../../../sim/core/trace';
import { isIsrChange, num, nums, str, strs } from './fields';

const set = (xs: readonly number[]) => `{${xs.join(',')}}`;

/** One line of plain words for an event (text only; the caller puts it in the DOM as text). */
export function describeEvent(e: TraceEvent): string {
  const where = () => `${str(e, 'topic')}-${num(e, 'partition')}`;
  switch (e.kind) {
    case 'send.invoke':
      return `send ${str(e, 'value')} (key ${str(e, 'key', 'null')}) to ${where()}`;
    case 'send.ok': {
      const vs = strs(e, 'values');
      return `ack for ${vs.length} record(s) from broker ${num(e, 'broker')} at offset ${num(e, 'offset')} (acks=${str(e, 'acks')}): ${vs.slice(0, 3).join(', ')}${vs.length > 3 ? ', …' : ''}`;
    }
    case 'send.fail':
      return `send failed: ${str(e, 'error')} for ${strs(e, 'values').length} record(s)`;
    case 'send.retry':
      return `retry ${where()} after ${str(e, 'error')} (attempt ${num(e, 'attempt')})`;
    case 'replica.append':
      return `broker ${num(e, 'broker')} (${str(e, 'role')}) appends ${where()} offsets ${num(e, 'base')}..${num(e, 'last')} in epoch ${num(e, 'epoch')}`;
    case 'replica.hw':
      return `broker ${num(e, 'broker')} moves the high watermark of ${where()} to ${num(e, 'hw')} (LEO ${num(e, 'leo')})`;
    case 'replica.role':
      return `broker ${num(e, 'broker')} becomes ${str(e, 'role')} of ${where()} in epoch ${num(e, 'leaderEpoch')} (leader ${num(e, 'leader')}, ISR ${set(nums(e, 'isr'))})`;
    case 'replica.truncate':
      return `broker ${num(e, 'broker')} truncates ${where()} from ${num(e, 'from')} to ${num(e, 'to')} (${str(e, 'reason')})`;
    case 'replica.produce-rejected':
      return `rejects a produce to ${where()}: ${str(e, 'error')} (ISR ${set(nums(e, 'isr'))}, min.insync.replicas=${num(e, 'minIsr')})`;
    case 'controller.election': {
      const leader = num(e, 'leader');
      return leader >= 0
        ? `elects broker ${leader} leader of ${where()} in epoch ${num(e, 'leaderEpoch')} from ${str(e, 'source', 'none')} (${str(e, 'reason')}); ISR ${set(nums(e, 'isr'))}`
        : `${where()} has no leader (${str(e, 'reason')})`;
    }
    case 'controller.partition':
      return `${where()}: leader ${num(e, 'leader')}, epoch ${num(e, 'leaderEpoch')}, ISR ${set(nums(e, 'isr'))}, ELR ${set(nums(e, 'elr'))}`;
    case 'controller.active':
      return `becomes the active controller (epoch ${num(e, 'epoch')})`;
    case 'controller.inactive':
      return `is no longer the active controller`;
    case 'controller.broker':
      return `broker ${num(e, 'broker')} ${str(e, 'change')} (${str(e, 'reason')})`;
    case 'broker.state':
      return `broker state ${str(e, 'state')}`;
    case 'broker.registered':
      return `registered with broker epoch ${num(e, 'brokerEpoch')}`;
    case 'host.crash':
      return `crashes (the page cache survives)`;
    case 'host.stop':
      return `is stopped (SIGTERM): its processes shut down gracefully`;
    case 'process.exit':
      return `${str(e, 'process')} exits: ${str(e, 'reason')}`;
    case 'broker.shutdown':
      return `shuts down: ${str(e, 'reason')}`;
    case 'host.power-off':
      return `loses power (unflushed writes are gone)`;
    case 'host.restart':
      return `restarts (up in ${num(e, 'delayMs')} ms)`;
    case 'host.up':
      return `is up`;
    case 'host.pause':
      return `is paused`;
    case 'host.resume':
      return `resumes`;
    case 'disk.power-loss':
      return `disk keeps only what was fsynced`;
    case 'fault.start':
      return `fault: ${str(e, 'fault')} ${strs(e, 'hosts').join(', ')} ${str(e, 'detail')}`;
    case 'fault.end':
      return `end of ${str(e, 'fault')} ${strs(e, 'hosts').join(', ')}`;
    case 'net.send':
      return `${str(e, 'type')} to ${str(e, 'to')} (${num(e, 'bytes')} bytes, arrives ${((num(e, 'arrive') - e.t) / 1000).toFixed(3)} ms later)`;
    case 'net.drop':
      return `${str(e, 'type')} to ${str(e, 'to')} dropped (${str(e, 'reason')})`;
    case 'net.disconnect':
      return `connection to ${str(e, 'peer')} broken (${str(e, 'cause')})`;
    case 'log.flush':
      return `fsync ${where()} up to ${num(e, 'upTo')}`;
    case 'log.truncate':
      return `log ${where()} truncated to ${num(e, 'toOffset')} (removed ${num(e, 'removedRecords', 0)} record(s))`;
    case 'log.recovery':
      return `recovers ${where()}: log end ${num(e, 'logEndOffset')}, ${num(e, 'droppedRecords', 0)} record(s) dropped`;
    case 'log.roll':
      return `rolls a new segment of ${where()} at ${num(e, 'baseOffset')}`;
    case 'log.retention':
      return `retention deletes ${where()} offsets ${num(e, 'fromOffset')}..${num(e, 'toOffset')}`;
    case 'log.clean':
      return `compaction of ${where()} removed ${num(e, 'recordsRemoved', 0)} record(s)`;
    case 'raft.state-change':
      return `KRaft ${str(e, 'state')} in epoch ${num(e, 'epoch')} (${str(e, 'reason')})`;
    case 'raft.vote':
      return `${e['granted'] === true ? 'grants' : 'refuses'} ${e['preVote'] === true ? 'a pre-vote' : 'a vote'} to ${str(e, 'candidate')} (epoch ${num(e, 'epoch')})`;
    case 'raft.high-watermark':
      return `metadata log committed up to ${num(e, 'highWatermark')}`;
    case 'operator.step':
      return `rolling restart: ${str(e, 'step')} ${str(e, 'target')}${str(e, 'detail') ? ` — ${str(e, 'detail')}` : ''}`;
    case 'caption':
      return str(e, 'text');
    case 'consumer.poll':
      return `poll returned ${num(e, 'count')} record(s)`;
    case 'consumer.commit':
      return `commit (${str(e, 'source')}) ${e['ok'] === true ? 'ok' : `failed: ${str(e, 'error')}`}`;
    case 'consumer.assignment':
      return `owns ${strs(e, 'owned').join(', ') || 'nothing'} (generation ${num(e, 'generation')})`;
    case 'group.rebalance':
      return `group ${str(e, 'group')} generation ${num(e, 'generation')} with ${strs(e, 'members').length} member(s) (${str(e, 'reason')})`;
    case 'group.state':
      return `group ${str(e, 'group')} ${str(e, 'from')} → ${str(e, 'to')}`;
    case 'scenario.start':
      return `the cluster is up: scenario time 0`;
    case 'scenario.quiet':
      return `quiet period: faults undone, producers stop`;
    case 'scenario.end':
      return `end of the run`;
    case 'final.partition':
      return `final state of ${where()}: leader ${num(e, 'leader')}, HW ${num(e, 'highWatermark')}`;
    default:
      if (isIsrChange(e)) return `proposes ISR ${set(nums(e, 'from'))} → ${set(nums(e, 'to'))} for ${where()} (${str(e, 'reason')})`;
      return fieldsText(e);
  }
}

/** The event's own fields as compact text (for kinds without a sentence). */
export function fieldsText(e: TraceEvent): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(e)) {
    if (k === 't' || k === 'seq' || k === 'kind' || k === 'node') continue;
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    parts.push(`${k}=${s.length > 60 ? `${s.slice(0, 59)}…` : s}`);
  }
  return parts.join(' ');
}

/** Events too frequent to list by default. */
export const ROUTINE_KINDS = new Set(['send.invoke', 'replica.append', 'replica.hw', 'net.send', 'raft.high-watermark', 'log.flush', 'send.ok', 'consumer.poll', 'consumer.processed']);
