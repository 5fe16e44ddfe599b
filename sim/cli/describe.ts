/**
 * `kafkasim describe <trace> --at 42s`: what an operator's describe tools would have printed at that moment of
 * the run (sim/check/describeAt.ts): kafka-topics --describe, kafka-consumer-groups --describe, and
 * kafka-metadata-quorum describe --status.
 */
import { formatTime, parseDuration, type Micros } from '../core/time';
import { quoteName } from '../core/validate';
import { describeAt, type DescribeAt, type QuorumStatus } from '../check/describeAt';
import { parseArgs, single } from './args';
import type { CliIo, Command } from './commands';
import { CliError } from './errors';
import { renderGroups, table } from './render';
import { loadTrace } from './traceFile';

const HELP = `kafkasim describe <trace.jsonl> [--at 42s] [--topics] [--groups] [--quorum] [--exclude-internal] [--json]

The cluster at one moment of a saved run, as the operator's tools would have described it then:

  kafka-topics --describe                   each partition: leader, replicas, ISR, ELR, replicas being added
                                            or removed, and the leader's high watermark and log end offset
  kafka-consumer-groups --describe          each group's committed offsets, LOG-END-OFFSET (the high
                                            watermark), lag and owning member
  kafka-metadata-quorum describe --status   the KRaft leader, epoch, high watermark, voters and observers,
                                            and the followers' lag at the last metrics sample

  --at T      the moment, in scenario time (42s, 1500ms, 2m); default: the end of the trace
  --topics, --groups, --quorum   only those tables (any of them; default all)
  --exclude-internal   leave out internal topics (__consumer_offsets), as kafka-topics does with it
  --json      the tables as one JSON object
`;

const list = (xs: readonly number[]) => (xs.length === 0 ? '-' : xs.join(','));

/** kafka-topics --describe, with the log offsets the simulator knows. */
export function renderTopicsAt(d: DescribeAt): string {
  if (d.topics.length === 0) return 'No topics.\n';
  return table(
    ['TOPIC', 'PARTITION', 'LEADER', 'LEADER-EPOCH', 'REPLICAS', 'ISR', 'ELR', 'ADDING', 'REMOVING', 'HIGH-WATERMARK', 'LOG-END-OFFSET'],
    d.topics.map((p) => [
      p.topic,
      String(p.partition),
      p.leader >= 0 ? String(p.leader) : 'none',
      String(p.leaderEpoch),
      list(p.replicas),
      list(p.isr),
      list(p.elr),
      list(p.addingReplicas),
      list(p.removingReplicas),
      p.leader >= 0 ? String(p.highWatermark) : '-',
      p.leader >= 0 ? String(p.logEndOffset) : '-',
    ]),
  );
}

/** kafka-metadata-quorum describe --status, its "Key: value" lines. */
export function renderQuorum(q: QuorumStatus): string {
  const lag = q.lagSampledAtUs === null ? ' (no metrics sample yet)' : ` (metrics sample at ${formatTime(q.lagSampledAtUs)})`;
  const rows: [string, string][] = [
    ['LeaderId', q.leaderId ?? 'none (an election is under way)'],
    ['LeaderEpoch', String(q.leaderEpoch)],
    ['HighWatermark', String(q.highWatermark)],
    ['MaxFollowerLag', q.maxFollowerLag === null ? '-' : `${q.maxFollowerLag}${lag}`],
    ['MaxFollowerLagTimeMs', q.maxFollowerLagTimeMs === null ? '-' : `${q.maxFollowerLagTimeMs}${lag}`],
    ['CurrentVoters', `[${q.voters.join(', ')}]`],
    ['CurrentObservers', `[${q.observers.join(', ')}]`],
  ];
  return rows.map(([k, v]) => `${`${k}:`.padEnd(24)}${v}`).join('\n') + '\n';
}

function readAt(v: string | undefined): Micros | undefined {
  if (v === undefined) return undefined;
  const us = parseDuration(v);
  if (us === null) throw new CliError(`--at: ${quoteName(v)} is not a time; use e.g. 42s, 1500ms, 2m`);
  return us;
}

export const describe: Command = {
  summary: 'the kafka-topics, kafka-consumer-groups and kafka-metadata-quorum tables at a moment of a run',
  help: HELP,
  run(args: string[], io: CliIo): number {
    const p = parseArgs('describe', args, { at: { value: true }, topics: {}, groups: {}, quorum: {}, 'exclude-internal': {}, json: {} });
    if (p.positional.length !== 1) throw new CliError(`describe needs exactly one trace file (got ${p.positional.length}); see kafkasim describe --help`);
    const trace = loadTrace(p.positional[0]!);
    const start = trace.events.find((e) => e.kind === 'scenario.start')?.t ?? 0;
    const endUs = (trace.events[trace.events.length - 1]?.t ?? start) - start;
    const atUs = readAt(single(p, 'at')) ?? endUs;
    if (atUs > endUs) throw new CliError(`--at: ${formatTime(atUs)} is after the end of the trace (${formatTime(endUs)}); give a time from 0 to ${formatTime(endUs)}`);
    const full = describeAt(trace.events, atUs);
    const d = p.flags.has('exclude-internal') ? { ...full, topics: full.topics.filter((t) => !t.topic.startsWith('__')) } : full;
    const all = !p.flags.has('topics') && !p.flags.has('groups') && !p.flags.has('quorum');
    const want = (t: 'topics' | 'groups' | 'quorum') => all || p.flags.has(t);
    if (p.flags.has('json')) {
      io.out(JSON.stringify({ atMs: atUs / 1000, ...(want('topics') && { topics: d.topics }), ...(want('groups') && { groups: d.groups }), ...(want('quorum') && { quorum: d.quorum }) }) + '\n');
      return 0;
    }
    let out = `At ${formatTime(atUs)} of scenario time:\n`;
    if (want('topics')) out += `\n$ kafka-topics --describe\n${renderTopicsAt(d)}`;
    if (want('groups')) out += `\n$ kafka-consumer-groups --describe --all-groups\n${renderGroups(d.groups) || 'No consumer groups.\n'}`;
    if (want('quorum')) out += `\n$ kafka-metadata-quorum describe --status\n${renderQuorum(d.quorum)}`;
    io.out(out);
    return 0;
  },
};
