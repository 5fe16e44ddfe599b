/**
 * The story of an input whose effect is not exactly once in the committed output (output-duplicates,
 * output-lost), told from the trace as a lost write's is (lostWriteStory.ts): where the input was read and by
 * whom, each output written for it (its offset, its producer, and its transaction: transactional id, producer id
 * and epoch, committed or aborted — or that it was written outside any transaction), and what happened in
 * between to the application and its group: crashes and pauses of its hosts, fencing (a newer instance's
 * InitProducerId, PRODUCER_FENCED), rebalances that took its partition, and the commits of the input
 * partition's offset (in a transaction, or outside one).
 */
import type { Handlers, TraceEventOf } from '../core/trace';
import { Status } from './history/sends';
import type { History } from './history/history';
import { capStory } from './lostWriteStory';

/** One transform of an input: the application read it and wrote `output`. */
interface Transform {
  readonly t: number;
  readonly node: string;
  readonly where: string;
  readonly output: number;
}

/** A transaction a producer ended (producer.txn). */
interface Txn {
  readonly t: number;
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
}

/** An offset commit of a transforming group: plain (OffsetCommit) or a transaction's (TxnOffsetCommit, once committed). */
interface Commit {
  readonly t: number;
  readonly group: string;
  readonly where: string;
  readonly offset: number;
  readonly inTransaction: boolean;
}

const HOST_KINDS = ['fault.start', 'fault.end', 'host.crash', 'host.restart', 'host.stop', 'host.power-off'] as const;
const APP_KINDS = ['consumer.rebalance.start', 'consumer.assignment', 'producer.fenced', 'producer.id', 'group.offset.txn'] as const;
type Happening = TraceEventOf<(typeof HOST_KINDS)[number] | (typeof APP_KINDS)[number]>;

/** Most transforms of one input a story keeps (an input is rarely read more than a few times). */
const MAX_TRANSFORMS = 4;
const MAX_LINES = 40;

/** What the stories read, gathered as the run goes (only for applications that transform). */
export class OutputEffectEvents {
  private readonly transforms = new Map<number, Transform[]>();
  private readonly txnOf = new Map<number, number>();
  private readonly txns: Txn[] = [];
  private readonly commits: Commit[] = [];
  private readonly happenings: Happening[] = [];
  /** Transforming consumers, their groups, their producers (`<consumer>-producer`). */
  private readonly apps = new Set<string>();
  private readonly groups = new Set<string>();
  readonly handlers: Handlers;

  /** @param groupOf consumer node -> its group, as the check that owns these stories learns it from the polls. */
  constructor(
    private readonly h: History,
    groupOf: ReadonlyMap<string, string>,
  ) {
    const keep = (e: Happening): void => void this.happenings.push(e);
    this.handlers = {
      ...Object.fromEntries(HOST_KINDS.map((k) => [k, keep])),
      'consumer.transform': (e) => {
        if (e.input === null) return;
        this.apps.add(e.node);
        const group = groupOf.get(e.node);
        if (group !== undefined) this.groups.add(group);
        const u = h.values.id(e.input);
        let list = this.transforms.get(u);
        if (!list) this.transforms.set(u, (list = []));
        if (list.length < MAX_TRANSFORMS) list.push({ t: e.t, node: e.node, where: `${e.topic}-${e.partition}@${e.offset}`, output: h.values.id(e.output) });
      },
      'producer.txn': (e) => {
        const i = this.txns.length;
        this.txns.push({ t: e.t, transactionalId: e.transactionalId, producerId: e.producerId, producerEpoch: e.producerEpoch, committed: e.result === 'commit' });
        for (const v of e.values) this.txnOf.set(h.values.id(v), i);
      },
      'group.offset.commit': (e) => {
        if (e.error !== 'NONE' || !this.groups.has(e.group)) return;
        for (const o of e.offsets) this.commits.push({ t: e.t, group: e.group, where: `${o.topic}-${o.partition}`, offset: o.offset, inTransaction: false });
      },
      'group.offset.txn': (e) => {
        if (!this.groups.has(e.group)) return;
        if (e.result === 'commit') for (const o of e.offsets) this.commits.push({ t: e.t, group: e.group, where: `${o.topic}-${o.partition}`, offset: o.offset, inTransaction: true });
        if (e.result === 'refused' && e.error !== 'CONCURRENT_TRANSACTIONS') keep(e);
      },
      'consumer.rebalance.start': (e) => {
        if (this.apps.has(e.node)) keep(e);
      },
      'consumer.assignment': (e) => {
        if (this.apps.has(e.node) && (e.lost.length > 0 || e.revoked.length > 0)) keep(e);
      },
      'producer.fenced': keep,
      'producer.id': (e) => {
        if (e.transactionalId !== undefined) keep(e);
      },
    };
  }

  /** The story of input `u` whose output is in the committed output more than once, at `outputs` (`topic-p@offset`). */
  duplicateStory(u: number, outputs: readonly string[]): string[] {
    const h = this.h;
    const story: string[] = [];
    const transforms = this.transforms.get(u) ?? [];
    const input = transforms[0]?.where ?? '?';
    story.push(`Input ${h.value(u)} (${input}) has ${outputs.length} outputs in the committed output: ${outputs.join(', ')}.`);
    const first = transforms[0]?.t ?? 0;
    const last = transforms[transforms.length - 1]?.t ?? first;
    this.tell(story, transforms, first, last, input);
    return capStory(story, MAX_LINES);
  }

  /** The story of input `u` at `input` (`topic-p@offset`) that its group committed past with no output in the committed output. */
  lostStory(u: number, input: string, group: string): string[] {
    const h = this.h;
    const story: string[] = [];
    const transforms = this.transforms.get(u) ?? [];
    const at = input.lastIndexOf('@');
    const partition = input.slice(0, at);
    const offset = Number(input.slice(at + 1));
    const past = this.commits.find((c) => c.group === group && c.where === partition && c.offset > offset);
    story.push(`Input ${h.value(u)} (${input}) has no output in the committed output, yet group ${group} committed past it.`);
    if (transforms.length === 0) story.push(`No instance of the application transformed it: it was skipped.`);
    const first = transforms[0]?.t ?? past?.t ?? 0;
    this.tell(story, transforms, first, past?.t ?? first, input);
    if (past) {
      story.push(
        past.inTransaction
          ? `Group ${group} committed ${partition} up to offset ${past.offset} at ${h.at(past.t)} in a transaction, past the input.`
          : `Group ${group} committed ${partition} up to offset ${past.offset} at ${h.at(past.t)} with OffsetCommit, outside any transaction: past the input, whatever became of its output.`,
      );
    }
    return capStory(story, MAX_LINES);
  }

  /** Each transform and its output's fate, then what happened to the application between `from` and `to`. */
  private tell(story: string[], transforms: readonly Transform[], from: number, to: number, input: string): void {
    const h = this.h;
    for (const x of transforms) {
      story.push(`${x.node} read it at ${h.at(x.t)} and wrote ${h.value(x.output)}.`);
      story.push(`  ${this.fate(x.output)}`);
    }
    const partition = input.slice(0, input.lastIndexOf('@'));
    // The application's processes: a consumer and its producer (`<consumer>-producer`, `.N` after a restart).
    const involved = (node: string): boolean => [...this.apps].some((a) => node === a || node.startsWith(`${a}-producer`));
    const lines: { t: number; text: string }[] = [];
    let cut = -1;
    for (const e of this.happenings) {
      if (e.t < from || e.t > to) continue;
      const text = describe(e, h, involved, partition);
      if (text === null) continue;
      if (cut < 0) cut = e.t;
      lines.push({ t: e.t, text });
    }
    if (transforms.length > 1) {
      // Read again: no commit had passed the input when things went wrong (or before the next read).
      const until = cut >= 0 ? cut : transforms[1]!.t;
      const last = [...this.commits].reverse().find((c) => c.where === partition && c.t <= until);
      lines.push({
        t: until,
        text: last
          ? `Until ${h.at(until)} no commit of ${partition} had passed the input: the last, at ${h.at(last.t)}, was offset ${last.offset}${last.inTransaction ? ' in a transaction' : ' with OffsetCommit'}. The instance that read it next started from the committed offset.`
          : `Until ${h.at(until)} no offset of ${partition} was committed: the instance that read it next started from the beginning (auto.offset.reset).`,
      });
    }
    lines.sort((a, b) => a.t - b.t);
    for (const l of lines) story.push(l.text);
  }

  /** Where output `v` went: its offset, its producer, its transaction and that transaction's outcome. */
  private fate(v: number): string {
    const h = this.h;
    const s = h.sends;
    const sent = s.status(v) !== Status.None;
    const where = sent && s.offset(v) >= 0 ? `${h.where(s.tp(v))}@${s.offset(v)}` : '';
    const by = sent ? s.producerName(v) : 'its producer';
    const i = this.txnOf.get(v);
    const txn = i === undefined ? undefined : this.txns[i]!;
    const head = `${h.value(v)}${where ? ` (${where})` : ''}, written by ${by}`;
    if (txn) {
      const id = `transaction ${txn.transactionalId} (producer ${txn.producerId}, epoch ${txn.producerEpoch})`;
      return txn.committed ? `${head} in ${id}, committed at ${h.at(txn.t)}.` : `${head} in ${id}, aborted at ${h.at(txn.t)}: read_committed readers never see it.`;
    }
    if (!sent) return `${head}: never sent.`;
    const status = s.status(v);
    if (h.transactions.isTransactional(v)) return `${head} in a transaction that never ended (open at the end, or aborted by the coordinator).`;
    if (status === Status.Ok) return `${head} outside any transaction, acknowledged at ${h.at(s.doneUs(v))} by broker ${s.broker(v)}.`;
    if (status === Status.Fail) return `${head}: the send failed at ${h.at(s.doneUs(v))} (${s.error(v)}).`;
    return `${head}: no answer by the end of the run.`;
  }
}

function describe(e: Happening, h: History, involved: (node: string) => boolean, partition: string): string | null {
  const t = h.at(e.t);
  switch (e.kind) {
    case 'fault.start':
      return e.hosts.some(involved) ? `Fault at ${t}: ${e.fault} of ${e.hosts.join(', ')}${e.detail ? ` ${e.detail}` : ''}.` : null;
    case 'fault.end':
      return e.hosts.some(involved) ? `At ${t} the ${e.fault} of ${e.hosts.join(', ')} ended.` : null;
    case 'host.crash':
      return involved(e.node) ? `${e.node} crashed at ${t}: what it had not committed is read again by whoever takes its partitions.` : null;
    case 'host.restart':
      return involved(e.node) ? `${e.node} restarted at ${t}.` : null;
    case 'host.stop':
      return involved(e.node) ? `${e.node} was stopped at ${t}.` : null;
    case 'host.power-off':
      return involved(e.node) ? `${e.node} lost power at ${t}.` : null;
    case 'consumer.rebalance.start':
      return `${e.node} began rejoining its group at ${t} (${e.reason}).`;
    case 'consumer.assignment': {
      const gone = [...e.lost.map((p) => `${p} (lost)`), ...e.revoked.filter((p) => p === partition)];
      return gone.length > 0 ? `${e.node} gave up ${gone.join(', ')} at ${t}.` : null;
    }
    case 'producer.fenced':
      return involved(e.node) ? `${e.node} was fenced at ${t}: ${e.error} on ${e.request} (its epoch ${e.producerEpoch}).` : null;
    case 'producer.id':
      return involved(e.node) ? `${e.node} initialized transactions at ${t}: producer ${e.producerId}, epoch ${e.producerEpoch} (older epochs of ${e.transactionalId} are fenced).` : null;
    case 'group.offset.txn':
      return `The group coordinator refused a TxnOffsetCommit of producer ${e.producerId} at ${t} (${e.error}): its transaction must abort.`;
  }
}
