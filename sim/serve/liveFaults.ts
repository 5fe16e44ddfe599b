import { ValidationError } from '../core/validate';
import { validateSchedule, type Fault, type FaultEntry, type TargetResolver } from '../world/nemesis';

/**
 * A fault typed as a line, in the scenario file's own verbs and target selectors:
 *
 *   crash broker-2                      restart broker-2 / power-on broker-2 / resume broker-2
 *   power-loss leader:orders/0 for 10s  pause broker-1 for 5s      isolate broker-3 for 20s
 *   partition broker-1,broker-2 | broker-3 for 15s
 *   one-way leader:orders/0 -> tag:broker for 10s
 *   latency broker-1 -> * 200ms         lossy broker-1 -> broker-2 0.2
 *   slow-disk broker-1 x10              disk-full broker-2          heal   (or: heal broker-1)
 *
 * The line becomes one schedule entry, checked by the same validation as a scenario file's faults, so a mistake
 * gets the same one-line answer.
 */
export function parseFaultLine(line: string, resolver: TargetResolver, index: number, atUs: number): Fault {
  const text = line.trim();
  const m = /^(\S+)\s*(.*?)(?:\s+for\s+(\S+))?$/.exec(text);
  if (!m) throw new ValidationError('fault', text, 'a fault verb and its targets, e.g. "crash broker-2" or "isolate broker-1 for 10s"');
  const fault = m[1]!;
  const rest = m[2]!.trim();
  const entry: { -readonly [K in keyof FaultEntry]?: FaultEntry[K] } = { at: 0, fault: fault as FaultEntry['fault'] };
  if (m[3] !== undefined) entry.duration = m[3];
  const list = (s: string) => s.split(/[\s,]+/).filter((x) => x.length > 0);
  switch (fault) {
    case 'partition':
      entry.groups = rest.split('|').map((g) => list(g));
      break;
    case 'one-way':
    case 'latency':
    case 'lossy': {
      const arrow = /^(.*?)\s*->\s*(.*)$/.exec(rest);
      if (!arrow) throw new ValidationError('fault', text, `"${fault} <from> -> <to>${fault === 'latency' ? ' <delay>' : fault === 'lossy' ? ' <rate>' : ''}"`);
      entry.from = list(arrow[1]!);
      const to = list(arrow[2]!);
      if (fault === 'latency') {
        const d = to.pop();
        const ms = d === undefined ? NaN : Number(d.replace(/ms$/, ''));
        if (!Number.isFinite(ms)) throw new ValidationError('fault', text, 'a delay after the targets, e.g. "latency broker-1 -> * 200ms"');
        entry.addMs = ms;
      }
      if (fault === 'lossy') {
        const r = to.pop();
        entry.rate = r === undefined ? NaN : Number(r);
      }
      entry.to = to;
      break;
    }
    case 'slow-disk': {
      const parts = list(rest);
      const f = parts.findIndex((x) => /^x\d+(\.\d+)?$/.test(x));
      if (f >= 0) entry.factor = Number(parts.splice(f, 1)[0]!.slice(1));
      entry.targets = parts;
      break;
    }
    case 'heal':
      if (rest.length > 0) entry.targets = list(rest);
      break;
    default:
      entry.targets = list(rest);
  }
  let f: Fault;
  try {
    f = validateSchedule([entry], resolver, 'fault')[0]!;
  } catch (e) {
    // One typed fault is not a schedule: "fault.targets[0]", not "fault[0].targets[0]".
    if (e instanceof ValidationError) throw new ValidationError(e.path.replace(/^fault\[0\]/, 'fault'), e.value, e.allowed, e.hint);
    throw e;
  }
  return { ...f, index, atUs };
}
