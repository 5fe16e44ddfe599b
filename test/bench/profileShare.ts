/**
 * The share of a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file) spent in some code: the samples whose
 * stack has a frame from a file whose URL contains one of the given fragments, over the samples where the
 * process was not idle. A sample counts once however many such frames its stack has, so a checker calling a
 * checker is not counted twice, and the time a check spends in a shared helper (a Map, a typed array) counts
 * as the check's. The garbage collector's samples have no JS stack: they are reported both ways, in the
 * denominator (what the run cost) and left out (what the code itself ran).
 */

/** The parts of a .cpuprofile this reads (Chrome DevTools protocol Profiler.Profile). */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string };
    readonly children?: readonly number[];
  }[];
  /** The node (top of the stack) of each sample. */
  readonly samples: readonly number[];
}

export interface ProfileShare {
  /** Samples in the profile, and those not idle. */
  readonly samples: number;
  readonly busy: number;
  /** Busy samples in the garbage collector. */
  readonly gc: number;
  /** Busy samples with a frame in the code looked for. */
  readonly matched: number;
  /** matched / busy, and matched / (busy - gc). */
  readonly share: number;
  readonly shareWithoutGc: number;
}

/** V8's names for the pseudo-frames of an idle process and of the collector. */
const IDLE = '(idle)';
const GC = '(garbage collector)';

/** The share of `profile`'s busy samples whose stack has a frame from a URL containing one of `fragments`. */
export function profileShare(profile: CpuProfile, fragments: readonly string[]): ProfileShare {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Per node: 1 in the code looked for (this frame or one below it on the stack), 2 idle, 3 GC, 0 other.
  const kind = new Map<number, number>();
  const kindOf = (id: number): number => {
    const known = kind.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id);
    let k = 0;
    if (n !== undefined) {
      const { functionName, url } = n.callFrame;
      if (functionName === IDLE) k = 2;
      else if (functionName === GC) k = 3;
      else if (fragments.some((f) => url.includes(f))) k = 1;
      else {
        const p = parent.get(id);
        if (p !== undefined && kindOf(p) === 1) k = 1;
      }
    }
    kind.set(id, k);
    return k;
  };
  // Parents first, so the recursion above stays shallow however deep the stacks.
  const order: number[] = [];
  for (const n of profile.nodes) if (!parent.has(n.id)) order.push(n.id);
  for (let i = 0; i < order.length; i++) for (const c of byId.get(order[i]!)?.children ?? []) order.push(c);
  for (const id of order) kindOf(id);
  let busy = 0;
  let gc = 0;
  let matched = 0;
  for (const s of profile.samples) {
    const k = kindOf(s);
    if (k === 2) continue;
    busy++;
    if (k === 3) gc++;
    else if (k === 1) matched++;
  }
  const ratio = (a: number, b: number) => (b > 0 ? Number((a / b).toFixed(4)) : 0);
  return { samples: profile.samples.length, busy, gc, matched, share: ratio(matched, busy), shareWithoutGc: ratio(matched, busy - gc) };
}
