import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { byId, el, replace } from '../lib/dom';
import { clamp, rel } from '../lib/format';
import { parseDuration } from '../../../sim/core/time';
import type { RunPayload, WorkerRequest } from '../worker/protocol';
import { LoadedRun } from './loadedRun';
import { findScenario, LIBRARY, usesAnalogy } from './library';
import { lessonView } from './curriculum';
import { actionsFor, decodeFault, describeFault, encodeFault, linkPeers, withFaults, type LiveFault } from './liveFault';
import { linkMenu } from '../views/linkMenu';
import { describeSets, effectiveSettings, scenarioValue, valueOf } from './settings';
import { defaultState, readUrl, writeUrl, type UrlState } from './urlState';
import { JobCancelled, startJob, type Job, type Progress } from './workerClient';
import { ChecksView } from '../views/checksView';
import { ClusterView } from '../views/clusterView';
import { EventsView } from '../views/eventsView';
import { Gallery } from '../views/gallery';
import { GroupsView } from '../views/groupsView';
import { OperatorView } from '../views/operatorView';
import { ShareView } from '../views/shareView';
import { buildHelp } from '../views/help';
import { LearnView } from '../views/learnView';
import { PartitionView } from '../views/partitionView';
import { SettingsBar } from '../views/settingsBar';
import { TimelineView } from '../views/timelineView';
import { Tooltip } from '../views/tooltip';
import { SPEEDS, Transport } from '../views/transport';
import { CaptionBar } from '../views/captionBar';
import { ScenarioEditor } from '../views/scenarioEditor';
import { captionSubject } from '../model/captionSubject';
import type { Caption } from '../model/traceModel';
import { tpKey } from '../../../sim/kafka/topicPartition';

/** A side of the stage: one run's cluster and partition views (two in compare mode). */
interface Pane {
  readonly label: 'A' | 'B';
  readonly root: HTMLElement;
  readonly title: HTMLElement;
  readonly cluster: ClusterView;
  readonly partition: PartitionView;
}

interface Restore {
  readonly e?: number | null;
  /** Scenario-relative cursor time, us. */
  readonly rel?: number | null;
  readonly value?: string | null;
  readonly partition?: string | null;
}

type Side = UrlState['side'];
type View = UrlState['view'];

/** Numeric seeds stay numbers (as the CLI reads `--seed 3`); anything else is a string seed. */
export function parseSeed(text: string): number | string {
  const t = text.trim();
  return /^-?\d+$/.test(t) ? Number(t) : t;
}

/**
 * The application: one time cursor shared by every view, the runs (A, and B when comparing), the
 * worker jobs that make them, and the URL that reproduces what is on screen.
 */
export class App {
  private readonly tooltip = new Tooltip(document.body);
  private readonly panes: Pane[] = [];
  private readonly panesRoot = byId('panes');
  private readonly timeline: TimelineView;
  /** Run B's own timeline in compare mode (its faults, elections and captions at its own moments). */
  private timelineB: TimelineView | null = null;
  private readonly checks: ChecksView;
  private readonly events: EventsView;
  private readonly learn: LearnView;
  private readonly groups: GroupsView;
  private readonly operator: OperatorView;
  private readonly share: ShareView;
  private readonly transport: Transport;
  private readonly settings: SettingsBar;
  private readonly gallery: Gallery;
  private readonly captionBar: CaptionBar;
  private readonly editor: ScenarioEditor;
  private readonly status = byId('status');

  private url: UrlState = defaultState();
  private spec: ScenarioSpec | null = null;
  private fileName: string | null = null;
  private runA: LoadedRun | null = null;
  private runB: LoadedRun | null = null;
  private cursor = -1;
  private cursorT = 0;
  private playing = false;
  /** Guided mode: playback stops at each caption until Continue. */
  private guided = true;
  /** The caption (its event index) playback is waiting at, or -1. */
  private waitingAt = -1;
  /** The caption last brought on screen (its index), so the views follow each new one once. */
  private shownCaption = -1;
  /** Spoiler-free mode: the learner asked to see the outcome before the end. */
  private revealed = false;
  private speed = 1;
  private lastFrame = 0;
  private selected: string | null = null;
  private jobs: Job[] = [];
  private loads = 0;
  private renderPending = false;
  private urlTimer: number | undefined;
  private readonly cache = new Map<string, RunPayload>();

  constructor() {
    this.timeline = new TimelineView(byId('timeline-a'), this.tooltip, { onSeek: (i) => this.seek(i), onRange: (a, b) => this.syncRange('A', a, b) });
    for (const [id, side] of [['timeline-a', 'A'], ['timeline-b', 'B']] as const) byId(id).appendChild(el('span', { class: 'tl-side', hidden: true }, side));
    this.checks = new ChecksView(byId('side-checks'), {
      onSelectValue: (v) => this.select(v, true),
      onSeekRel: (r) => this.seekRel(r),
    });
    this.events = new EventsView(byId('side-events'), { onSeek: (i) => this.seek(i) });
    this.learn = new LearnView(byId('side-learn'), { onSeek: (i) => this.seek(i), onTry: (set) => this.tryChange(set) });
    this.groups = new GroupsView(byId('groups-pane'), { onSeek: (i) => this.seek(i) });
    this.operator = new OperatorView(byId('operator-pane'), { onSeek: (i) => this.seek(i) });
    this.share = new ShareView(byId('share-pane'), this.tooltip, {
      onSelectValue: (v) => this.select(v, false),
      // A moment of B is the same scenario time on A's cursor.
      onSeek: (side, i) => {
        const b = this.runB?.model;
        if (side === 'A') this.seek(i);
        else if (b) this.seekRel(b.t[i]! - b.t0);
      },
    });
    this.transport = new Transport(byId('transport'), {
      onPlay: () => this.togglePlay(),
      onStep: (dir, notable) => this.step(dir, notable),
      onSeekRel: (r) => this.seekRel(r),
      onSpeed: (s) => (this.speed = s),
    });
    this.settings = new SettingsBar(byId('settings'), {
      onChange: (which, sets) => this.changeSets(which, sets),
      onCompare: (on) => this.setCompare(on),
      onRunHere: () => this.runHere(),
    });
    this.gallery = new Gallery(byId('gallery'), LIBRARY, {
      onChoose: (id, seed) => this.openScenario(id, seed),
      onOpenFile: () => byId<HTMLInputElement>('file-input').click(),
      onClose: () => this.gallery.close(),
      onSpoilerFree: (on) => {
        this.url.spoilerFree = on;
        this.scheduleRender();
      },
    });
    // Spoiler-free: a note over the checks, with a way to see them now.
    const reveal = el('button', { class: 'small', 'data-testid': 'reveal' }, 'show them now');
    reveal.addEventListener('click', () => {
      this.revealed = true;
      this.scheduleRender();
    });
    byId('side-checks').prepend(el('div', { class: 'spoiler-note', 'data-testid': 'spoiler-note' }, 'Spoiler-free: what this run comes to appears at its end. ', reveal));
    this.captionBar = new CaptionBar(byId('caption-bar'), {
      onStep: (dir) => this.stepCaption(dir),
      onContinue: () => this.play(),
      onGuided: (on) => {
        this.guided = on;
        if (!on) this.waitingAt = -1;
        this.scheduleRender();
      },
    });
    this.editor = new ScenarioEditor(byId('editor'), {
      onRun: (text, name) => this.openText(text, name),
      onClose: () => (byId('editor').hidden = true),
    });
    buildHelp(byId('help'), () => (byId('help').hidden = true));
    this.buildTabs();
    this.ensurePanes(1);
    this.wireTopbar();
    this.wireDrop();
    document.addEventListener('keydown', (e) => this.key(e));
    // A control clicked with the pointer, or a select once chosen, gives the keyboard back to the transport.
    document.addEventListener('click', (e) => {
      const c = (e.target as Element | null)?.closest('button, input[type=checkbox]');
      if (c && e.detail > 0) (c as HTMLElement).blur();
    });
    document.addEventListener('change', (e) => {
      if ((e.target as Element | null)?.tagName === 'SELECT') (e.target as HTMLElement).blur();
    });
    window.addEventListener('popstate', () => this.fromUrl());
    new ResizeObserver(() => this.scheduleRender()).observe(byId('stage'));
  }

  /** Starts from the URL: a scenario to run, or the gallery. */
  start(): void {
    this.fromUrl();
  }

  private fromUrl(): void {
    const u = readUrl(location.search);
    this.url = u;
    this.setSide(u.side, false);
    this.setView(u.view, false);
    let spec = u.scenario ? findScenario(u.scenario) : undefined;
    if (!spec && !u.scenario && u.specJson) {
      try {
        spec = JSON.parse(u.specJson) as ScenarioSpec;
      } catch {
        this.showError('The link\'s scenario (spec=) is not valid JSON.');
      }
    }
    if (u.scenario && !spec) {
      this.showError(`There is no scenario named "${u.scenario}" in this build's library.`);
      this.gallery.open(u.seed);
      return;
    }
    if (!spec) {
      this.settings.render(null, [], false, [], null, false);
      this.gallery.open(u.seed);
      this.setStatus(true);
      return;
    }
    this.spec = spec;
    this.fileName = null;
    void this.runScenario(spec, u.seed, u.sets, u.compare ? u.setsB : null, { e: u.e, rel: u.t === null ? null : u.t * 1000, value: u.value, partition: u.partition });
  }

  // ---------------------------------------------------------------- runs

  private openScenario(id: string, seed: string): void {
    const spec = findScenario(id);
    if (!spec) return;
    this.gallery.close();
    this.spec = spec;
    this.fileName = null;
    // Each scenario opens on the view that shows its lesson.
    this.url = { ...defaultState(), scenario: id, seed, side: usesAnalogy(spec) ? 'learn' : this.url.side, view: lessonView(spec), spoilerFree: this.url.spoilerFree };
    this.setSide(this.url.side, false);
    this.setView(this.url.view, false);
    void this.runScenario(spec, seed, [], null, {});
  }

  private changeSets(which: 'A' | 'B', sets: string[]): void {
    if (!this.spec) return;
    if (which === 'A') this.url.sets = sets;
    else this.url.setsB = sets;
    void this.runScenario(this.spec, this.url.seed, this.url.sets, this.url.compare ? this.url.setsB : null, this.keep());
  }

  private setCompare(on: boolean): void {
    if (!this.spec) return;
    this.url.compare = on;
    this.url.forkB = [];
    if (on && this.url.setsB.length === 0) {
      // By default B flips acks: acks=1 beside acks=all.
      const acks = valueOf(this.url.sets, 'producer.acks') || scenarioValue(this.spec, 'producer.acks');
      const other = acks === 'all' || acks === '-1' ? '1' : 'all';
      this.url.setsB = [...this.url.sets.filter((s) => !s.startsWith('producer.acks=')), `producer.acks=${other}`];
    }
    void this.runScenario(this.spec, this.url.seed, this.url.sets, on ? this.url.setsB : null, this.keep());
  }

  /** The what-if actions for a node, in a small menu where it was clicked. */
  private hostMenu(host: string, x: number, y: number): void {
    const menu = byId('host-menu');
    const close = () => {
      menu.hidden = true;
      document.removeEventListener('mousedown', outside, true);
    };
    const outside = (e: MouseEvent) => {
      if (!menu.contains(e.target as Node)) close();
    };
    const m = this.runA?.model;
    const atMs = m ? Math.max(0, Math.round((this.cursorT - m.t0) / 1000)) : 0;
    const items = actionsFor(host).map((a) => {
      const b = el('button', { class: 'menu-item', 'data-testid': `fault-${a.fault}${a.durationMs === null ? '-stay' : ''}` }, a.label);
      b.addEventListener('click', () => {
        close();
        this.fork({ fault: a.fault, host, atMs, durationMs: a.durationMs });
      });
      return b;
    });
    const name = (h: string) => (m ? m.names.host(h) : h.replace(/^(broker|controller)-/, '$1 '));
    const links = linkMenu(name(host), m ? linkPeers(host, m.lanes).map((id) => ({ id, name: name(id) })) : [], (peer, fault, durationMs) => {
      close();
      this.fork({ fault, host, peer, atMs, durationMs });
    });
    replace(menu, el('div', { class: 'menu-head' }, `${name(host)} at ${m ? rel(this.cursorT, m.t0) : '0s'}: what if…`), ...items, links);
    menu.hidden = false;
    menu.style.left = `${Math.max(8, Math.min(x, window.innerWidth - menu.offsetWidth - 8))}px`;
    menu.style.top = `${Math.max(8, Math.min(y, window.innerHeight - menu.offsetHeight - 8))}px`;
    document.addEventListener('mousedown', outside, true);
  }

  /**
   * Forks the run: the same scenario, seed and settings with the fault added at the cursor, beside the original
   * (A keeps its trace and hash).
   */
  private fork(f: LiveFault): void {
    const spec = this.spec;
    if (!spec || !this.runA) {
      this.showError('A trace file cannot be changed: run its scenario here first (the button in the settings row), then add a fault.');
      return;
    }
    const durationMs = this.durationMs(spec);
    if (f.atMs > durationMs) {
      this.showError(`The cursor is at ${f.atMs / 1000}s, in the quiet period after the scenario's ${durationMs / 1000}s of faults: move it into the run to add a fault.`);
      return;
    }
    this.url.compare = true;
    this.url.setsB = [...this.url.sets];
    this.url.forkB = [encodeFault(f)];
    void this.runScenario(spec, this.url.seed, this.url.sets, this.url.setsB, this.keep());
  }

  private durationMs(spec: ScenarioSpec): number {
    const d = spec.duration;
    return typeof d === 'number' ? d : (parseDuration(d) ?? 0) / 1000;
  }

  /** A lesson's "try it" change: the scenario as written (A) beside the changed one (B), on the same seed. */
  private tryChange(set: string): void {
    if (!this.spec) return;
    this.url.sets = [];
    this.url.forkB = [];
    this.url.setsB = [set];
    this.url.compare = true;
    void this.runScenario(this.spec, this.url.seed, [], [set], this.keep());
  }

  private runHere(): void {
    const id = this.runA?.payload.header.scenario;
    const spec = id ? findScenario(id) : undefined;
    if (!spec || !this.runA) return;
    this.spec = spec;
    this.fileName = null;
    this.url = { ...this.url, scenario: spec.id, seed: String(this.runA.payload.header.seed), sets: [], compare: false, setsB: [] };
    void this.runScenario(spec, this.url.seed, [], null, this.keep());
  }

  /** What to keep on screen across a rerun: the moment and the chosen record. */
  private keep(): Restore {
    const a = this.runA;
    return { rel: a ? this.cursorT - a.model.t0 : null, value: this.selected, partition: this.panes[0]?.partition.partitionKey ?? null };
  }

  private cancelJobs(): void {
    for (const j of this.jobs) j.cancel();
    this.jobs = [];
  }

  private async runScenario(spec: ScenarioSpec, seedText: string, sets: readonly string[], setsB: readonly string[] | null, restore: Restore): Promise<void> {
    this.cancelJobs();
    this.pause();
    const seed = seedText.trim() === '' ? (spec.seed ?? 1) : parseSeed(seedText);
    this.url.seed = String(seed);
    byId<HTMLInputElement>('seed').value = String(seed);
    this.setStatus(false);
    const forks = setsB ? this.url.forkB.map(decodeFault).filter((f): f is LiveFault => f !== null) : [];
    const want: { label: string; sets: readonly string[]; spec: ScenarioSpec; forks: readonly LiveFault[] }[] = [{ label: 'A', sets, spec, forks: [] }];
    if (setsB) want.push({ label: 'B', sets: setsB, spec: withFaults(spec, forks), forks });
    const bars = this.showProgress(`${spec.id} · seed ${seed}`, want.map((w) => `${setsB ? `${w.label}: ` : ''}${describeSets(w.sets)}${w.forks.map((f) => ` + ${describeFault(f, this.runA?.model.names ?? null)}`).join('')}`));
    try {
      const payloads = await Promise.all(
        want.map((w, k) => {
          // By the document itself: an edited scenario keeps its library id but is another run.
          const key = JSON.stringify([JSON.stringify(w.spec), seed, w.sets]);
          const hit = this.cache.get(key);
          if (hit) {
            bars[k]?.(1, hit.events.length, 'done');
            return Promise.resolve(hit);
          }
          const job = startJob({ kind: 'run', spec: w.spec, sets: [...w.sets], seed }, (p: Progress) => bars[k]?.(p.fraction, p.events, p.phase));
          this.jobs.push(job);
          return job.promise.then((payload) => {
            this.cache.set(key, payload);
            if (this.cache.size > 6) this.cache.delete(this.cache.keys().next().value as string);
            return payload;
          });
        }),
      );
      this.jobs = [];
      this.hideProgress();
      this.install(payloads[0]!, payloads[1] ?? null, restore);
    } catch (e) {
      if (e instanceof JobCancelled) return;
      this.hideProgress();
      this.showError(`Could not run ${spec.id}: ${(e as Error).message}`);
      this.setStatus(true);
    }
  }

  private async loadFile(file: File): Promise<void> {
    const message = await this.openText(await file.text(), file.name);
    if (message !== null) this.showError(message);
  }

  /**
   * Opens a file's text: a trace is read and checked, a scenario (a .json document) validated and run, as the CLI
   * would. Resolves to the error line (already shown where the text came from), or null.
   */
  private async openText(text: string, name: string): Promise<string | null> {
    this.cancelJobs();
    this.pause();
    this.setStatus(false);
    const bars = this.showProgress(`opening ${name}`, ['reading']);
    try {
      const req: WorkerRequest = { kind: 'parse', text, name, seed: byId<HTMLInputElement>('seed').value.trim() };
      const job = startJob(req, (p) => bars[0]?.(p.fraction, p.events, p.phase));
      this.jobs = [job];
      const payload = await job.promise;
      this.jobs = [];
      this.hideProgress();
      if (payload.scenario) {
        // A scenario file: it runs here like a library scenario (settings, what-ifs, a link that carries it).
        this.spec = payload.scenario;
        this.fileName = null;
        this.url = { ...defaultState(), seed: String(payload.header.seed), side: this.url.side, view: lessonView(payload.scenario) };
        this.setView(this.url.view, false);
        byId('editor').hidden = true;
      } else {
        this.spec = null;
        this.fileName = name;
        this.url = { ...defaultState(), side: this.url.side, view: this.url.view };
      }
      this.install(payload, null, {});
      return null;
    } catch (e) {
      if (e instanceof JobCancelled) return null;
      this.hideProgress();
      this.setStatus(true);
      const message = (e as Error).message;
      // A scenario's error already names its file, as the CLI's does.
      return message.startsWith(`${name}:`) || message.startsWith(`${name} `) ? `Could not open ${message}` : `Could not open ${name}: ${message}`;
    }
  }

  private install(a: RunPayload, b: RunPayload | null, restore: Restore): void {
    this.hideError();
    this.waitingAt = -1;
    this.shownCaption = -1;
    this.revealed = false;
    this.runA = new LoadedRun(a, 'A');
    this.runB = b ? new LoadedRun(b, 'B') : null;
    this.loads++;
    const m = this.runA.model;
    this.ensurePanes(this.runB ? 2 : 1);
    this.panesRoot.classList.remove('empty');
    const partition = restore.partition ?? this.url.partition;
    this.panes.forEach((p, k) => {
      const run = k === 0 ? this.runA : this.runB;
      p.partition.setOther(this.runB ? (k === 0 ? this.runB : this.runA) : null);
      p.root.querySelector('.pv')?.classList.toggle('compared', this.runB !== null);
      p.cluster.setRun(run);
      p.partition.setRun(run, partition);
      this.paneTitle(p, run);
    });
    this.timeline.setRun(this.runA);
    byId('timeline-b').hidden = this.runB === null;
    for (const t of byId('timeline').querySelectorAll<HTMLElement>('.tl-side')) t.hidden = this.runB === null;
    // B's timeline is built the first time a compare needs it (outside compare the page has one timeline).
    if (this.runB && !this.timelineB) {
      this.timelineB = new TimelineView(byId('timeline-b'), this.tooltip, {
        // A moment on B's timeline is the same scenario time on A's.
        onSeek: (i) => {
          const b = this.runB?.model;
          if (b) this.seekRel((i >= 0 ? b.t[i]! : b.tFirst) - b.t0);
        },
        onRange: (a, b) => this.syncRange('B', a, b),
      });
    }
    this.timelineB?.setRun(this.runB);
    this.transport.setRun(this.runA);
    this.checks.setRuns(this.runA, this.runB, { A: this.changeOf('A', this.runA), B: this.runB ? this.changeOf('B', this.runB) : null });
    this.events.setRun(this.runA);
    this.learn.setRun(this.runA);
    this.groups.setRun(this.runA);
    this.operator.setRun(this.runA);
    this.share.setRuns(this.runA, this.runB);
    this.settings.render(this.spec, this.url.sets, this.url.compare, this.url.setsB, this.fileName, this.fileName !== null && !!findScenario(a.header.scenario));
    this.renderTitle();

    // The moment to show: the link's, else the start of a guided scenario, else the end of the run.
    let i: number;
    if (restore.e !== undefined && restore.e !== null && restore.e < m.n) i = restore.e;
    else if (restore.rel !== undefined && restore.rel !== null) i = m.indexAtTime(m.t0 + restore.rel);
    else if (m.captions.length > 0) i = m.indexAtTime(m.t0);
    else i = m.n - 1;
    this.cursor = clamp(i, -1, m.n - 1);
    this.cursorT = restore.e === undefined || restore.e === null ? (restore.rel !== undefined && restore.rel !== null ? m.t0 + restore.rel : this.timeOf(this.cursor)) : this.timeOf(this.cursor);
    this.selected = null;
    const value = restore.value ?? null;
    if (value && m.values.has(value)) this.select(value, false);
    else this.checks.setSelected(null);
    document.title = `kafkasim — ${a.name}`;
    this.scheduleRender();
    this.writeUrlSoon();
    this.setStatus(true);
  }

  // ---------------------------------------------------------------- cursor

  private timeOf(i: number): number {
    const m = this.runA?.model;
    if (!m) return 0;
    return i >= 0 ? m.t[i]! : m.tFirst;
  }

  seek(i: number): void {
    const m = this.runA?.model;
    if (!m) return;
    this.cursor = clamp(i, -1, m.n - 1);
    this.cursorT = this.timeOf(this.cursor);
    this.scheduleRender();
    this.writeUrlSoon();
  }

  seekRel(relUs: number): void {
    const m = this.runA?.model;
    if (!m) return;
    this.cursorT = clamp(m.t0 + relUs, m.tFirst, m.tLast);
    this.cursor = m.indexAtTime(this.cursorT);
    this.scheduleRender();
    this.writeUrlSoon();
  }

  private step(dir: 1 | -1, notable: boolean): void {
    const m = this.runA?.model;
    if (!m) return;
    this.pause();
    if (notable) {
      // A notable moment is the instant: land after every event at that time (a fault and its caption).
      const now = this.cursor >= 0 ? m.t[this.cursor]! : -Infinity;
      let j = m.nextNotable(this.cursor, dir);
      while (j >= 0 && m.t[j]! === now) j = m.nextNotable(j, dir);
      if (j >= 0) this.seek(m.indexAtTime(m.t[j]!));
    } else this.seek(this.cursor + dir);
  }

  /** The next / previous caption: the cursor goes to its event. */
  private stepCaption(dir: 1 | -1): void {
    const m = this.runA?.model;
    if (!m) return;
    this.pause();
    const caps = m.captions;
    const c = dir > 0 ? caps.find((x) => x.i > this.cursor) : [...caps].reverse().find((x) => x.i < this.cursor);
    if (!c) return;
    this.seek(c.i);
    this.waitingAt = this.guided ? c.i : -1;
  }

  private togglePlay(): void {
    if (this.playing) this.pause();
    else this.play();
  }

  private play(): void {
    const m = this.runA?.model;
    if (!m) return;
    if (this.cursor >= m.n - 1) this.seek(m.indexAtTime(m.t0));
    this.playing = true;
    this.waitingAt = -1;
    this.lastFrame = performance.now();
    const tick = (now: number) => {
      if (!this.playing || !this.runA) return;
      // A frame's timestamp can be earlier than the performance.now() play() started at: never step back in time
      // (stepping back and forward again would stop once more at the caption playback continues from).
      const dt = Math.max(0, Math.min(100, now - this.lastFrame));
      this.lastFrame = now;
      const mm = this.runA.model;
      const from = this.cursor;
      this.cursorT = Math.min(mm.tLast, this.cursorT + dt * 1000 * this.speed);
      this.cursor = mm.indexAtTime(this.cursorT);
      if (this.cursorT >= mm.tLast) this.playing = false;
      // Guided: stop exactly at the next caption, where the state is what it tells.
      const cap = this.guided ? mm.captions.find((c) => c.i > from && c.i <= this.cursor) : undefined;
      if (cap) {
        this.cursor = cap.i;
        this.cursorT = cap.t;
        this.playing = false;
        this.waitingAt = cap.i;
      }
      this.render();
      this.writeUrlSoon();
      if (this.playing) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    this.scheduleRender();
  }

  private pause(): void {
    if (!this.playing) return;
    this.playing = false;
    this.scheduleRender();
  }

  /** Chooses a record: every view highlights it; the cursor goes to its acknowledgement. */
  select(value: string | null, jump: boolean): void {
    this.selected = value;
    this.checks.setSelected(value);
    const a = this.runA;
    if (value && a) {
      const info = a.model.values.get(value);
      if (info && info.offset >= 0) {
        for (const p of this.panes) {
          p.partition.setPartition(tpKey(info.topic, info.partition));
          p.partition.focusOffset(info.offset);
        }
        if (jump) {
          const i = info.ackI >= 0 ? info.ackI : info.appendI;
          if (i >= 0) this.seek(i);
        }
      }
    }
    this.scheduleRender();
    this.writeUrlSoon();
  }

  private scheduleRender(): void {
    if (this.renderPending) return;
    this.renderPending = true;
    requestAnimationFrame(() => {
      this.renderPending = false;
      this.render();
    });
  }

  private render(): void {
    const a = this.runA;
    if (!a) return;
    const m = a.model;
    const now = this.cursorT;
    const state = a.replay.at(this.cursor);
    const pa = this.panes[0]!;
    pa.cluster.render(state, this.selected, pa.partition.partitionKey);
    pa.partition.render(state, now, this.selected);
    const b = this.runB;
    const pb = this.panes[1];
    if (b && pb) {
      const nowB = b.model.t0 + (now - m.t0);
      const stateB = b.replay.at(b.model.indexAtTime(nowB));
      if (pb.partition.partitionKey !== pa.partition.partitionKey) pb.partition.setPartition(pa.partition.partitionKey);
      pb.cluster.render(stateB, this.selected, pb.partition.partitionKey);
      pb.partition.render(stateB, nowB, this.selected);
    }
    this.timeline.render(this.cursor, this.selected);
    if (b) this.timelineB?.render(b.model.indexAtTime(b.model.t0 + (now - m.t0)), this.selected);
    this.renderPaneCaptions(state.caption, b ? b.replay.at(b.model.indexAtTime(b.model.t0 + (now - m.t0))).caption : null);
    this.transport.render(this.cursor, now, this.playing);
    if (this.url.side === 'events') this.events.render(this.cursor);
    if (this.url.view === 'groups') this.groups.render(state, now, this.selected);
    if (this.url.view === 'operator') this.operator.render(state, now);
    if (this.url.view === 'share') this.share.render([{ cursor: this.cursor, now }, ...(b ? [{ cursor: b.model.indexAtTime(b.model.t0 + (now - m.t0)), now: b.model.t0 + (now - m.t0) }] : [])], this.selected);
    this.renderCaption(state.caption, now);
    // Spoiler-free: verdicts, lost-write marks and the checks wait for the end of the run.
    document.body.classList.toggle('spoilers-hidden', this.url.spoilerFree && !this.revealed && this.cursor < m.n - 1);
    this.status.dataset['cursor'] = String(this.cursor);
  }

  /** In compare mode each side tells its own story: its caption at its own moment, under its title. */
  private renderPaneCaptions(capA: { readonly text: string } | null, capB: { readonly text: string } | null): void {
    const compare = this.runB !== null && (this.runA?.model.captions.length ?? 0) > 0;
    this.panes.forEach((p, k) => {
      let line = p.root.querySelector<HTMLElement>('.pane-caption');
      if (!line) {
        line = el('div', { class: 'pane-caption', 'data-testid': `pane-caption-${p.label}` });
        p.title.after(line);
      }
      const cap = k === 0 ? capA : capB;
      line.hidden = !compare;
      line.textContent = cap ? cap.text : 'Its story starts at its first caption.';
    });
  }

  /** Zoom or pan on one timeline: the other shows the same scenario-time range. */
  private syncRange(from: 'A' | 'B', t0: number, t1: number): void {
    const a = this.runA?.model;
    const b = this.runB?.model;
    if (!a || !b) return;
    if (from === 'A') this.timelineB?.zoomTo(t0 - a.t0 + b.t0, t1 - a.t0 + b.t0);
    else this.timeline.zoomTo(t0 - b.t0 + a.t0, t1 - b.t0 + a.t0);
  }

  /** The caption at the cursor; its subject pulses on screen while it is fresh, and the views turn to it once. */
  private renderCaption(shown: { readonly i: number } | null, now: number): void {
    const m = this.runA?.model ?? null;
    const caption: Caption | null = m && shown ? (m.captions.find((c) => c.i === shown.i) ?? null) : null;
    const waiting = !this.playing && this.waitingAt >= 0 && this.waitingAt === this.cursor;
    this.captionBar.render(m, caption, this.cursor, waiting, now);
    const fresh = caption !== null && m !== null && (waiting || this.cursor === caption.i || now - caption.t < 4_000_000);
    const subject = fresh && m ? captionSubject(m, caption.about) : null;
    const pa = this.panes[0];
    if (caption && subject && caption.i !== this.shownCaption && pa) {
      this.shownCaption = caption.i;
      if (subject.partition && subject.partition !== pa.partition.partitionKey && m!.partitions.some((p) => p.key === subject.partition)) {
        for (const p of this.panes) p.partition.setPartition(subject.partition);
        this.url.partition = subject.partition;
      }
    }
    for (const p of this.panes) {
      p.cluster.setPulse(subject?.hosts ?? []);
      p.partition.setPulse(subject?.brokers ?? []);
    }
    this.status.dataset['captionWaiting'] = String(waiting);
  }

  // ---------------------------------------------------------------- layout

  private ensurePanes(n: number): void {
    while (this.panes.length > n) this.panes.pop()!.root.remove();
    while (this.panes.length < n) {
      const label = this.panes.length === 0 ? 'A' : 'B';
      const title = el('div', { class: 'pane-title' });
      const clusterRoot = el('div', { class: 'cluster', 'data-testid': `cluster-${label}` });
      const pvRoot = el('div', { class: 'pv', id: `pv-${label}`, 'data-testid': `partition-${label}` });
      const root = el('section', { class: 'pane', 'data-pane': label }, title, clusterRoot, pvRoot);
      this.panesRoot.appendChild(root);
      const partition = new PartitionView(pvRoot, this.tooltip, {
        onSelectValue: (v) => this.select(v, false),
        onSelectPartition: (key) => {
          for (const p of this.panes) p.partition.setPartition(key);
          this.url.partition = key;
          this.scheduleRender();
          this.writeUrlSoon();
        },
      });
      this.panes.push({ label, root, title, cluster: new ClusterView(clusterRoot, label === 'A' ? (host, x, y) => this.hostMenu(host, x, y) : null), partition });
    }
    this.panesRoot.classList.toggle('compare', n > 1);
    this.panesRoot.classList.toggle('empty', this.runA === null);
  }

  private paneTitle(p: Pane, run: LoadedRun | null): void {
    if (!run) {
      replace(p.title);
      return;
    }
    const lost = run.payload.checks['lost-write']?.count ?? 0;
    const acked = run.payload.checks['acked']?.count ?? 0;
    const compare = this.runB !== null;
    replace(
      p.title,
      el(
        'div',
        { class: 'pane-line' },
        compare ? el('span', { class: 'label' }, p.label) : null,
        el('span', { class: 'sets', 'data-testid': `settings-${p.label}` }, effectiveSettings(run.model.spec)),
        el('span', { class: `verdict ${lost > 0 ? 'bad' : 'good'}`, 'data-testid': `verdict-${p.label}` }, lost > 0 ? `${lost} acknowledged write${lost === 1 ? '' : 's'} lost` : `no acknowledged write lost (${acked} acked)`),
      ),
      compare || run.payload.sets.length > 0 || (p.label === 'B' && this.url.forkB.length > 0)
        ? el(
            'div',
            { class: 'pane-line dim' },
            this.changedText(p.label, run),
            compare ? el('span', { class: 'hash', 'data-testid': `hash-${p.label}` }, `hash ${run.payload.hash}`) : null,
          )
        : null,
    );
  }

  /** What the learner changed on a side (its settings, a fault added from the screen), or null. */
  private changeOf(label: 'A' | 'B', run: LoadedRun): string | null {
    const forks = label === 'B' ? this.url.forkB.map(decodeFault).filter((f): f is LiveFault => f !== null) : [];
    const parts = [...run.payload.sets, ...forks.map((f) => `+ ${describeFault(f, this.runA?.model.names ?? null)}`)];
    return parts.length > 0 ? parts.join(', ') : null;
  }

  private changedText(label: 'A' | 'B', run: LoadedRun): string {
    const forks = label === 'B' ? this.url.forkB.map(decodeFault).filter((f): f is LiveFault => f !== null) : [];
    const sets = run.payload.sets.length > 0 ? describeSets(run.payload.sets) : '';
    const parts = [sets && (forks.length === 0 || sets !== describeSets(this.runA?.payload.sets ?? []) ? sets : ''), ...forks.map((f) => `+ ${describeFault(f, this.runA?.model.names ?? null)}`)].filter(Boolean);
    return parts.length > 0 ? `changed: ${parts.join(' ')}` : 'as the scenario says';
  }

  private renderTitle(): void {
    const a = this.runA;
    const t = byId('run-title');
    if (!a) {
      replace(t);
      return;
    }
    const spec = a.model.spec;
    const sub = a.payload.source === 'file' ? `${a.payload.name} · scenario ${a.payload.header.scenario} · seed ${String(a.payload.header.seed)}` : `${a.payload.name} · seed ${String(a.payload.header.seed)} · ${describeSets(a.payload.sets)}`;
    replace(t, spec?.title ?? a.payload.header.scenario, el('span', { class: 'sub' }, `${sub} · ${a.model.n} events · ${a.payload.elapsedMs} ms`));
    t.title = spec?.summary ?? '';
    byId('hash').textContent = `hash ${a.payload.hash}`;
  }

  private buildTabs(): void {
    const stage = byId('stage-tabs');
    const side = byId('side-tabs');
    const tab = (label: string, title: string, f: () => void, testid: string) => {
      const b = el('button', { title, 'data-testid': testid }, label);
      b.addEventListener('click', f);
      return b;
    };
    stage.append(tab('Replicas', 'Cluster and partition (1)', () => this.setView('replicas', true), 'tab-replicas'), tab('Groups', 'Consumer groups (2)', () => this.setView('groups', true), 'tab-groups'), tab('Operator', 'Metrics, alerts and the describe tables (6)', () => this.setView('operator', true), 'tab-operator'), tab('Share', 'Share groups: each share-partition\'s in-flight records, delivery counts and locks (7)', () => this.setView('share', true), 'tab-share'));
    side.append(
      tab('Checks', 'What the checkers found (3)', () => this.setSide('checks', true), 'tab-checks'),
      tab('Events', 'The events around the cursor (4)', () => this.setSide('events', true), 'tab-events'),
      tab('Learn', 'The lesson, its moments, and the glossary (5)', () => this.setSide('learn', true), 'tab-learn'),
    );
  }

  private setView(v: View, user: boolean): void {
    this.url.view = v;
    byId('panes').hidden = v !== 'replicas';
    byId('groups-pane').hidden = v !== 'groups';
    byId('operator-pane').hidden = v !== 'operator';
    byId('share-pane').hidden = v !== 'share';
    const views: View[] = ['replicas', 'groups', 'operator', 'share'];
    byId('stage-tabs')
      .querySelectorAll('button')
      .forEach((b, k) => b.classList.toggle('active', views[k] === v));
    if (user) {
      this.scheduleRender();
      this.writeUrlSoon();
    }
  }

  private setSide(s: Side, user: boolean): void {
    this.url.side = s;
    const ids: Side[] = ['checks', 'events', 'learn'];
    ids.forEach((id, k) => {
      byId(`side-${id}`).hidden = id !== s;
      byId('side-tabs').querySelectorAll('button')[k]?.classList.toggle('active', id === s);
    });
    if (user) {
      this.scheduleRender();
      this.writeUrlSoon();
    }
  }

  private wireTopbar(): void {
    byId('open-gallery').addEventListener('click', () => this.gallery.open(this.url.seed, this.url.spoilerFree));
    byId('rerun').addEventListener('click', () => {
      const seed = byId<HTMLInputElement>('seed').value;
      if (this.spec) {
        this.url.seed = seed;
        void this.runScenario(this.spec, seed, this.url.sets, this.url.compare ? this.url.setsB : null, this.keep());
      } else this.gallery.open(seed);
    });
    byId<HTMLInputElement>('seed').addEventListener('keydown', (e) => {
      if (e.key === 'Enter') byId('rerun').click();
    });
    const input = byId<HTMLInputElement>('file-input');
    input.addEventListener('change', () => {
      const f = input.files?.[0];
      if (f) {
        this.gallery.close();
        void this.loadFile(f);
      }
      input.value = '';
    });
    byId('help-btn').addEventListener('click', () => (byId('help').hidden = false));
    byId('edit-scenario').addEventListener('click', () => this.openEditor());
    byId('download').addEventListener('click', () => this.download());
  }

  /** The scenario on screen (or an empty document) in the editor. */
  private openEditor(): void {
    const spec = this.spec;
    this.editor.open(spec, `${spec?.id ?? 'my-scenario'}.json`);
  }

  private wireDrop(): void {
    const hint = byId('drop-hint');
    let depth = 0;
    window.addEventListener('dragenter', (e) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      depth++;
      hint.hidden = false;
    });
    window.addEventListener('dragleave', () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) hint.hidden = true;
    });
    window.addEventListener('dragover', (e) => e.preventDefault());
    window.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      hint.hidden = true;
      const f = e.dataTransfer?.files[0];
      if (f) {
        this.gallery.close();
        void this.loadFile(f);
      }
    });
  }

  private download(): void {
    const a = this.runA;
    if (!a) return;
    const lines = [JSON.stringify(a.payload.header), ...a.payload.events.map((e) => JSON.stringify(e))];
    const blob = new Blob([lines.join('\n') + '\n'], { type: 'application/x-ndjson' });
    const link = el('a', { href: URL.createObjectURL(blob), download: `${a.payload.header.scenario}-seed${String(a.payload.header.seed)}.jsonl` });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }

  // ---------------------------------------------------------------- keyboard

  private key(e: KeyboardEvent): void {
    const target = e.target as HTMLElement | null;
    const tag = target?.tagName ?? '';
    const type = tag === 'INPUT' ? (target as HTMLInputElement).type : '';
    // Text fields keep their keys; a select, a checkbox, a button or the slider do not take the transport's.
    const typing = (tag === 'INPUT' && !['range', 'checkbox', 'radio', 'button'].includes(type)) || tag === 'TEXTAREA';
    const control = tag === 'SELECT' || tag === 'BUTTON' || (tag === 'INPUT' && !typing);
    if (e.key === 'Escape') {
      // Esc leaves a control: the next arrow steps time instead of changing a setting.
      if (control || typing) target!.blur();
      if (!byId('help').hidden) byId('help').hidden = true;
      else if (this.editor.isOpen) byId('editor').hidden = true;
      else if (this.gallery.isOpen && this.runA) this.gallery.close();
      else if (this.selected) this.select(null, false);
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    // On a select only the arrows and Space are the transport's (its own letters pick options); Enter on a button is the button's.
    if (tag === 'SELECT' && !['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', ' '].includes(e.key)) return;
    if (tag === 'SELECT' && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
      e.preventDefault();
      return;
    }
    if (control && e.key === 'Enter') return;
    const handled = (f: () => void) => {
      e.preventDefault();
      f();
    };
    switch (e.key) {
      case ' ':
        return handled(() => this.togglePlay());
      case 'ArrowRight':
        return handled(() => this.step(1, e.shiftKey));
      case 'ArrowLeft':
        return handled(() => this.step(-1, e.shiftKey));
      case 'Home':
        return handled(() => this.seek(-1));
      case 'End':
        return handled(() => this.seek(this.runA ? this.runA.model.n - 1 : 0));
      case '0':
        return handled(() => this.seekRel(0));
      case ']':
      case '+':
        return handled(() => this.changeSpeed(1));
      case '[':
      case '-':
        return handled(() => this.changeSpeed(-1));
      case 'l':
        return handled(() => this.nextLost());
      case 'n':
        return handled(() => this.stepCaption(1));
      case 'p':
        return handled(() => this.stepCaption(-1));
      case 'z':
        return handled(() => {
          this.timeline.zoomAtCursor(4);
          this.syncRange('A', ...this.timeline.visibleRange());
        });
      case 'Z':
        return handled(() => {
          this.timeline.zoomAtCursor(0.25);
          this.syncRange('A', ...this.timeline.visibleRange());
        });
      case 'w':
        return handled(() => {
          this.timeline.zoomTo(this.runA?.model.tFirst ?? 0, this.runA?.model.tLast ?? 1);
          this.syncRange('A', ...this.timeline.visibleRange());
        });
      case 'f':
        return handled(() => this.panes.forEach((p) => p.partition.follow()));
      case '1':
        return handled(() => this.setView('replicas', true));
      case '2':
        return handled(() => this.setView('groups', true));
      case '6':
        return handled(() => this.setView('operator', true));
      case '7':
        return handled(() => this.setView('share', true));
      case '3':
        return handled(() => this.setSide('checks', true));
      case '4':
        return handled(() => this.setSide('events', true));
      case '5':
        return handled(() => this.setSide('learn', true));
      case 'c':
        return handled(() => this.setCompare(!this.url.compare));
      case 'g':
        return handled(() => this.gallery.open(this.url.seed));
      case 'o':
        return handled(() => byId<HTMLInputElement>('file-input').click());
      case 'e':
        return handled(() => this.openEditor());
      case '?':
        return handled(() => (byId('help').hidden = !byId('help').hidden));
    }
  }

  private changeSpeed(dir: 1 | -1): void {
    const k = SPEEDS.indexOf(this.speed);
    this.speed = SPEEDS[clamp((k < 0 ? 4 : k) + dir, 0, SPEEDS.length - 1)]!;
    this.transport.setSpeed(this.speed);
  }

  private nextLost(): void {
    const values = this.runA?.payload.checks['lost-write']?.values ?? [];
    if (values.length === 0) return;
    const k = this.selected ? values.indexOf(this.selected) : -1;
    this.setSide('checks', true);
    this.select(values[(k + 1) % values.length]!, true);
  }

  // ---------------------------------------------------------------- chrome

  private writeUrlSoon(): void {
    if (this.urlTimer !== undefined) return;
    this.urlTimer = window.setTimeout(() => {
      this.urlTimer = undefined;
      this.writeUrlNow();
    }, 150);
  }

  private writeUrlNow(): void {
    const a = this.runA;
    if (!a) return;
    const u = this.url;
    const fromFile = a.payload.source === 'file';
    const lib = this.spec ? findScenario(this.spec.id) : undefined;
    const custom = this.spec !== null && (!lib || JSON.stringify(lib) !== JSON.stringify(this.spec));
    const state: UrlState = {
      ...u,
      scenario: fromFile || custom ? null : (u.scenario ?? this.spec?.id ?? null),
      specJson: custom && !fromFile ? JSON.stringify(this.spec) : null,
      t: Math.round((this.cursorT - a.model.t0) / 10) / 100,
      e: this.cursor,
      value: this.selected,
      partition: this.panes[0]?.partition.partitionKey ?? null,
    };
    const search = writeUrl(state);
    if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}`);
    this.status.dataset['url'] = search;
  }

  private showProgress(title: string, rows: readonly string[]): ((fraction: number, events: number, phase: string) => void)[] {
    const root = byId('progress');
    const updaters: ((fraction: number, events: number, phase: string) => void)[] = [];
    const cancel = el('button', {}, 'Cancel');
    cancel.addEventListener('click', () => {
      this.cancelJobs();
      this.hideProgress();
      this.setStatus(true);
    });
    const items = rows.map((r) => {
      const fill = el('div');
      const text = el('div', { class: 'dim' }, 'starting…');
      updaters.push((fraction, events, phase) => {
        fill.style.width = `${Math.round(fraction * 100)}%`;
        text.textContent = `${phase} · ${events.toLocaleString('en')} events`;
      });
      return el('div', {}, el('div', {}, r), el('div', { class: 'bar' }, fill), text);
    });
    replace(root, el('div', { class: 'progress-box', 'data-testid': 'progress' }, el('b', {}, `Running ${title}`), ...items, el('div', { style: 'text-align:right' }, cancel)));
    // A short run needs no dialog: show it only if the run takes a moment.
    const timer = window.setTimeout(() => (root.hidden = false), 150);
    root.dataset['timer'] = String(timer);
    return updaters;
  }

  private hideProgress(): void {
    const root = byId('progress');
    window.clearTimeout(Number(root.dataset['timer']));
    root.hidden = true;
  }

  private showError(message: string): void {
    const bar = byId('error-bar');
    bar.textContent = message;
    bar.hidden = false;
  }

  private hideError(): void {
    byId('error-bar').hidden = true;
  }

  private setStatus(ready: boolean): void {
    const s = this.status;
    s.dataset['ready'] = String(ready);
    s.dataset['loads'] = String(this.loads);
    s.dataset['hash'] = this.runA?.payload.hash ?? '';
    s.dataset['hashB'] = this.runB?.payload.hash ?? '';
    s.dataset['events'] = String(this.runA?.model.n ?? 0);
    s.dataset['loadMs'] = String(this.runA?.loadMs ?? 0);
  }
}
