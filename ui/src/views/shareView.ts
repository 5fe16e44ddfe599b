import * as d3 from 'd3';
import './shareView.css';
import { el, replace, svgEl } from '../lib/dom';
import { HIGHLIGHT } from '../lib/colors';
import { clamp, rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import { describeSets } from '../app/settings';
import { CAUSE_TEXT, STATE_TEXT } from '../model/shareLabels';
import { buildShare, type ShareModel } from '../model/shareModel';
import { planGrid, type GridPlan } from '../model/shareGrid';
import { memberName, type ShareCell, type SharePartitionState, type ShareState } from '../model/shareState';
import type { Tooltip } from './tooltip';

/** Cell fill by record state (the same words as Kafka's RecordState). */
export const SHARE_STATE_COLORS: Record<string, string> = {
  AVAILABLE: '#dfe6ee',
  ACQUIRED: '#f2b84b',
  ACKNOWLEDGED: '#69b578',
  ARCHIVING: '#c77dba',
  ARCHIVED: '#5f6b77',
};
const DLQ = '#b5179e';
const REDELIVERED = '#d6336c';
const SPSO_COLOR = '#1f7a3a';
const SPEO_COLOR = '#1c5fb8';

/** The cells' size: full (every delivery count written) or compact (a long window; counts from 2 written small). */
interface Geom {
  readonly cell: number;
  readonly pitch: number;
  /** Above each row of cells: the holders' names. */
  readonly band: number;
  readonly row: number;
  readonly compact: boolean;
}
const FULL: Geom = { cell: 18, pitch: 21, band: 11, row: 34, compact: false };
const COMPACT: Geom = { cell: 10, pitch: 12, band: 11, row: 26, compact: true };
const GUTTER = 44;

export interface ShareHandlers {
  /** Choose a record (every view highlights it). */
  onSelectValue(value: string): void;
  /** Move the cursor to an event of run A, or of run B (compare mode). */
  onSeek(side: 'A' | 'B', i: number): void;
}

/** One run's share groups (A, and B when comparing). */
interface Side {
  readonly label: 'A' | 'B';
  readonly run: LoadedRun;
  readonly share: ShareModel;
  /** "tp:offset" -> the produced value there (found on first use). */
  values: Map<string, string> | null;
}

/** Where a side stands: its cursor (event index) and time. */
export interface SideMoment {
  readonly cursor: number;
  readonly now: number;
}

/**
 * The share-partition view (KIP-932): for each (share group, topic-partition) its in-flight window at the cursor as
 * cells coloured by record state with their delivery counts, a bar under each acquired record in its holder's
 * colour as long as the lock time it has left, the holders' names over their records, and the SPSO and SPEO lines.
 * Lock expiries, archived records and dead-letter writes are glyphs on the timeline (fold/share.ts). A click on a
 * record chooses it (as everywhere) and moves the cursor to its last change.
 */
export class ShareView {
  private sides: Side[] = [];
  private readonly legend: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private readonly color = d3.scaleOrdinal<string, string>(d3.schemeTableau10);
  private selected: string | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly tooltip: Tooltip,
    private readonly handlers: ShareHandlers,
  ) {
    root.classList.add('share-view');
    this.legend = el('div', { class: 'share-legend', 'data-testid': 'share-legend' });
    this.body = el('div', { class: 'share-body' });
    root.append(this.legend, this.body);
    this.buildLegend();
  }

  /** Run A, and B when comparing (B's share-partitions are drawn under A's). */
  setRuns(a: LoadedRun | null, b: LoadedRun | null = null): void {
    this.sides = [];
    for (const [label, run] of [['A', a], ['B', b]] as const) if (run) this.sides.push({ label, run, share: buildShare(run.model), values: null });
    this.color.domain([]);
    replace(this.body);
  }

  /** The produced value at an offset of a partition, if the trace names it. */
  private valueAt(side: Side, tp: string, offset: number): string | null {
    const vt = side.run.model.values;
    if (!side.values) {
      side.values = new Map();
      for (let k = 0; k < vt.size; k++) if (vt.offset[k]! >= 0) side.values.set(`${vt.topic[k]}-${vt.partition[k]}:${vt.offset[k]}`, vt.value[k]!);
    }
    return side.values.get(`${tp}:${offset}`) ?? null;
  }

  /** Draws each side at its moment (A's first; B's at the same scenario time). */
  render(moments: readonly SideMoment[], selected: string | null = null): void {
    this.selected = selected;
    if (this.sides.length === 0) return;
    const compare = this.sides.length > 1;
    const parts = this.sides.map((side, k) => {
      const m = moments[k] ?? moments[0]!;
      return { side, m, s: side.share.replay.count > 0 ? side.share.replay.at(m.cursor) : null };
    });
    const total = parts.reduce((n, p) => n + (p.s?.partitions.size ?? 0), 0);
    const width = Math.max(320, this.body.clientWidth || this.root.clientWidth - 16);
    // Rows per share-partition: as many as the stage has room for, two at least (more scroll).
    const room = (this.root.parentElement?.clientHeight ?? 400) - this.legend.offsetHeight - 30;
    const rowsFor = (g: Geom) => clamp(Math.floor((room / Math.max(1, total) - 36) / g.row), 2, 6);
    const colsFor = (g: Geom) => Math.floor((width - GUTTER - 8) / g.pitch);
    replace(
      this.body,
      ...parts.map(({ side, m, s }) => {
        const head = compare ? el('div', { class: 'share-side-title' }, el('span', { class: 'label' }, side.label), ` ${describeSets(side.run.payload.sets)}`) : null;
        if (!s) return el('div', { class: 'share-side', 'data-side': side.label }, head, el('div', { class: 'empty', 'data-testid': 'share-empty' }, 'This run has no share groups: the trace holds no share.* events. Runs with share consumers (KIP-932) show here each share-partition\'s in-flight window: its records\' states and delivery counts, who holds each lock, SPSO and SPEO.'));
        const list = [...s.partitions.values()].sort((a, b) => (a.group === b.group ? (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1) : a.group < b.group ? -1 : 1));
        if (list.length === 0) return el('div', { class: 'share-side', 'data-side': side.label }, head, el('div', { class: 'empty', 'data-testid': 'share-empty' }, 'No share-partition yet at this moment: a partition leader creates one when a share group first fetches from it.'));
        return el(
          'div',
          { class: 'share-side', 'data-side': side.label },
          head,
          ...list.map((p) => {
            // Compact cells only when the window does not fit at full size.
            const full = planGrid(p.spso, p.speo, colsFor(FULL), rowsFor(FULL));
            const g = full.hidden > 0 ? COMPACT : FULL;
            return this.block(side, s, p, g === FULL ? full : planGrid(p.spso, p.speo, colsFor(g), rowsFor(g)), g, m.now);
          }),
        );
      }),
    );
  }

  private buildLegend(): void {
    const swatch = (fill: string, stroke = 'none') => {
      const g = svgEl('svg', { width: 14, height: 12, viewBox: '0 0 14 12' });
      g.appendChild(svgEl('rect', { x: 1, y: 1, width: 12, height: 10, rx: 2, fill, stroke, 'stroke-width': 1.6 }));
      return g;
    };
    const line = (color: string) => {
      const g = svgEl('svg', { width: 8, height: 12, viewBox: '0 0 8 12' });
      g.appendChild(svgEl('line', { x1: 4, x2: 4, y1: 0, y2: 12, stroke: color, 'stroke-width': 2 }));
      return g;
    };
    const item = (kind: string, icon: SVGElement, text: string) => el('span', { 'data-legend': kind, title: STATE_TEXT[kind] ?? '' }, icon, ` ${text}`);
    replace(
      this.legend,
      ...Object.entries(SHARE_STATE_COLORS).map(([state, fill]) => item(state, swatch(fill), state)),
      item('redelivered', swatch('#fff', REDELIVERED), 'delivered more than once (the digit: delivery count; small cells write it from 2)'),
      item('dead-letter', swatch(SHARE_STATE_COLORS['ARCHIVED']!, DLQ), 'dead-lettered'),
      item('lock', swatch('#fff'), '▁ holder, as long as its lock has left'),
      item('spso', line(SPSO_COLOR), 'SPSO'),
      item('speo', line(SPEO_COLOR), 'SPEO'),
    );
  }

  private block(side: Side, s: ShareState, p: SharePartitionState, plan: GridPlan, G: Geom, now: number): HTMLElement {
    const t0 = side.run.model.t0;
    const inFlight = p.speo >= p.spso ? p.speo - p.spso + 1 : 0;
    const held = new Map<string, { n: number; next: number }>();
    for (let o = p.spso; o <= p.speo; o++) {
      const c = p.cells.get(o);
      if (c?.state !== 'ACQUIRED') continue;
      const h = held.get(c.holder) ?? { n: 0, next: Infinity };
      h.n++;
      if (c.lockDeadline >= 0) h.next = Math.min(h.next, c.lockDeadline);
      held.set(c.holder, h);
    }
    const limits = side.share.limitsOf(p.group);
    const holders = [...held.entries()].map(([id, h]) => `${memberName(s, id)} ×${h.n}${Number.isFinite(h.next) ? ` (first lock ends ${rel(h.next, t0)})` : ''}`);
    const title = el(
      'div',
      { class: 'share-title' },
      el('b', {}, `${p.group} · ${p.tp}`),
      ` on ${p.leader}${p.leaderEpoch >= 0 ? ` (leader epoch ${p.leaderEpoch})` : ''} · SPSO ${p.spso} · SPEO ${p.speo} · in flight ${inFlight}${limits ? ` of ${limits.maxInFlightRecords}` : ''} · lock expiries ${p.lockExpiries} · archived ${p.archived}${p.deadLettered > 0 ? ` · dead-lettered ${p.deadLettered}` : ''}`,
    );
    const holdLine = el('div', { class: 'share-holders dim' }, holders.length > 0 ? `locks held: ${holders.join(', ')}` : 'no record acquired');
    const w = GUTTER + plan.cols * G.pitch + 4;
    const h = plan.rows * G.row + (plan.hidden > 0 ? 14 : 2);
    const svg = d3.create('svg').attr('class', 'share-grid').attr('width', w).attr('height', h);
    const cells: ShareCell[] = [];
    const missing: number[] = [];
    for (let r = 0; r < plan.rows; r++) {
      const o = plan.first + r * plan.cols;
      svg
        .append('text')
        .attr('class', 'share-row-label')
        .attr('x', GUTTER - 4)
        .attr('y', r * G.row + G.band + G.cell - 5)
        .text(String(o));
    }
    const pos = (o: number) => {
      const k = o - plan.first;
      return { x: GUTTER + (k % plan.cols) * G.pitch, y: Math.floor(k / plan.cols) * G.row + G.band };
    };
    const lastShown = Math.min(plan.first + plan.rows * plan.cols - 1, Math.max(p.speo, p.spso - 1));
    for (let o = plan.first; o <= lastShown; o++) {
      const c = p.cells.get(o);
      if (c) cells.push(c);
      else if (o >= p.spso) missing.push(o);
    }
    const limit = limits?.deliveryCountLimit ?? null;
    const g = svg.selectAll('g.share-cell').data(cells).join('g').attr('class', 'share-cell').attr('transform', (c) => `translate(${pos(c.offset).x},${pos(c.offset).y})`);
    g.attr('data-testid', 'share-cell')
      .attr('data-tp', p.tp)
      .attr('data-group', p.group)
      .attr('data-offset', (c) => c.offset)
      .attr('data-state', (c) => c.state)
      .attr('data-delivery', (c) => c.deliveryCount)
      .attr('data-holder', (c) => (c.holder === '' ? '' : memberName(s, c.holder)))
      .attr('data-dead-letter', (c) => (c.deadLetter ? c.deadLetter.dlqTopic : null))
      .classed('finished', (c) => c.offset < p.spso)
      .classed('chosen', (c) => this.selected !== null && this.valueAt(side, p.tp, c.offset) === this.selected);
    g.append('rect')
      .attr('width', G.cell)
      .attr('height', G.cell)
      .attr('rx', 2)
      .attr('fill', (c) => SHARE_STATE_COLORS[c.state] ?? '#ccc')
      .attr('stroke', (c) => (c.deadLetter ? DLQ : c.deliveryCount > 1 ? REDELIVERED : 'rgba(0,0,0,0.15)'))
      .attr('stroke-width', (c) => (c.deadLetter ? 2.4 : c.deliveryCount > 1 ? 1 + Math.min(3, c.deliveryCount - 1) * 0.5 : 1));
    // The delivery count (compact cells write it from 2 only: a redelivery is what a long window hides).
    g.append('text')
      .attr('class', (c) => `share-dc${G.compact ? ' small' : ''}${c.state === 'ARCHIVED' || c.state === 'ARCHIVING' ? ' light' : ''}`)
      .attr('x', G.cell / 2)
      .attr('y', G.cell / 2 + (G.compact ? 3 : 4))
      .text((c) => (c.deliveryCount > (G.compact ? 1 : 0) ? String(c.deliveryCount) : ''));
    // The holder's bar: its colour, as long as the lock has left.
    const lock = g.filter((c) => c.state === 'ACQUIRED' && c.holder !== '');
    lock
      .append('rect')
      .attr('class', 'share-lock')
      .attr('y', G.cell + 1)
      .attr('height', 3)
      .attr('width', (c) => {
        const ms = limits?.recordLockDurationMs;
        if (c.lockDeadline < 0 || !ms) return G.cell;
        return Math.max(1.5, G.cell * clamp((c.lockDeadline - now) / (ms * 1000), 0, 1));
      })
      .attr('fill', (c) => this.color(memberName(s, c.holder)));
    // The chosen record: a ring.
    g.filter('.chosen').append('rect').attr('class', 'share-chosen').attr('data-testid', 'share-chosen').attr('x', -2).attr('y', -2).attr('width', G.cell + 4).attr('height', G.cell + 4).attr('rx', 3).attr('stroke', HIGHLIGHT);
    g.on('mousemove', (ev: MouseEvent, c) => this.hover(ev, side, s, p, c, now, limit))
      .on('mouseleave', () => this.tooltip.hide())
      .on('click', (_ev: MouseEvent, c) => {
        const v = this.valueAt(side, p.tp, c.offset);
        if (v !== null) this.handlers.onSelectValue(v);
        if (c.lastIndex >= 0) this.handlers.onSeek(side.label, c.lastIndex);
      });

    // Offsets in the window without a record yet (a fetch in progress never leaves one; kept honest all the same).
    svg
      .selectAll('rect.share-none')
      .data(missing)
      .join('rect')
      .attr('class', 'share-none')
      .attr('x', (o) => pos(o).x)
      .attr('y', (o) => pos(o).y)
      .attr('width', G.cell)
      .attr('height', G.cell);

    // The holders' names over their runs of acquired records (where a name fits).
    const runs: { holder: string; from: number; to: number }[] = [];
    for (const c of cells) {
      if (c.state !== 'ACQUIRED' || c.holder === '') continue;
      const last = runs[runs.length - 1];
      const sameRow = last && Math.floor((last.to - plan.first) / plan.cols) === Math.floor((c.offset - plan.first) / plan.cols);
      if (last && last.holder === c.holder && last.to === c.offset - 1 && sameRow) last.to = c.offset;
      else runs.push({ holder: c.holder, from: c.offset, to: c.offset });
    }
    // A name may run on over the band until the next run's name in its row.
    const rowOf = (o: number) => Math.floor((o - plan.first) / plan.cols);
    const room = runs.map((r, k) => {
      const next = runs[k + 1];
      const end = next && rowOf(next.from) === rowOf(r.from) ? next.from : plan.first + (rowOf(r.from) + 1) * plan.cols;
      return end - r.from;
    });
    svg
      .selectAll('text.share-holder')
      .data(runs)
      .join('text')
      .attr('class', 'share-holder')
      .attr('data-testid', 'share-holder')
      .attr('x', (r) => pos(r.from).x + 1)
      .attr('y', (r) => pos(r.from).y - 2)
      .attr('fill', (r) => this.color(memberName(s, r.holder)))
      .text((r, k) => {
        const name = memberName(s, r.holder);
        const chars = Math.floor((room[k]! * G.pitch - 2) / 5.6);
        return chars >= name.length ? name : chars >= 4 ? `${name.slice(0, chars - 1)}…` : '';
      });

    // SPSO: left of the first record not finished; SPEO: right of the last record fetched.
    const marks: { id: 'spso' | 'speo'; x: number; y: number; label: string; color: string }[] = [];
    if (p.spso >= plan.first && p.spso <= lastShown + 1) {
      const q = p.spso <= lastShown ? pos(p.spso) : { x: pos(lastShown).x + G.pitch, y: pos(lastShown).y };
      marks.push({ id: 'spso', x: q.x - 1.5, y: q.y, label: `SPSO ${p.spso}`, color: SPSO_COLOR });
    }
    if (p.speo >= p.spso && p.speo <= lastShown) {
      const q = pos(p.speo);
      marks.push({ id: 'speo', x: q.x + G.cell + 1.5, y: q.y, label: `SPEO ${p.speo}`, color: SPEO_COLOR });
    }
    const mk = svg.selectAll('g.share-mark').data(marks).join('g').attr('class', 'share-mark').attr('data-testid', (m) => m.id);
    mk.append('line')
      .attr('x1', (m) => m.x)
      .attr('x2', (m) => m.x)
      .attr('y1', (m) => m.y - 3)
      .attr('y2', (m) => m.y + G.cell + 3)
      .attr('stroke', (m) => m.color)
      .attr('stroke-width', 2);
    mk.append('title').text((m) => (m.id === 'spso' ? `${m.label}: every record before it is finished (acknowledged or archived)` : `${m.label}: the last offset fetched into the window`));
    if (plan.hidden > 0) {
      svg
        .append('text')
        .attr('class', 'share-more')
        .attr('data-testid', 'share-more')
        .attr('x', GUTTER)
        .attr('y', h - 2)
        .text(`… ${plan.hidden} more in flight up to SPEO ${p.speo}`);
    }
    return el('div', { class: 'share-block', 'data-testid': 'share-partition', 'data-tp': p.tp, 'data-group': p.group, 'data-spso': p.spso, 'data-speo': p.speo, 'data-archived': p.archived, 'data-side': side.label }, title, holdLine, svg.node()!);
  }

  private hover(ev: MouseEvent, side: Side, s: ShareState, p: SharePartitionState, c: ShareCell, now: number, limit: number | null): void {
    const t0 = side.run.model.t0;
    const value = this.valueAt(side, p.tp, c.offset);
    const lines = [
      `${c.state}: ${STATE_TEXT[c.state] ?? ''}`,
      `delivered ${c.deliveryCount} time${c.deliveryCount === 1 ? '' : 's'}${limit !== null ? ` (limit ${limit})` : ''}`,
      c.holder !== '' ? `held by ${memberName(s, c.holder)}${c.lockDeadline >= 0 ? `; its lock expires ${rel(c.lockDeadline, t0)} (${c.lockDeadline > now ? `in ${rel(c.lockDeadline, now)}` : 'now'})` : ''}` : c.lastHolder !== '' ? `last held by ${memberName(s, c.lastHolder)}` : 'never acquired',
      c.cause ? `last change: ${CAUSE_TEXT[c.cause] ?? c.cause}` : '',
      c.deadLetter ? `dead-lettered to ${c.deadLetter.dlqTopic}${c.deadLetter.reason ? ` (${c.deadLetter.reason})` : ''}` : '',
      c.offset < p.spso ? 'finished: SPSO has moved past it' : '',
      value !== null ? `record ${value}` : '',
      c.lastIndex >= 0 ? 'click: choose it and go to its last change' : '',
    ].filter((l) => l !== '');
    this.tooltip.show(ev.clientX, ev.clientY, `${this.sides.length > 1 ? `${side.label} · ` : ''}${p.group} · ${p.tp} · offset ${c.offset}`, lines);
  }
}
