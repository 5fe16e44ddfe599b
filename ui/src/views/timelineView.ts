import * as d3 from 'd3';
import { CATEGORY_COLORS, HIGHLIGHT, LOST, messageColor } from '../lib/colors';
import { rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import { describeEvent } from '../model/labels';
import { CATEGORY_PRIORITY, type Marker } from '../model/traceModel';
import type { Tooltip } from './tooltip';

export interface TimelineHandlers {
  /** Move the cursor to an event. */
  onSeek(i: number): void;
  /** The user zoomed or panned to this time range (absolute us): a second timeline follows it. */
  onRange?(t0: number, t1: number): void;
}

const GUTTER = 122;
const AXIS_H = 22;
const CONTEXT_H = 34;
const RIGHT = 10;

const MARKER_COLORS: Record<string, string> = {
  election: '#8e5ec9',
  controller: '#8e5ec9',
  isr: '#4e79a7',
  truncate: LOST,
  recovery: LOST,
  'power-loss': '#222',
  caption: '#0b7285',
  'lost-ack': LOST,
  'send-fail': '#e0a526',
  rejected: '#e0a526',
  fenced: '#8e5ec9',
  rebalance: '#f28e2b',
  host: '#d64545',
  fault: '#d64545',
  scenario: '#555',
  'lock-expired': '#c77c02',
  archived: '#5f6b77',
  'dead-letter': '#b5179e',
};

/** Glyphs drawn as outlines (the rest are filled). */
const OUTLINED: ReadonlySet<string> = new Set(['lost-ack', 'isr', 'rebalance', 'dead-letter']);

const FAULT_FILL: Record<string, string> = {
  crash: '#d64545',
  'power-loss': '#222222',
  pause: '#e0a526',
  partition: '#e8743b',
  isolate: '#e8743b',
  'one-way': '#e8743b',
  latency: '#e0a526',
  lossy: '#e0a526',
  'slow-disk': '#8c564b',
  'disk-full': '#8c564b',
};

/** Marker glyph paths centred on (0,0). */
function glyph(kind: string): string {
  switch (kind) {
    case 'election':
    case 'controller':
      return 'M0,-6L6,0L0,6L-6,0Z';
    case 'isr':
      return 'M-4,0a4,4 0 1,0 8,0a4,4 0 1,0 -8,0';
    case 'truncate':
    case 'recovery':
      return 'M-5,-4L5,-4L0,5Z';
    case 'lost-ack':
      return 'M-4,-4L4,4M4,-4L-4,4';
    case 'caption':
      return 'M-4,-5h8v8h-3l-2,3v-3h-3z';
    case 'power-loss':
      return 'M-4,-4h8v8h-8z';
    case 'fenced':
      return 'M-4,-4h8v8h-8z';
    case 'rejected':
    case 'send-fail':
      return 'M0,-5L5,4L-5,4Z';
    case 'rebalance':
      return 'M-4,0a4,4 0 1,0 8,0a4,4 0 1,0 -8,0';
    case 'lock-expired':
      // An hourglass: the acquisition lock ran out.
      return 'M-4,-5h8L-4,5h8Z';
    case 'archived':
      // A box with its lid: put away, never delivered again.
      return 'M-5,-5h10v3h-10zM-4,-1h8v6h-8z';
    case 'dead-letter':
      // An envelope: written to the dead-letter topic.
      return 'M-5,-4h10v8h-10zM-5,-4l5,4l5,-4';
    default:
      return 'M-3,-3h6v6h-6z';
  }
}

/**
 * One lane per node over time. The bulk of events (and the messages of a full trace, as sequence-diagram
 * arrows) are drawn on a canvas; axes, markers, fault labels, the cursor and the brush are SVG on top.
 * Wheel zooms time, drag pans, a click moves the cursor; the strip below brushes a time range.
 */
export class TimelineView {
  private run: LoadedRun | null = null;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctxCanvas: HTMLCanvasElement;
  private readonly svg: d3.Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly ctxSvg: d3.Selection<SVGSVGElement, unknown, null, undefined>;
  private readonly zoom: d3.ZoomBehavior<SVGSVGElement, unknown>;
  private readonly brush: d3.BrushBehavior<number>;
  private x = d3.scaleLinear();
  private zx = d3.scaleLinear();
  private width = 800;
  private height = 300;
  private laneH = 20;
  private drawPending = false;
  private cursor = -1;
  private selected: string | null = null;
  private readonly note: HTMLSpanElement;
  private readonly legend: HTMLDivElement;
  /** Milliseconds the last canvas draw took (exposed for the large-trace test). */
  lastDrawMs = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly tooltip: Tooltip,
    private readonly handlers: TimelineHandlers,
  ) {
    root.classList.add('timeline');
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'tl-canvas';
    root.appendChild(this.canvas);
    this.svg = d3.select(root).append('svg').attr('class', 'tl-svg').attr('data-testid', 'timeline-svg');
    this.ctxCanvas = document.createElement('canvas');
    this.ctxCanvas.className = 'tl-context-canvas';
    root.appendChild(this.ctxCanvas);
    this.ctxSvg = d3.select(root).append('svg').attr('class', 'tl-context-svg');
    this.note = document.createElement('span');
    this.note.className = 'tl-note';
    const tools = document.createElement('div');
    tools.className = 'tl-tools';
    for (const [label, title, f] of [
      ['+', 'Zoom in around the cursor (z)', () => this.zoomAtCursor(4)],
      ['−', 'Zoom out around the cursor (Shift+z)', () => this.zoomAtCursor(0.25)],
      ['fit', 'The whole run (w)', () => this.svg.call(this.zoom.transform, d3.zoomIdentity)],
    ] as const) {
      const b = document.createElement('button');
      b.className = 'small';
      b.textContent = label;
      b.title = title;
      b.addEventListener('click', f);
      tools.appendChild(b);
    }
    root.appendChild(tools);
    this.legend = document.createElement('div');
    this.legend.className = 'tl-legend';
    this.legend.dataset['testid'] = 'timeline-legend';
    root.appendChild(this.legend);
    // The note (what this trace leaves out) ends the legend's line.
    this.legend.appendChild(this.note);

    this.zoom = d3
      .zoom<SVGSVGElement, unknown>()
      .filter((ev: Event) => {
        const e = ev as MouseEvent;
        return (!e.ctrlKey || ev.type === 'wheel') && !e.button && ev.type !== 'dblclick';
      })
      .on('zoom', (ev: d3.D3ZoomEvent<SVGSVGElement, unknown>) => {
        this.zx = ev.transform.rescaleX(this.x);
        this.scheduleDraw();
        const src = ev.sourceEvent as Event | null;
        if (src && src.type !== 'brush') this.moveBrush();
        if (src) {
          const [a, b] = this.zx.domain() as [number, number];
          this.handlers.onRange?.(a, b);
        }
      });
    this.brush = d3
      .brushX<number>()
      .on('brush end', (ev: d3.D3BrushEvent<number>) => {
        const src = ev.sourceEvent as Event | null;
        if (!src || src.type === 'zoom') return;
        const sel = ev.selection as [number, number] | null;
        if (!sel) {
          if (ev.type === 'end') this.svg.call(this.zoom.transform, d3.zoomIdentity);
          return;
        }
        const [s0, s1] = sel;
        if (s1 - s0 < 2) return;
        const [r0, r1] = this.x.range() as [number, number];
        const k = (r1 - r0) / (s1 - s0);
        this.svg.call(this.zoom.transform, d3.zoomIdentity.translate(r0 - k * s0, 0).scale(k));
      });
    this.svg.call(this.zoom).on('dblclick.zoom', null);
    this.svg.on('click', (ev: MouseEvent) => this.click(ev));
    this.svg.on('mousemove', (ev: MouseEvent) => this.hover(ev));
    this.svg.on('mouseleave', () => this.tooltip.hide());
    new ResizeObserver(() => this.resize()).observe(root);
  }

  setRun(run: LoadedRun | null): void {
    this.run = run;
    this.buildLegend();
    this.resize();
    this.svg.call(this.zoom.transform, d3.zoomIdentity);
  }

  /**
   * The legend: every glyph and band this run's timeline draws, each drawn with the same path and colour the
   * timeline uses (a kind the run has no marker of is left out).
   */
  private buildLegend(): void {
    const legend = this.legend;
    while (legend.firstChild !== this.note) legend.firstChild!.remove();
    const m = this.run?.model;
    if (!m) return;
    const used = new Set(m.markers.map((mk) => mk.kind));
    const svgNS = 'http://www.w3.org/2000/svg';
    const item = (what: string, draw: (g: SVGSVGElement) => void, kind: string) => {
      const s = document.createElement('span');
      s.dataset['legendKind'] = kind;
      const g = document.createElementNS(svgNS, 'svg');
      g.setAttribute('width', '14');
      g.setAttribute('height', '12');
      g.setAttribute('viewBox', '-7 -6 14 12');
      draw(g);
      s.append(g, ` ${what}`);
      legend.insertBefore(s, this.note);
    };
    const glyphItem = (kind: string, what: string) =>
      item(
        what,
        (g) => {
          const p = document.createElementNS(svgNS, 'path');
          p.setAttribute('d', glyph(kind));
          const col = MARKER_COLORS[kind] ?? '#555';
          p.setAttribute('fill', OUTLINED.has(kind) ? 'none' : col);
          p.setAttribute('stroke', col);
          p.setAttribute('stroke-width', '1.4');
          g.appendChild(p);
        },
        kind,
      );
    const band = (kind: string, color: string, what: string, hatched = false) =>
      item(
        what,
        (g) => {
          const r = document.createElementNS(svgNS, 'rect');
          for (const [k, v] of Object.entries({ x: -6, y: -4, width: 12, height: 8, fill: color })) r.setAttribute(k, String(v));
          g.appendChild(r);
          if (hatched) {
            const l = document.createElementNS(svgNS, 'path');
            l.setAttribute('d', 'M-4,4L0,-4M2,4L6,-4');
            l.setAttribute('stroke', 'rgba(255,255,255,0.8)');
            g.appendChild(l);
          }
        },
        kind,
      );
    const names: [string, string][] = [
      ['election', 'election'],
      ['controller', 'controller election'],
      ['isr', 'ISR change'],
      ['truncate', 'truncation'],
      ['recovery', 'log recovery after an unclean shutdown'],
      ['power-loss', 'page cache lost'],
      ['fenced', 'fenced / unfenced'],
      ['lost-ack', 'ack of a write later lost'],
      ['send-fail', 'send failed'],
      ['rejected', 'request rejected'],
      ['rebalance', 'rebalance'],
      ['lock-expired', 'acquisition lock expired (share group)'],
      ['archived', 'record archived (share group)'],
      ['dead-letter', 'written to the dead-letter topic'],
      ['caption', 'caption'],
      ['host', 'host event'],
    ];
    for (const [kind, what] of names) if (used.has(kind as never)) glyphItem(kind, what);
    if (m.faults.length > 0) band('fault', 'rgba(214,69,69,0.25)', 'fault (shaded lanes)');
    const states = new Set(m.hostIntervals.map((h) => h.state));
    if (states.has('crashed')) band('down-crashed', 'rgba(214,69,69,0.5)', 'crashed', true);
    if (states.has('powered off')) band('down-powered-off', 'rgba(30,30,30,0.55)', 'powered off', true);
    if (states.has('paused')) band('down-paused', 'rgba(224,165,38,0.55)', 'paused', true);
    if (states.has('stopped') || states.has('stopping')) band('down-stopped', 'rgba(155,155,155,0.55)', 'stopped', true);
    if (states.has('restarting')) band('down-restarting', 'rgba(127,184,230,0.6)', 'restarting', true);
    if (m.t0 > m.tFirst) band('boot', 'rgba(120,130,140,0.3)', 'boot (before time 0)');
    if (m.tQuiet >= 0) band('quiet', 'rgba(46,158,91,0.2)', 'quiet period');
    band('ticks', '#7d8ea3', 'events (one tick per pixel; colour = kind)');
  }

  /** Zooms to a time range (absolute us). */
  zoomTo(t0: number, t1: number): void {
    const [r0, r1] = this.x.range() as [number, number];
    const a = this.x(t0);
    const b = this.x(t1);
    if (!(b > a)) return;
    const k = (r1 - r0) / (b - a);
    this.svg.call(this.zoom.transform, d3.zoomIdentity.translate(r0 - k * a, 0).scale(k));
  }

  /** Zooms by a factor, keeping the cursor where it is on screen (or centring it when off screen). */
  zoomAtCursor(factor: number): void {
    const run = this.run;
    if (!run) return;
    const m = run.model;
    const ct = this.cursor >= 0 ? m.t[this.cursor]! : m.tFirst;
    const [a, b] = this.zx.domain() as [number, number];
    const span = (b - a) / factor;
    const inView = ct >= a && ct <= b;
    const frac = inView ? (ct - a) / (b - a) : 0.5;
    const t0 = Math.max(m.tFirst, ct - frac * span);
    this.zoomTo(t0, Math.min(m.tLast, t0 + span));
  }

  /** The visible time range (absolute us). */
  visibleRange(): [number, number] {
    const [a, b] = this.zx.domain() as [number, number];
    return [a, b];
  }

  render(cursor: number, selected: string | null): void {
    this.cursor = cursor;
    this.selected = selected;
    this.drawOverlay();
  }

  resize(): void {
    const run = this.run;
    // clientWidth leaves out a vertical scrollbar: many lanes scroll rather than squeeze below 12 px.
    const w = Math.max(300, this.root.clientWidth);
    const h = Math.max(160, this.root.clientHeight);
    this.width = w;
    this.height = h;
    const lanes = run?.model.lanes.length ?? 1;
    this.laneH = Math.max(12, Math.min(28, (h - AXIS_H - CONTEXT_H - 28) / lanes));
    const focusH = AXIS_H + lanes * this.laneH;
    const dpr = window.devicePixelRatio || 1;
    for (const [c, ch, top] of [
      [this.canvas, focusH, 0],
      [this.ctxCanvas, CONTEXT_H, focusH + 8],
    ] as const) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(ch * dpr);
      c.style.width = `${w}px`;
      c.style.height = `${ch}px`;
      c.style.top = `${top}px`;
    }
    this.svg.attr('width', w).attr('height', focusH).style('top', '0px');
    this.legend.style.top = `${focusH + 8 + CONTEXT_H + 1}px`;
    this.ctxSvg.attr('width', w).attr('height', CONTEXT_H).style('top', `${focusH + 8}px`);
    if (run) {
      const m = run.model;
      const old = d3.zoomTransform(this.svg.node()!);
      this.x = d3.scaleLinear().domain([m.tFirst, Math.max(m.tLast, m.tFirst + 1)]).range([GUTTER, w - RIGHT]);
      this.zx = old.rescaleX(this.x);
      this.zoom
        .scaleExtent([1, Math.max(1, (m.tLast - m.tFirst) / 2000)])
        .translateExtent([
          [GUTTER, 0],
          [w - RIGHT, focusH],
        ])
        .extent([
          [GUTTER, 0],
          [w - RIGHT, focusH],
        ]);
      this.brush.extent([
        [GUTTER, 0],
        [w - RIGHT, CONTEXT_H],
      ]);
      this.ctxSvg.selectAll<SVGGElement, number>('g.brush').data([0]).join('g').attr('class', 'brush').call(this.brush);
    }
    this.drawContext();
    this.scheduleDraw();
  }

  private scheduleDraw(): void {
    if (this.drawPending) return;
    this.drawPending = true;
    requestAnimationFrame(() => {
      this.drawPending = false;
      this.draw();
      this.drawOverlay();
    });
  }

  private laneY(l: number): number {
    return AXIS_H + l * this.laneH;
  }

  /** The canvas layer: lanes, shaded periods, fault and downtime intervals, event ticks, messages. */
  private draw(): void {
    const started = performance.now();
    const run = this.run;
    const c = this.canvas.getContext('2d');
    if (!c) return;
    const dpr = window.devicePixelRatio || 1;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, this.width, this.canvas.height / dpr);
    if (!run) return;
    const m = run.model;
    const zx = this.zx;
    const [v0, v1] = zx.domain() as [number, number];
    const left = GUTTER;
    const right = this.width - RIGHT;
    const lanes = m.lanes;
    const lh = this.laneH;
    c.save();
    c.beginPath();
    c.rect(left, 0, right - left, this.canvas.height / dpr);
    c.clip();

    // Lane stripes.
    for (let l = 0; l < lanes.length; l++) {
      c.fillStyle = l % 2 === 0 ? '#fafbfc' : '#f1f3f6';
      c.fillRect(left, this.laneY(l), right - left, lh);
    }
    const span = (a: number, b: number): [number, number] => [Math.max(left, zx(a)), Math.min(right, zx(b))];
    // Boot and quiet periods.
    if (m.t0 > v0) {
      const [a, b] = span(m.tFirst, m.t0);
      c.fillStyle = 'rgba(120,130,140,0.12)';
      c.fillRect(a, AXIS_H, b - a, lanes.length * lh);
    }
    if (m.tQuiet >= 0 && m.tQuiet < v1) {
      const [a, b] = span(m.tQuiet, m.tLast);
      c.fillStyle = 'rgba(46,158,91,0.07)';
      c.fillRect(a, AXIS_H, b - a, lanes.length * lh);
    }
    // Faults shade the lanes of the hosts they hit.
    for (const f of m.faults) {
      if (f.end < v0 || f.start > v1) continue;
      const [a, b] = span(f.start, Math.max(f.end, f.start + (v1 - v0) / 400));
      c.fillStyle = FAULT_FILL[f.fault] ?? '#d64545';
      c.globalAlpha = 0.14;
      for (const l of f.lanes) c.fillRect(a, this.laneY(l), Math.max(1, b - a), lh);
      c.globalAlpha = 1;
    }
    // Downtime: hatched bands.
    for (const h of m.hostIntervals) {
      if (h.end < v0 || h.start > v1) continue;
      const [a, b] = span(h.start, h.end);
      const y = this.laneY(h.lane);
      c.fillStyle =
        h.state === 'crashed'
          ? 'rgba(214,69,69,0.28)'
          : h.state === 'powered off'
            ? 'rgba(30,30,30,0.35)'
            : h.state === 'paused'
              ? 'rgba(224,165,38,0.35)'
              : h.state === 'stopped' || h.state === 'stopping'
                ? 'rgba(155,155,155,0.35)'
                : 'rgba(127,184,230,0.35)';
      c.fillRect(a, y + 2, Math.max(1, b - a), lh - 4);
      c.strokeStyle = 'rgba(255,255,255,0.6)';
      c.lineWidth = 1;
      c.beginPath();
      for (let xx = a - lh; xx < b; xx += 6) {
        c.moveTo(Math.max(a, xx), y + 2 + Math.max(0, a - xx));
        c.lineTo(Math.min(b, xx + lh - 4), y + lh - 2 - Math.max(0, xx + lh - 4 - b));
      }
      c.stroke();
    }

    // Event ticks, one per pixel column and lane (the most important category wins the column).
    const cats = m.kindCategory;
    const colors = cats.map((k) => CATEGORY_COLORS[k] ?? '#999');
    const prio = cats.map((k) => CATEGORY_PRIORITY[k] ?? 0);
    const msgKind = m.kinds.indexOf('net.send');
    for (let l = 0; l < lanes.length; l++) {
      const evs = m.laneEvents[l]!;
      let lo = 0;
      let hi = evs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (m.t[evs[mid]!]! < v0) lo = mid + 1;
        else hi = mid;
      }
      const y = this.laneY(l) + 3;
      const hgt = lh - 6;
      let col = -1;
      let best = -1;
      let bestKind = 0;
      let count = 0;
      const flush = () => {
        if (col < 0) return;
        c.fillStyle = colors[bestKind]!;
        c.globalAlpha = count > 3 ? 1 : 0.55 + count * 0.15;
        c.fillRect(col, y, 1.6, hgt);
      };
      for (let j = lo; j < evs.length; j++) {
        const i = evs[j]!;
        const t = m.t[i]!;
        if (t > v1) break;
        const k = m.kindOf[i]!;
        if (k === msgKind && m.messages) continue;
        const px = Math.floor(zx(t));
        if (px !== col) {
          flush();
          col = px;
          best = -1;
          count = 0;
        }
        count++;
        if (prio[k]! > best) {
          best = prio[k]!;
          bestKind = k;
        }
      }
      flush();
      c.globalAlpha = 1;
    }

    // Messages as arrows (the sequence-diagram look), when zoomed in enough to read them.
    const msgs = m.messages;
    let note = '';
    if (msgs) {
      const maxLat = 2_000_000;
      let lo = 0;
      let hi = msgs.n;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (msgs.send[mid]! < v0 - maxLat) lo = mid + 1;
        else hi = mid;
      }
      const visible: number[] = [];
      for (let j = lo; j < msgs.n && msgs.send[j]! <= v1; j++) if (msgs.arrive[j]! >= v0) visible.push(j);
      if (visible.length > 6000) note = `${visible.length} messages in view: zoom in (wheel) to see them as arrows`;
      else {
        const byColor = new Map<string, number[]>();
        for (const j of visible) {
          const col = messageColor(msgs.types[msgs.type[j]!]!);
          let list = byColor.get(col);
          if (!list) byColor.set(col, (list = []));
          list.push(j);
        }
        const arrows = visible.length <= 1200;
        c.lineWidth = arrows ? 1.2 : 0.8;
        c.globalAlpha = arrows ? 0.85 : 0.45;
        for (const [col, list] of byColor) {
          c.strokeStyle = col;
          c.fillStyle = col;
          c.beginPath();
          for (const j of list) {
            const x0 = zx(msgs.send[j]!);
            const x1 = zx(msgs.arrive[j]!);
            const y0 = this.laneY(msgs.from[j]!) + lh / 2;
            const y1 = this.laneY(msgs.to[j]!) + lh / 2;
            c.moveTo(x0, y0);
            c.lineTo(x1, y1);
          }
          c.stroke();
          if (arrows) {
            c.beginPath();
            for (const j of list) {
              const x0 = zx(msgs.send[j]!);
              const x1 = zx(msgs.arrive[j]!);
              const y0 = this.laneY(msgs.from[j]!) + lh / 2;
              const y1 = this.laneY(msgs.to[j]!) + lh / 2;
              const a = Math.atan2(y1 - y0, x1 - x0);
              c.moveTo(x1, y1);
              c.lineTo(x1 - 6 * Math.cos(a - 0.4), y1 - 6 * Math.sin(a - 0.4));
              c.lineTo(x1 - 6 * Math.cos(a + 0.4), y1 - 6 * Math.sin(a + 0.4));
              c.closePath();
            }
            c.fill();
          }
        }
        c.globalAlpha = 1;
        if (visible.length > 0 && arrows && visible.length <= 200) {
          // Request names beside their arrows, with a white halo so they read over the lanes.
          c.font = '10px system-ui, sans-serif';
          c.lineWidth = 3;
          c.strokeStyle = 'rgba(255,255,255,0.9)';
          c.fillStyle = '#222';
          for (const j of visible) {
            const x0 = zx(msgs.send[j]!);
            const x1 = zx(msgs.arrive[j]!);
            if (Math.abs(x1 - x0) < 10) continue;
            const y0 = this.laneY(msgs.from[j]!) + lh / 2;
            const y1 = this.laneY(msgs.to[j]!) + lh / 2;
            const label = msgs.types[msgs.type[j]!]!;
            // A quarter of the way along: a request's and its response's labels sit at opposite ends.
            const lx = x0 + (x1 - x0) * 0.25 + 4;
            const ly = y0 + (y1 - y0) * 0.25 + 3;
            c.strokeText(label, lx, ly);
            c.fillText(label, lx, ly);
          }
        }
      }
    } else if (run.model.spec) {
      note = 'messages are not in this trace (set trace to full to draw them as arrows)';
    }
    c.restore();
    this.note.textContent = note;
    this.lastDrawMs = performance.now() - started;
    this.root.dataset['drawMs'] = this.lastDrawMs.toFixed(1);
  }

  /** The context strip: event density over the whole run, and the faults. */
  private drawContext(): void {
    const c = this.ctxCanvas.getContext('2d');
    if (!c) return;
    const dpr = window.devicePixelRatio || 1;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, this.width, CONTEXT_H);
    const run = this.run;
    if (!run) return;
    const m = run.model;
    const x = this.x;
    const cols = Math.max(1, Math.floor(this.width - RIGHT - GUTTER));
    const bins = new Float64Array(cols);
    const t0 = m.tFirst;
    const span = Math.max(1, m.tLast - m.tFirst);
    for (let i = 0; i < m.n; i++) {
      const b = Math.min(cols - 1, Math.floor(((m.t[i]! - t0) / span) * cols));
      bins[b]!++;
    }
    let max = 1;
    for (const v of bins) max = Math.max(max, v);
    c.fillStyle = '#eef1f4';
    c.fillRect(GUTTER, 0, cols, CONTEXT_H);
    for (const f of m.faults) {
      c.fillStyle = FAULT_FILL[f.fault] ?? '#d64545';
      c.globalAlpha = 0.25;
      c.fillRect(x(f.start), 0, Math.max(2, x(f.end) - x(f.start)), CONTEXT_H);
    }
    c.globalAlpha = 1;
    c.fillStyle = '#7d8ea3';
    const lm = Math.log1p(max);
    for (let b = 0; b < cols; b++) {
      const h = (Math.log1p(bins[b]!) / lm) * (CONTEXT_H - 4);
      c.fillRect(GUTTER + b, CONTEXT_H - h, 1, h);
    }
    c.fillStyle = '#555';
    c.font = '11px system-ui, sans-serif';
    c.fillText('whole run', 8, 14);
    c.fillStyle = '#888';
    c.fillText('brush to zoom', 8, 28);
  }

  private moveBrush(): void {
    const [a, b] = this.zx.domain() as [number, number];
    const full = this.x.domain() as [number, number];
    const g = this.ctxSvg.select<SVGGElement>('g.brush') as unknown as d3.Selection<SVGGElement, number, null, undefined>;
    if (g.empty()) return;
    if (a <= full[0] && b >= full[1]) this.brush.move(g, null);
    else this.brush.move(g, [this.x(a), this.x(b)]);
  }

  /** The SVG layer: axis, lane labels, markers, fault labels, cursor, the chosen record. */
  private drawOverlay(): void {
    const run = this.run;
    const svg = this.svg;
    if (!run) {
      svg.selectAll('*').remove();
      return;
    }
    const m = run.model;
    const zx = this.zx;
    const [v0, v1] = zx.domain() as [number, number];
    const lh = this.laneH;
    const t0 = m.t0;

    // Ticks at round scenario times (0 = the cluster has booted).
    const axisScale = d3
      .scaleLinear()
      .domain([v0 - t0, v1 - t0])
      .range(zx.range() as [number, number]);
    const axis = d3
      .axisTop(axisScale)
      .ticks(Math.max(2, Math.floor((this.width - GUTTER) / 90)))
      .tickFormat((d) => `${+(Number(d) / 1e6).toFixed(6)}s`);
    svg.selectAll<SVGGElement, number>('g.axis').data([0]).join('g').attr('class', 'axis').attr('transform', `translate(0,${AXIS_H - 2})`).call(axis);

    svg
      .selectAll<SVGTextElement, (typeof m.lanes)[number]>('text.lane-label')
      .data(m.lanes, (d) => d.id)
      .join('text')
      .attr('class', (d) => `lane-label ${d.group}`)
      .attr('x', 6)
      .attr('y', (_d, i) => this.laneY(i) + lh / 2 + 4)
      .text((d) => (d.label.length > 18 ? `${d.label.slice(0, 17)}…` : d.label))
      .selectAll('title')
      .data((d) => [d])
      .join('title')
      .text((d) => `${d.label}${d.zone ? ` · ${d.zone}` : ''}${d.rack ? ` · rack ${d.rack}` : ''}`);

    // Fault labels on the top lane.
    const faults = m.faults.filter((f) => f.end >= v0 && f.start <= v1);
    svg
      .selectAll<SVGTextElement, (typeof faults)[number]>('text.fault-label')
      .data(faults, (f) => `${f.index}:${f.start}`)
      .join('text')
      .attr('class', 'fault-label')
      .attr('x', (f) => Math.max(GUTTER + 2, zx(f.start) + 3))
      .attr('y', (_f, k) => this.laneY(0) + (k % 2 === 0 ? lh / 2 + 4 : lh - 1))
      .text((f) => {
        // As much of the label as fits before the next fault starts.
        const next = faults.find((g) => g.start > f.start);
        const room = (next ? zx(next.start) : this.width) - Math.max(GUTTER + 2, zx(f.start) + 3) - 4;
        const full = `${f.fault} ${f.hosts.length <= 3 ? f.hosts.map((h) => m.names.lane(h)).join(', ') : `${f.hosts.length} hosts`}`;
        const chars = Math.floor(room / 6);
        return chars >= full.length ? full : chars >= f.fault.length ? f.fault : '';
      });

    // Markers.
    const markers = m.markers.filter((mk) => mk.t >= v0 && mk.t <= v1 && mk.kind !== 'fault' && mk.kind !== 'scenario');
    const shown = markers.length > 1500 ? markers.filter((mk) => mk.kind !== 'fenced' && mk.kind !== 'rejected').slice(0, 1500) : markers;
    const g = svg.selectAll<SVGGElement, number>('g.markers').data([0]).join('g').attr('class', 'markers');
    g.selectAll<SVGPathElement, Marker>('path.marker')
      .data(shown, (d) => String(d.i))
      .join((enter) => {
        const p = enter.append('path').attr('class', 'marker');
        p.append('title');
        return p;
      })
      .attr('d', (d) => glyph(d.kind))
      .attr('data-kind', (d) => d.kind)
      .attr('transform', (d) => `translate(${zx(d.t)},${this.laneY(d.lane) + lh / 2})`)
      .attr('fill', (d) => (OUTLINED.has(d.kind) ? 'none' : (MARKER_COLORS[d.kind] ?? '#555')))
      .attr('stroke', (d) => MARKER_COLORS[d.kind] ?? '#555')
      .on('click', (ev: MouseEvent, d) => {
        ev.stopPropagation();
        this.handlers.onSeek(d.i);
      })
      .select('title')
      .text((d) => `${rel(d.t, t0)} ${d.label}`);
    // Elections draw a line across all lanes: the moment leadership moved.
    const elections = shown.filter((d) => d.kind === 'election' || d.kind === 'caption');
    g.selectAll<SVGLineElement, Marker>('line.election')
      .data(elections, (d) => String(d.i))
      .join('line')
      .attr('class', (d) => `election ${d.kind}`)
      .attr('x1', (d) => zx(d.t))
      .attr('x2', (d) => zx(d.t))
      .attr('y1', AXIS_H)
      .attr('y2', AXIS_H + m.lanes.length * lh);

    // The chosen record: where it was sent, appended, acknowledged.
    const info = this.selected ? m.values.get(this.selected) : undefined;
    const pts: { t: number; lane: number; label: string }[] = [];
    if (info) {
      const pl = m.laneIndex.get(info.producer);
      const bl = m.laneIndex.get(`broker-${info.broker}`);
      if (pl !== undefined && info.invokeT >= 0) pts.push({ t: info.invokeT, lane: pl, label: `sent ${info.value}` });
      if (bl !== undefined && info.appendT >= 0) pts.push({ t: info.appendT, lane: bl, label: `${m.names.broker(info.broker)} appended it at offset ${info.offset}` });
      if (pl !== undefined && info.ackT >= 0) pts.push({ t: info.ackT, lane: pl, label: `acknowledged (acks=${info.acks})` });
      const rl = m.laneIndex.get(info.reader);
      if (rl !== undefined && info.readT >= 0) pts.push({ t: info.readT, lane: rl, label: `first read by ${info.reader}` });
    }
    const sg = svg.selectAll<SVGGElement, number>('g.selected').data([0]).join('g').attr('class', 'selected');
    sg.selectAll('circle')
      .data(pts)
      .join('circle')
      .attr('cx', (d) => zx(d.t))
      .attr('cy', (d) => this.laneY(d.lane) + lh / 2)
      .attr('r', 6)
      .attr('fill', 'none')
      .attr('stroke', HIGHLIGHT)
      .attr('stroke-width', 2.5)
      .attr('data-testid', 'timeline-selected')
      .selectAll('title')
      .data((d) => [d])
      .join('title')
      .text((d) => `${rel(d.t, t0)} ${d.label}`);

    // Alert intervals: a red band under the axis while each alert fires (pending ones are not shown).
    const firing = run.alerts.flatMap((a) => a.firings.map((f) => ({ name: a.name, rule: a.rule, start: t0 + f.firedUs, end: f.resolvedUs === null ? m.tLast : t0 + f.resolvedUs })));
    const bands = firing.filter((f) => f.end >= v0 && f.start <= v1);
    svg
      .selectAll<SVGRectElement, (typeof bands)[number]>('rect.alert-band')
      .data(bands)
      .join('rect')
      .attr('class', 'alert-band')
      .attr('data-testid', 'timeline-alert')
      .attr('x', (f) => Math.max(GUTTER, zx(f.start)))
      .attr('y', AXIS_H)
      .attr('width', (f) => Math.max(2, Math.min(this.width - RIGHT, zx(f.end)) - Math.max(GUTTER, zx(f.start))))
      .attr('height', this.laneY(m.lanes.length - 1) + lh - AXIS_H)
      .attr('fill', 'rgba(214,69,69,0.10)')
      .attr('stroke', 'rgba(214,69,69,0.5)')
      .attr('stroke-width', 0.5)
      .style('pointer-events', 'none')
      .selectAll('title')
      .data((f) => [f])
      .join('title')
      .text((f) => `alert ${f.name}: ${f.rule}, firing ${rel(f.start, t0)} to ${rel(f.end, t0)}`);

    // The cursor.
    const ct = this.cursor >= 0 ? m.t[this.cursor]! : m.tFirst;
    const cx = zx(ct);
    const inView = cx >= GUTTER && cx <= this.width - RIGHT;
    svg
      .selectAll('line.cursor')
      .data(inView ? [cx] : [])
      .join('line')
      .attr('class', 'cursor')
      .attr('x1', (d) => d)
      .attr('x2', (d) => d)
      .attr('y1', AXIS_H - 4)
      .attr('y2', AXIS_H + m.lanes.length * lh);
    const ccx = this.x(ct);
    this.ctxSvg
      .selectAll('line.cursor')
      .data([ccx])
      .join('line')
      .attr('class', 'cursor')
      .attr('x1', (d) => d)
      .attr('x2', (d) => d)
      .attr('y1', 0)
      .attr('y2', CONTEXT_H);
  }

  private click(ev: MouseEvent): void {
    const run = this.run;
    if (!run || ev.defaultPrevented) return;
    const [mx] = d3.pointer(ev, this.svg.node());
    if (mx < GUTTER) return;
    const t = this.zx.invert(mx);
    const i = run.model.indexAtTime(t);
    this.handlers.onSeek(Math.max(0, i));
  }

  private hover(ev: MouseEvent): void {
    const run = this.run;
    if (!run) return;
    const [mx, my] = d3.pointer(ev, this.svg.node());
    const m = run.model;
    const lane = Math.floor((my - AXIS_H) / this.laneH);
    if (mx < GUTTER || lane < 0 || lane >= m.lanes.length) {
      this.tooltip.hide();
      return;
    }
    const t = this.zx.invert(mx);
    const tol = Math.abs(this.zx.invert(mx + 5) - t);
    const evs = m.laneEvents[lane]!;
    let lo = 0;
    let hi = evs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (m.t[evs[mid]!]! < t - tol) lo = mid + 1;
      else hi = mid;
    }
    // The most important event near the pointer.
    let best = -1;
    let bestP = -1;
    let n = 0;
    for (let j = lo; j < evs.length && m.t[evs[j]!]! <= t + tol; j++) {
      const i = evs[j]!;
      n++;
      const p = CATEGORY_PRIORITY[m.kindCategory[m.kindOf[i]!]!] ?? 0;
      if (p > bestP) {
        bestP = p;
        best = i;
      }
    }
    const laneName = m.lanes[lane]!.label;
    const down = m.hostIntervals.find((h) => h.lane === lane && h.start <= t && t <= h.end);
    const faults = m.faults.filter((f) => f.lanes.includes(lane) && f.start <= t && t <= f.end);
    const extra = [...(down ? [`${down.state} from ${rel(down.start, m.t0)} to ${rel(down.end, m.t0)}`] : []), ...faults.map((f) => `fault: ${f.fault} ${f.detail}`)];
    if (best < 0) {
      if (extra.length) this.tooltip.show(ev.clientX, ev.clientY, `${laneName} at ${rel(t, m.t0)}`, extra);
      else this.tooltip.hide();
      return;
    }
    const e = m.events[best]!;
    this.tooltip.show(ev.clientX, ev.clientY, `${rel(e.t, m.t0)} ${laneName}`, [`${e.kind}: ${m.names.text(describeEvent(e))}`, ...(n > 1 ? [`(${n} events here; click to move the cursor)`] : []), ...extra]);
  }
}
