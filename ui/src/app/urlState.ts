/** Everything a link must carry to reproduce a view. */
export interface UrlState {
  scenario: string | null;
  /** A scenario that is not the library's (opened or edited): its whole JSON document. */
  specJson: string | null;
  seed: string;
  sets: string[];
  compare: boolean;
  setsB: string[];
  /** Faults added to B at moments of the run ("what if" from the screen; liveFault.ts spells them). */
  forkB: string[];
  /** Scenario-relative time of the cursor, in ms. */
  t: number | null;
  /** The cursor's event index (exact; wins over t when valid). */
  e: number | null;
  view: 'replicas' | 'groups' | 'operator' | 'share';
  side: 'checks' | 'events' | 'learn';
  value: string | null;
  partition: string | null;
  /** Spoiler-free: what the run comes to stays hidden until the cursor reaches its end. */
  spoilerFree: boolean;
}

export function defaultState(): UrlState {
  return { scenario: null, specJson: null, seed: '', sets: [], compare: false, setsB: [], forkB: [], t: null, e: null, view: 'replicas', side: 'checks', value: null, partition: null, spoilerFree: false };
}

function numberOrNull(v: string | null): number | null {
  if (v === null || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

export function readUrl(search: string): UrlState {
  const q = new URLSearchParams(search);
  const s = defaultState();
  s.scenario = q.get('s');
  s.specJson = q.get('spec');
  s.seed = q.get('seed') ?? '';
  s.sets = q.getAll('set');
  s.compare = q.get('compare') === '1';
  s.setsB = q.getAll('b');
  s.forkB = q.getAll('fb');
  s.t = numberOrNull(q.get('t'));
  const e = numberOrNull(q.get('e'));
  s.e = e !== null && Number.isInteger(e) && e >= -1 ? e : null;
  const view = q.get('view');
  if (view === 'groups' || view === 'operator' || view === 'share') s.view = view;
  const side = q.get('side');
  if (side === 'events' || side === 'learn') s.side = side;
  s.value = q.get('v');
  s.partition = q.get('p');
  s.spoilerFree = q.get('ns') === '1';
  return s;
}

export function writeUrl(s: UrlState): string {
  const q = new URLSearchParams();
  if (s.scenario) q.set('s', s.scenario);
  else if (s.specJson) q.set('spec', s.specJson);
  if (s.seed) q.set('seed', s.seed);
  for (const x of s.sets) q.append('set', x);
  if (s.compare) {
    q.set('compare', '1');
    for (const x of s.setsB) q.append('b', x);
    for (const x of s.forkB) q.append('fb', x);
  }
  if (s.t !== null) q.set('t', String(Math.round(s.t * 1000) / 1000));
  if (s.e !== null) q.set('e', String(s.e));
  if (s.view !== 'replicas') q.set('view', s.view);
  if (s.side !== 'checks') q.set('side', s.side);
  if (s.value) q.set('v', s.value);
  if (s.partition) q.set('p', s.partition);
  if (s.spoilerFree) q.set('ns', '1');
  const text = q.toString();
  return text ? `?${text}` : '';
}
