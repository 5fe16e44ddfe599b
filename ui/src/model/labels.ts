/**
 * Every English sentence the UI says about the trace, in one place: an event in plain words (the events list,
 * tooltips), the timeline's notable moments, the states of hosts. Text only: callers put it in the DOM as text.
 */
import type { TraceEvent, TraceEventOf, TraceKind } from '../../../sim/core/trace';
import { tpKey } from '../../../sim/kafka/topicPartition';
import { SHARE_DESCRIBE } from './shareLabels';

const set = (xs: readonly number[]) => `{${xs.join(',')}}`;
const where = (e: { topic: string; partition: number }) => tpKey(e.topic, e.partition);

type Describers = { readonly [K in TraceKind]?: (e: TraceEventOf<K>) => string };

const DESCRIBE: Describers = {
  'send.invoke': (e) => `send ${e.value} (key ${e.key ?? 'null'}) to ${where(e)}`,
  'send.ok': (e) => `ack for ${e.values.length} record(s) from broker ${e.broker} at offset ${e.offset} (acks=${e.acks}): ${e.values.slice(0, 3).join(', ')}${e.values.length > 3 ? ', …' : ''}`,
  'send.fail': (e) => `send failed: ${e.error} for ${e.values.length} record(s)`,
  'send.retry': (e) => `retry ${where(e)} after ${e.error} (attempt ${e.attempt})`,
  'replica.append': (e) => `broker ${e.broker} (${e.role}) appends ${where(e)} offsets ${e.base}..${e.last} in epoch ${e.epoch}`,
  'replica.hw': (e) => `broker ${e.broker} moves the high watermark of ${where(e)} to ${e.hw} (LEO ${e.leo})`,
  'replica.role': (e) => `broker ${e.broker} becomes ${e.role} of ${where(e)} in epoch ${e.leaderEpoch} (leader ${e.leader}, ISR ${set(e.isr)})`,
  'replica.truncate': (e) => `broker ${e.broker} truncates ${where(e)} from ${e.from} to ${e.to} (${e.reason})`,
  'replica.produce-rejected': (e) => `rejects a produce to ${where(e)}: ${e.error} (ISR ${set(e.isr)}, min.insync.replicas=${e.minIsr})`,
  'replica.alter-isr': (e) => `proposes ISR ${set(e.from)} → ${set(e.to)} for ${where(e)} (${e.reason})`,
  'controller.election': (e) =>
    e.leader >= 0
      ? `elects broker ${e.leader} leader of ${where(e)} in epoch ${e.leaderEpoch} from ${e.source ?? 'none'} (${e.reason}); ISR ${set(e.isr)}`
      : `${where(e)} has no leader (${e.reason})`,
  'controller.partition': (e) => `${where(e)}: leader ${e.leader}, epoch ${e.leaderEpoch}, ISR ${set(e.isr)}, ELR ${set(e.elr)}`,
  'controller.active': (e) => `becomes the active controller (epoch ${e.epoch})`,
  'controller.inactive': () => `is no longer the active controller`,
  'controller.broker': (e) => `broker ${e.broker} ${e.change} (${e.reason})`,
  'broker.state': (e) => `broker state ${e.state}`,
  'broker.registered': (e) => `registered with broker epoch ${e.brokerEpoch}`,
  'host.crash': () => `crashes (the page cache survives)`,
  'host.stop': () => `is stopped (SIGTERM): its processes shut down gracefully`,
  'process.exit': (e) => `${e.process} exits: ${e.reason}`,
  'broker.shutdown': (e) => `shuts down: ${e.reason}`,
  'host.power-off': () => `loses power (unflushed writes are gone)`,
  'host.restart': (e) => `restarts (up in ${e.delayMs} ms)`,
  'host.up': () => `is up`,
  'host.pause': () => `is paused`,
  'host.resume': () => `resumes`,
  'disk.power-loss': () => `disk keeps only what was fsynced`,
  'fault.start': (e) => `fault: ${e.fault} ${e.hosts.join(', ')} ${e.detail}`,
  'fault.end': (e) => `end of ${e.fault} ${e.hosts.join(', ')}`,
  'net.send': (e) => `${e.type} to ${e.to} (${e.bytes} bytes, arrives ${((e.arrive - e.t) / 1000).toFixed(3)} ms later)`,
  'net.drop': (e) => `${e.type} to ${e.to} dropped (${e.reason})`,
  'net.disconnect': (e) => `connection to ${e.peer} broken (${e.cause})`,
  'log.flush': (e) => `fsync ${where(e)} up to ${e.upTo}`,
  'log.truncate': (e) => `log ${where(e)} truncated to ${e.toOffset} (removed ${e.removedRecords} record(s))`,
  'log.recovery': (e) => `recovers ${where(e)}: log end ${e.logEndOffset}, ${e.droppedRecords} record(s) dropped`,
  'log.roll': (e) => `rolls a new segment of ${where(e)} at ${e.baseOffset}`,
  'log.retention': (e) => `retention deletes ${where(e)} offsets ${e.fromOffset}..${e.toOffset}`,
  'log.clean': (e) => `compaction of ${where(e)} removed ${e.recordsRemoved} record(s)`,
  'raft.state-change': (e) => `KRaft ${e.state} in epoch ${e.epoch} (${e.reason})`,
  'raft.vote': (e) => `${e.granted ? 'grants' : 'refuses'} ${e.preVote ? 'a pre-vote' : 'a vote'} to ${e.candidate} (epoch ${e.epoch})`,
  'raft.high-watermark': (e) => `metadata log committed up to ${e.highWatermark}`,
  caption: (e) => e.text,
  'consumer.poll': (e) => `poll returned ${e.count} record(s)`,
  'consumer.commit': (e) => `commit (${e.source}) ${e.ok ? 'ok' : `failed: ${e.error}`}`,
  'consumer.assignment': (e) => `owns ${e.owned.join(', ') || 'nothing'} (generation ${e.generation})`,
  'group.rebalance': (e) => `group ${e.group} generation ${e.generation} with ${e.members.length} member(s) (${e.reason})`,
  'group.state': (e) => `group ${e.group} ${e.from} → ${e.to}`,
  'scenario.start': () => `the cluster is up: scenario time 0`,
  'scenario.quiet': () => `quiet period: faults undone, producers stop`,
  'scenario.end': () => `end of the run`,
  'operator.step': (e) => `rolling restart: ${e.step} ${e.target}${e.detail ? ` — ${e.detail}` : ''}`,
  'final.partition': (e) => `final state of ${where(e)}: leader ${e.leader}, HW ${e.highWatermark}`,
  // Share groups (KIP-932): the words of shareLabels.ts.
  ...SHARE_DESCRIBE,
};

/** One line of plain words for an event. */
export function describeEvent(e: TraceEvent): string {
  const f = (DESCRIBE as Record<string, ((e: TraceEvent) => string) | undefined>)[e.kind];
  return f ? f(e) : fieldsText(e);
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
export const ROUTINE_KINDS: ReadonlySet<string> = new Set(['send.invoke', 'replica.append', 'replica.hw', 'net.send', 'raft.high-watermark', 'log.flush', 'send.ok', 'consumer.poll', 'consumer.processed']);

/** The timeline's notable moments, in words. */
export const MARK = {
  scenarioStart: 'scenario starts (cluster booted)',
  scenarioQuiet: 'quiet period: faults undone, producers stop',
  scenarioEnd: 'end of the run',
  faultStart: (e: TraceEventOf<'fault.start'>) => `${e.fault} ${e.hosts.join(', ')}${e.detail ? ` ${e.detail}` : ''}`,
  faultEnd: (e: TraceEventOf<'fault.end'>) => `end of ${e.fault} ${e.hosts.join(', ')}`,
  crashed: (node: string) => `${node} crashed`,
  poweredOff: (node: string) => `${node} lost power`,
  stopped: (node: string) => `${node} is stopped (SIGTERM): a graceful shutdown`,
  exited: (e: TraceEventOf<'process.exit'>) => `${e.process} exited: ${e.reason}`,
  operator: (e: TraceEventOf<'operator.step'>) => `operator: ${e.step} ${e.target}${e.detail ? ` (${e.detail})` : ''}`,
  paused: (node: string) => `${node} paused`,
  resumed: (node: string) => `${node} resumed`,
  restarts: (node: string, powerOn: boolean) => `${node} ${powerOn ? 'powers on' : 'restarts'}`,
  up: (node: string) => `${node} is up`,
  diskLoss: (e: TraceEventOf<'disk.power-loss'>) => `${e.node}'s disk lost ${e.files.reduce((a, f) => a + f.lost, 0)} unflushed write(s)`,
  activeController: (e: TraceEventOf<'controller.active'>) => `${e.node} becomes the active controller (epoch ${e.epoch})`,
  election: (e: TraceEventOf<'controller.election'>) =>
    e.leader >= 0 ? `broker ${e.leader} elected leader of ${where(e)} (epoch ${e.leaderEpoch}, from ${e.source ?? '?'})` : `${where(e)} has no leader`,
  fenced: (e: TraceEventOf<'controller.broker'>) => `broker ${e.broker} ${e.change} (${e.reason})`,
  isrChange: (e: TraceEventOf<'replica.alter-isr'>) => `ISR of ${where(e)} ${e.to.length < e.from.length ? 'shrinks' : 'expands'}: {${e.from.join(',')}} to {${e.to.join(',')}}`,
  truncate: (e: TraceEventOf<'replica.truncate'>) => `broker ${e.broker} truncates ${where(e)} from ${e.from} to ${e.to} (${e.reason})`,
  emptied: (e: TraceEventOf<'log.truncate'>) => `${e.node} empties ${where(e)} and restarts at ${e.toOffset}`,
  recovered: (e: TraceEventOf<'log.recovery'>) => `${e.node} recovers ${where(e)}: ${e.droppedRecords} record(s) did not survive on disk`,
  rejected: (e: TraceEventOf<'replica.produce-rejected'>) => `${e.node} rejects produce to ${where(e)}: ${e.error} (ISR ${JSON.stringify(e.isr)}, min ${e.minIsr})`,
  lostAck: (node: string, value: string) => `${node} gets an acknowledgement for a write that will be lost (${value})`,
  sendFail: (e: TraceEventOf<'send.fail'>) => `${e.node}: ${e.values.length} record(s) failed with ${e.error}`,
  rebalance: (e: TraceEventOf<'group.rebalance'>) => `group ${e.group} rebalances to generation ${e.generation} (${e.reason})`,
  consumerEpoch: (e: TraceEventOf<'group.consumer.epoch'>) => `group ${e.group} moves to group epoch ${e.epoch} (${e.reason})`,
};

/** The lane of scenario-wide events (faults, captions). */
export const SCENARIO_LANE_LABEL = 'faults & captions';

/** How a group's member that uses assign() (no group) is shown. */
export const manualGroup = (consumer: string): string => `${consumer} (manual)`;
