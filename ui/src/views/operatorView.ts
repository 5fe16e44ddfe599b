import * as d3 from 'd3';
import { el, replace } from '../lib/dom';
import { rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import type { ClusterState } from '../model/clusterState';
import { groupRows, topicRows } from '../model/describeTables';
import { seriesValue } from '../../../sim/kafka/metrics/alerts';
import { momentAt } from '../../../sim/kafka/metrics/series';
import { parseSeriesKey, type Aggregate } from '../../../sim/kafka/metrics/catalog';

export interface OperatorHandlers {
  onSeek(i: number): void;
}

/** The dashboards an operator keeps open, in the order they look at them. */
const PANELS: readonly { key: string; title: string }[] = [
  { key: 'UnderReplicatedPartitions', title: 'under-replicated partitions' },
  { key: 'UnderMinIsrPartitionCount', title: 'partitions under min ISR' },
  { key: 'OfflinePartitionsCount', title: 'offline partitions' },
  { key: 'ActiveControllerCount', title: 'active controllers' },
  { key: 'IsrShrinksPerSec', title: 'ISR shrinks /s' },
  { key: 'MessagesInPerSec', title: 'messages in /s' },
  { key: 'TotalTimeMs.p99.Produce', title: 'produce p99 (ms)' },
  { key: 'records-lag-max', title: 'consumer lag (records)' },
];

const W = 360;
const H = 64;
const PAD = { l: 36, r: 6, t: 6, b: 14 };

/**
 * The operator's panel: the sampled metrics as small charts on the shared time cursor, the intervals in which
 * an alert fired shaded, and at the cursor the tables the describe tools print (kafka-topics, kafka-consumer-
 * groups, kafka-metadata-quorum), from the same state every other view draws.
 */
export class OperatorView {
  private run: LoadedRun | null = null;
  private readonly empty: HTMLDivElement;
  private readonly alertsBox: HTMLDivElement;
  private readonly charts: HTMLDivElement;
  private readonly tables: HTMLDivElement;
  private drawn: { key: string; svg: d3.Selection<SVGSVGElement, unknown, null, undefined>; x: d3.ScaleLinear<number, number>; value: HTMLSpanElement; agg: Aggregate }[] = [];

  constructor(
    private readonly root: HTMLElement,
    private readonly handlers: OperatorHandlers,
  ) {
    this.empty = el('div', { class: 'empty', 'data-testid': 'operator-empty' });
    this.alertsBox = el('div', { class: 'op-alerts', 'data-testid': 'operator-alerts' });
    this.charts = el('div', { class: 'op-charts', 'data-testid': 'operator-charts' });
    this.tables = el('div', { class: 'op-tables', 'data-testid': 'operator-tables' });
    root.append(this.empty, this.alertsBox, this.charts, this.tables);
  }

  setRun(run: LoadedRun | null): void {
    this.run = run;
    this.drawn = [];
    replace(this.charts);
    replace(this.alertsBox);
    if (!run) return;
    const s = run.metrics;
    if (s.moments.length === 0) return;
    const end = s.moments[s.moments.length - 1]!.atUs;
    const x = d3.scaleLinear().domain([0, Math.max(1, end)]).range([PAD.l, W - PAD.r]);
    const present = new Set(s.moments.flatMap((m) => [...m.values.values()].flatMap((v) => Object.keys(v))));
    for (const p of PANELS) {
      const key = parseSeriesKey(p.key);
      if (!key || !present.has(p.key)) continue;
      const agg = key.family.aggregate;
      const points = s.moments.map((m) => ({ t: m.atUs, v: seriesValue({ series: p.key, aggregate: agg, actor: null }, m) }));
      const vmax = Math.max(1, ...points.map((q) => q.v ?? 0));
      const y = d3.scaleLinear().domain([0, vmax]).nice(3).range([H - PAD.b, PAD.t]);
      const value = el('span', { class: 'op-value' });
      const box = el('div', { class: 'op-chart', 'data-testid': `chart-${p.key}` }, el('div', { class: 'op-title' }, `${p.title} `, el('code', {}, p.key), ' ', value));
      this.charts.appendChild(box);
      const svg = d3.select(box).append('svg').attr('viewBox', `0 0 ${W} ${H}`).attr('class', 'op-svg');
      // Alerts on this series: their firing intervals, shaded.
      for (const a of run.alerts) {
        if (!new RegExp(`(^|[(\\s])${p.key.replace(/[.]/g, '\\.')}([{)\\s]|$)`).test(a.rule)) continue;
        for (const f of a.firings) {
          const x0 = x(f.firedUs);
          const x1 = x(f.resolvedUs ?? end);
          svg.append('rect').attr('class', 'op-alert').attr('data-testid', 'chart-alert').attr('x', x0).attr('y', PAD.t).attr('width', Math.max(1.5, x1 - x0)).attr('height', H - PAD.b - PAD.t).append('title').text(`${a.name}: ${a.rule}, firing ${rel(f.firedUs, 0)} to ${f.resolvedUs === null ? 'the end' : rel(f.resolvedUs, 0)}`);
        }
      }
      svg.append('g').attr('class', 'op-axis').attr('transform', `translate(${PAD.l - 2},0)`).call(d3.axisLeft(y).ticks(2).tickSize(2));
      svg.append('g').attr('class', 'op-axis').attr('transform', `translate(0,${H - PAD.b})`).call(d3.axisBottom(x).ticks(4).tickSize(2).tickFormat((d) => `${Number(d) / 1e6}s`));
      const line = d3
        .line<{ t: number; v: number | null }>()
        .defined((q) => q.v !== null)
        .x((q) => x(q.t))
        .y((q) => y(q.v ?? 0))
        .curve(d3.curveStepAfter);
      svg.append('path').datum(points).attr('class', 'op-line').attr('d', line);
      svg.append('line').attr('class', 'op-cursor').attr('y1', PAD.t).attr('y2', H - PAD.b);
      svg.on('click', (ev: MouseEvent) => {
        const r = (ev.currentTarget as SVGSVGElement).getBoundingClientRect();
        const t = x.invert(((ev.clientX - r.left) / r.width) * W);
        this.handlers.onSeek(run.indexAtRel(Math.max(0, t)));
      });
      this.drawn.push({ key: p.key, svg, x, value, agg });
    }
    for (const a of run.alerts) {
      const items = a.firings.map((f) =>
        el(
          'li',
          {},
          el('a', { class: 'time-link', href: '#', onclick: (e: Event) => (e.preventDefault(), this.handlers.onSeek(run.indexAtRel(f.firedUs))) }, `fired ${rel(f.firedUs, 0)}`),
          f.pendingUs === f.firedUs ? '' : ` (holding since ${rel(f.pendingUs, 0)})`,
          f.resolvedUs === null ? ', still firing at the end' : `, resolved ${rel(f.resolvedUs, 0)}`,
          `, peak ${f.peak}`,
        ),
      );
      this.alertsBox.appendChild(el('div', { class: `op-alert-rule ${a.firings.length > 0 ? 'fired' : ''}`, 'data-testid': 'alert-rule' }, el('b', {}, a.name), a.name === a.rule ? '' : ` ${a.rule}`, a.firings.length === 0 ? ' — never fired' : el('ul', {}, ...items)));
    }
  }

  render(state: ClusterState, now: number): void {
    const run = this.run;
    if (!run) return;
    const s = run.metrics;
    const relNow = now - run.model.t0;
    if (s.moments.length === 0) {
      this.empty.hidden = false;
      this.empty.textContent = 'This run sampled no metrics: its scenario has "metrics": false or a minimal trace. Runs with metrics show here the series an operator watches, the alerts, and the describe tables at the cursor.';
    } else this.empty.hidden = true;
    const m = momentAt(s, relNow);
    for (const d of this.drawn) {
      d.svg.select('line.op-cursor').attr('x1', d.x(Math.max(0, relNow))).attr('x2', d.x(Math.max(0, relNow)));
      const v = m ? seriesValue({ series: d.key, aggregate: d.agg, actor: null }, m) : null;
      d.value.textContent = v === null ? '' : `= ${Number.isInteger(v) ? v : v.toFixed(2)}`;
    }
    this.renderTables(state, relNow);
  }

  private renderTables(state: ClusterState, relNow: number): void {
    const list = (xs: readonly number[]) => (xs.length === 0 ? '-' : xs.join(','));
    const table = (testid: string, head: readonly string[], rows: readonly (readonly string[])[]) =>
      el('table', { class: 'op-table', 'data-testid': testid }, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))), el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', {}, c))))));
    const topics = topicRows(state).map((p) => [p.topic, String(p.partition), p.leader >= 0 ? String(p.leader) : 'none', String(p.leaderEpoch), list(p.isr), list(p.elr), p.leader >= 0 ? String(p.highWatermark) : '-', p.leader >= 0 ? String(p.logEndOffset) : '-']);
    const groups = groupRows(state).map((g) => [g.group, g.partition, g.currentOffset === null ? '-' : String(g.currentOffset), String(g.logEndOffset), g.lag === null ? '-' : String(g.lag), g.consumerId]);
    const leader = [...state.raft].find(([, st]) => st === 'Leader')?.[0] ?? 'none';
    const voters = [...state.raft.keys()].filter((n) => n.startsWith('controller-')).sort();
    replace(
      this.tables,
      el('h4', {}, `At ${rel(relNow, 0)}: kafka-topics --describe`),
      table('describe-topics', ['TOPIC', 'PARTITION', 'LEADER', 'EPOCH', 'ISR', 'ELR', 'HW', 'LEO'], topics),
      groups.length > 0 ? el('h4', {}, 'kafka-consumer-groups --describe') : null,
      groups.length > 0 ? table('describe-groups', ['GROUP', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID'], groups) : null,
      el('h4', {}, 'kafka-metadata-quorum describe --status'),
      table('describe-quorum', ['LeaderId', 'CurrentVoters'], [[leader, `[${voters.join(', ')}]`]]),
    );
  }
}
