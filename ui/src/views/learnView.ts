import { el, replace } from '../lib/dom';
import { rel } from '../lib/format';
import type { LoadedRun } from '../app/loadedRun';
import { usesAnalogy } from '../app/library';

export interface LearnHandlers {
  onSeek(i: number): void;
  /** Rerun beside the scenario as written with one setting changed ("producer.acks=all"). */
  onTry(set: string): void;
}

/** A lesson's CLI hint ("Run it again with --set producer.acks=all") as the browser's way to try it. */
const SET_HINT = /\((?:[Rr]un it (?:again )?with )?--set ([\w.-]+=[^\s:),]+)\)|(?:[Rr]un it (?:again )?with )?--set ([\w.-]+=[^\s:),]+)/g;

/** The lesson's text with each `--set` hint turned into a button that runs the change beside the original. */
export function lessonParts(text: string, onTry: (set: string) => void): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  let at = 0;
  for (const m of text.matchAll(SET_HINT)) {
    out.push(text.slice(at, m.index));
    const set = (m[1] ?? m[2])!;
    const b = el('button', { class: 'small try', 'data-testid': 'try-set', title: 'Run the scenario with this change beside the one as written (compare)' }, `try ${set} ▶`);
    b.addEventListener('click', () => onTry(set));
    out.push(b);
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return out;
}

/** The courier-hub picture and the Kafka words it stands for (our wording). */
export const GLOSSARY: readonly { readonly hub: string; readonly kafka: string; readonly here: string }[] = [
  { hub: 'the hub’s shelf of register books', kafka: 'topic', here: 'one name for a stream of records, split into books' },
  { hub: 'one register book', kafka: 'partition', here: 'new entries only ever go at the bottom, so the order inside one book never changes' },
  { hub: 'a line number in a book', kafka: 'offset', here: 'a record’s fixed position; the cells of the partition view are numbered by it' },
  { hub: 'the PIN code that picks the book', kafka: 'key', here: 'the same key always lands in the same partition' },
  { hub: 'a team that reads the books', kafka: 'consumer group', here: 'each book is read by one member of the team at a time' },
  { hub: 'a clerk of that team', kafka: 'consumer', here: 'rows of the groups view show which clerk holds which book' },
  { hub: 'a team’s bookmark in a book', kafka: 'committed offset', here: 'where the team picks up after a restart or a hand-over' },
  { hub: 'photocopies kept at other branches', kafka: 'replicas', here: 'one row per copy in the partition view' },
  { hub: 'the branch holding the master book', kafka: 'leader', here: 'takes every new entry; the others copy from it' },
  { hub: 'the shredding schedule', kafka: 'retention', here: 'old pages go after a while, read or not' },
];

/** Words the screen uses; each is listed for a scenario whose texts use it (`match`). */
export const TERMS: readonly { readonly term: string; readonly meaning: string; readonly match: RegExp }[] = [
  { term: 'ISR (in-sync replicas)', meaning: 'the copies that are keeping up with the leader; only they may take over cleanly', match: /\bISR\b|in-sync/ },
  { term: 'high watermark (HW)', meaning: 'the offset below which every in-sync copy has the record: committed, visible to consumers', match: /high watermark|\bHW\b|committed/ },
  { term: 'log end offset (LEO)', meaning: 'where a copy will write its next record', match: /log end|\bLEO\b|truncat/ },
  { term: 'leader epoch', meaning: 'a counter that rises each time leadership moves; each cell’s colour is the epoch it was written in', match: /epoch|elect/ },
  { term: 'page cache vs disk', meaning: 'Kafka counts a write as done once it is in memory on the replicas; a pale cell would not survive a power cut', match: /page cache|power|fsync|flush/ },
  { term: 'truncation', meaning: 'a copy that wrote past what the new leader has throws its extra records away (the red strip under a row)', match: /truncat/ },
  { term: 'acks', meaning: 'when the producer hears “ok”: 0 never waits, 1 waits for the leader, all waits for the whole ISR', match: /\backs\b|acks=|acknowledg/ },
  { term: 'min.insync.replicas', meaning: 'with acks=all, the leader refuses writes while fewer copies than this are in sync', match: /min\.insync|min ISR/ },
  { term: 'unclean election', meaning: 'letting an out-of-date copy lead when no in-sync one is left: available again, but records are gone', match: /unclean/ },
  { term: 'Eligible Leader Replicas (ELR)', meaning: 'replicas that left the ISR while it was below min.insync.replicas and still hold every committed record: the controller may elect them (KIP-966)', match: /\bELR\b|Eligible Leader/ },
  { term: 'committed offset', meaning: 'where a consumer group resumes a partition after a restart or a hand-over', match: /commit|consumer group|bookmark/ },
  { term: 'rebalance', meaning: 'the group coordinator moving partitions between the members of a group', match: /rebalanc/ },
];

/** What the scenario teaches: its lesson, its captions (each a link to its moment), and the glossary. */
export class LearnView {
  private readonly body: HTMLDivElement;
  constructor(
    root: HTMLElement,
    private readonly handlers: LearnHandlers,
  ) {
    this.body = el('div', { class: 'learn' });
    root.appendChild(this.body);
  }

  setRun(run: LoadedRun | null): void {
    const spec = run?.model.spec;
    const parts: (HTMLElement | null)[] = [];
    if (run && spec) {
      parts.push(el('div', { class: 'learn-title' }, spec.title ?? spec.id));
      if (spec.summary) parts.push(el('p', {}, spec.summary));
      if (spec.lesson) parts.push(el('p', { class: 'lesson', 'data-testid': 'lesson' }, ...lessonParts(spec.lesson, (set) => this.handlers.onTry(set))));
    }
    const caps = run?.model.captions ?? [];
    if (run && caps.length > 0) {
      parts.push(el('h3', {}, 'Guided moments'));
      parts.push(
        el(
          'ol',
          { class: 'captions', 'data-testid': 'caption-list' },
          ...caps.map((c) => {
            const b = el('button', { class: 'time-link' }, rel(c.t, run.model.t0));
            b.addEventListener('click', () => this.handlers.onSeek(c.i));
            return el('li', {}, b, ' ', c.text);
          }),
        ),
      );
    }
    // The courier-hub picture where the scenario uses it; the screen's words that its story uses.
    if (spec && usesAnalogy(spec)) {
      parts.push(el('h3', {}, 'The courier hub, in Kafka words'));
      parts.push(
        el(
          'table',
          { class: 'glossary', 'data-testid': 'glossary' },
          el('tr', {}, el('th', {}, 'at the hub'), el('th', {}, 'in Kafka'), el('th', {}, 'what it means here')),
          ...GLOSSARY.map((g) => el('tr', {}, el('td', {}, g.hub), el('td', {}, el('b', {}, g.kafka)), el('td', {}, g.here))),
        ),
      );
    }
    const story = [spec?.title, spec?.summary, spec?.lesson, ...caps.map((c) => c.text)].filter(Boolean).join(' ');
    const terms = TERMS.filter((t) => t.match.test(story));
    if (terms.length > 0) {
      parts.push(el('h3', {}, 'Words on the screen'));
      parts.push(el('dl', { class: 'terms', 'data-testid': 'terms' }, ...terms.flatMap((t) => [el('dt', {}, t.term), el('dd', {}, t.meaning)])));
    }
    replace(this.body, ...parts);
  }
}
