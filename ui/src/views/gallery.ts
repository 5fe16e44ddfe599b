import type { ScenarioSpec } from '../../../sim/scenario/spec';
import { el, replace } from '../lib/dom';
import { course, QUESTIONS, START_HERE, visibleTags } from '../app/curriculum';

export interface GalleryHandlers {
  onChoose(id: string, seed: string): void;
  /** Spoiler-free: summaries hidden here, and a run's outcome hidden until its end. */
  onSpoilerFree(on: boolean): void;
  onOpenFile(): void;
  onClose(): void;
}

/** The scenario library as a course: chapters in teaching order, a filter by chapter, where to start; a seed box; or open a trace file. */
export class Gallery {
  private readonly seed: HTMLInputElement;
  private readonly spoiler: HTMLInputElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly library: readonly ScenarioSpec[],
    private readonly handlers: GalleryHandlers,
  ) {
    this.seed = el('input', { size: 6, 'data-testid': 'gallery-seed', spellcheck: 'false', placeholder: 'scenario’s' });
    const close = el('button', { title: 'Close (Esc)' }, 'Close');
    close.addEventListener('click', () => this.handlers.onClose());
    const open = el('button', { title: 'A trace written by kafkasim run --trace, or a scenario .json file' }, 'Open a file…');
    open.addEventListener('click', () => this.handlers.onOpenFile());
    const card = (s: ScenarioSpec, n: number) => {
      const faults = s.faults?.length ?? 0;
      const first = s.id === START_HERE;
      const c = el(
        'button',
        { class: `scenario-card${first ? ' start' : ''}`, 'data-scenario': s.id, 'data-testid': `scenario-${s.id}` },
        first ? el('span', { class: 'sc-start', 'data-testid': 'start-here' }, 'Start here') : null,
        el('span', { class: 'sc-title' }, `${n}. ${s.title ?? s.id}`),
        el('span', { class: 'sc-id' }, s.id),
        s.summary ? el('span', { class: 'sc-summary' }, s.summary) : null,
        el('span', { class: 'tags' }, el('span', { class: 'tag' }, `${faults} fault${faults === 1 ? '' : 's'}`), ...visibleTags(s).map((t) => el('span', { class: 'tag' }, t))),
      );
      c.addEventListener('click', () => this.handlers.onChoose(s.id, this.seed.value.trim()));
      return c;
    };
    const chapters = course(library);
    let n = 0;
    const sections = chapters.map(({ chapter, scenarios }, k) =>
      el(
        'section',
        { class: 'chapter', 'data-chapter': chapter.id, 'data-testid': `chapter-${chapter.id}` },
        el('h3', {}, `${k + 1} · ${chapter.title}`),
        el('div', { class: 'gallery-grid' }, ...scenarios.map((s) => card(s, ++n))),
      ),
    );
    const chip = (id: string, label: string) => {
      const b = el('button', { class: `chip${id === 'all' ? ' active' : ''}`, 'data-filter': id, 'data-testid': `filter-${id}` }, label);
      b.addEventListener('click', () => {
        for (const x of filters.querySelectorAll('.chip')) x.classList.toggle('active', x === b);
        for (const sec of sections) sec.hidden = id !== 'all' && sec.dataset['chapter'] !== id;
      });
      return b;
    };
    const filters = el('div', { class: 'chapter-filters', 'data-testid': 'gallery-filters' }, chip('all', 'the whole course'), ...chapters.map(({ chapter }) => chip(chapter.id, chapter.title)));
    // The interview questions of the guide, each with the scenario that shows the answer.
    const ids = new Set(library.map((x) => x.id));
    const questions = QUESTIONS.flatMap(({ q, answers }) => {
      const id = answers.find((a) => ids.has(a));
      if (!id) return [];
      const b = el('button', { class: 'question', 'data-testid': 'interview-q', 'data-scenario': id }, el('span', {}, q), el('span', { class: 'sc-id' }, ` → ${id}`));
      b.addEventListener('click', () => this.handlers.onChoose(id, this.seed.value.trim()));
      return [b];
    });
    this.spoiler = el('input', { type: 'checkbox', 'data-testid': 'spoiler-free' });
    this.spoiler.addEventListener('change', () => {
      root.classList.toggle('spoiler-free', this.spoiler.checked);
      this.handlers.onSpoilerFree(this.spoiler.checked);
    });
    const startBtn = el('button', { class: 'primary', 'data-testid': 'gallery-start' }, 'Start here ▶');
    startBtn.addEventListener('click', () => this.handlers.onChoose(START_HERE, this.seed.value.trim()));
    const sheet = el(
      'div',
      { class: 'sheet', role: 'dialog', 'aria-label': 'Scenarios' },
      el('div', { class: 'sheet-head' }, el('h2', {}, 'Scenarios'), el('span', { class: 'dim' }, `${library.length} in the library, in course order · runs in your browser, same trace as the CLI`), el('span', { class: 'spacer' }), startBtn, el('label', { title: 'Hide the summaries, and what a run comes to until its end' }, this.spoiler, ' spoiler-free'), el('label', {}, 'seed ', this.seed), open, close),
      library.length ? filters : null,
      library.length ? el('div', { class: 'chapters' }, ...sections) : el('p', {}, 'The library is empty.'),
      questions.length ? el('section', { class: 'questions', 'data-testid': 'interview-questions' }, el('h3', {}, 'Interview questions, answered by a run'), ...questions) : null,
    );
    replace(root, sheet);
    root.addEventListener('click', (e) => {
      if (e.target === root) this.handlers.onClose();
    });
  }

  open(seed: string, spoilerFree = this.spoiler.checked): void {
    this.seed.value = seed;
    this.spoiler.checked = spoilerFree;
    this.root.classList.toggle('spoiler-free', spoilerFree);
    this.root.hidden = false;
  }

  close(): void {
    this.root.hidden = true;
  }

  get isOpen(): boolean {
    return !this.root.hidden;
  }
}
