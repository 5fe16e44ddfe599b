import { el } from '../lib/dom';
import { rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';

export interface TransportHandlers {
  onPlay(): void;
  onStep(dir: 1 | -1, notable: boolean): void;
  onSeekRel(relUs: number): void;
  onSpeed(speed: number): void;
}

export const SPEEDS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];

const TICK_COLORS: Record<string, string> = {
  fault: '#d64545',
  host: '#d64545',
  election: '#8e5ec9',
  caption: '#0b7285',
  'lost-ack': '#d64545',
  truncate: '#d64545',
  isr: '#4e79a7',
};

/** Play, pause, step, speed, and the time slider (with the notable moments marked under it). */
export class Transport {
  private run: LoadedRun | null = null;
  readonly slider: HTMLInputElement;
  private readonly playBtn: HTMLButtonElement;
  private readonly clock: HTMLSpanElement;
  private readonly ticks: HTMLCanvasElement;
  private readonly speedSel: HTMLSelectElement;

  constructor(root: HTMLElement, handlers: TransportHandlers) {
    const btn = (label: string, title: string, f: () => void, testid: string) => {
      const b = el('button', { title, 'data-testid': testid }, label);
      b.addEventListener('click', () => {
        f();
        // Leave the keyboard to the shortcuts (Space plays, arrows step).
        b.blur();
      });
      return b;
    };
    this.playBtn = btn('Play', 'Play / pause (Space)', () => handlers.onPlay(), 'play');
    this.slider = el('input', { type: 'range', min: 0, max: 1, step: 1, value: 0, 'aria-label': 'time', 'data-testid': 'time-slider' });
    this.slider.addEventListener('input', () => handlers.onSeekRel(Number(this.slider.value) * 1000));
    this.ticks = el('canvas', { class: 'ticks' });
    this.clock = el('span', { class: 'clock', 'data-testid': 'clock' });
    this.speedSel = el('select', { 'aria-label': 'speed', title: 'Playback speed ([ and ])', 'data-testid': 'speed' }, ...SPEEDS.map((s) => el('option', { value: s, selected: s === 1 }, `${s}×`)));
    this.speedSel.addEventListener('change', () => handlers.onSpeed(Number(this.speedSel.value)));
    root.append(
      btn('◀◀', 'Previous notable event (Shift+←)', () => handlers.onStep(-1, true), 'prev-notable'),
      btn('◀', 'Previous event (←)', () => handlers.onStep(-1, false), 'prev-event'),
      this.playBtn,
      btn('▶', 'Next event (→)', () => handlers.onStep(1, false), 'next-event'),
      btn('▶▶', 'Next notable event (Shift+→)', () => handlers.onStep(1, true), 'next-notable'),
      this.speedSel,
      el('div', { class: 'slider-wrap' }, this.slider, this.ticks),
      this.clock,
    );
    new ResizeObserver(() => this.drawTicks()).observe(this.ticks);
  }

  setRun(run: LoadedRun | null): void {
    this.run = run;
    if (!run) return;
    const m = run.model;
    this.slider.min = String(Math.floor((m.tFirst - m.t0) / 1000));
    this.slider.max = String(Math.ceil((m.tLast - m.t0) / 1000));
    this.drawTicks();
  }

  setSpeed(speed: number): void {
    this.speedSel.value = String(speed);
  }

  render(cursor: number, now: number, playing: boolean): void {
    const run = this.run;
    this.playBtn.textContent = playing ? 'Pause' : 'Play';
    if (!run) return;
    const m = run.model;
    const v = Math.round((now - m.t0) / 1000);
    if (document.activeElement !== this.slider || Number(this.slider.value) !== v) this.slider.value = String(v);
    this.clock.textContent = `t = ${rel(now, m.t0)} · event ${cursor + 1}/${m.n}`;
  }

  private drawTicks(): void {
    const c = this.ticks;
    const w = c.clientWidth;
    const h = c.clientHeight || 8;
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.max(1, Math.round(w * dpr));
    c.height = Math.round(h * dpr);
    const g = c.getContext('2d');
    const run = this.run;
    if (!g || !run) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const m = run.model;
    const span = Math.max(1, m.tLast - m.tFirst);
    // The range input's thumb travels inside a margin of about half its width.
    const pad = 8;
    for (const mk of m.markers) {
      const col = TICK_COLORS[mk.kind];
      if (!col) continue;
      g.fillStyle = col;
      g.fillRect(pad + ((mk.t - m.tFirst) / span) * (w - 2 * pad), 0, 2, h);
    }
  }
}
