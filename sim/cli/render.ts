import type { CheckReport } from '../check/checkers';
import type { GroupPartitionDescription, PartitionDescription } from '../check/describe';
import { CHECKS } from '../check/names';
import { ALERT_CHECK_PREFIX } from '../check/alertChecks';
import type { ExpectationResult } from '../scenario/runner';

export interface Style {
  ok(s: string): string;
  bad(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function style(color: boolean): Style {
  const wrap = (code: string) => (s: string) => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  return { ok: wrap('32'), bad: wrap('31'), dim: wrap('2'), bold: wrap('1') };
}

/** A plain text table with a header row; columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

export function renderExpectations(exps: readonly ExpectationResult[], st: Style): string {
  if (exps.length === 0) return 'No expectations.\n';
  return exps.map((e) => `${e.ok ? st.ok('✓') : st.bad('✗')} ${e.description}${e.ok ? '' : st.bad(` (observed ${e.actual})`)}\n`).join('');
}

/** Every check with a nonzero count, then the zeros in one line. */
export function renderChecks(checks: CheckReport, st: Style): string {
  const names = Object.keys(checks);
  const nonzero = names.filter((n) => checks[n]!.count !== 0);
  const zero = names.filter((n) => checks[n]!.count === 0);
  let out = table(
    ['CHECK', 'COUNT', 'EXAMPLE'],
    nonzero.map((n) => [n, String(checks[n]!.count), checks[n]!.examples[0] ?? (CHECKS as Record<string, string>)[n] ?? '']),
  );
  if (zero.length > 0) out += st.dim(`zero: ${zero.join(', ')}`) + '\n';
  return out;
}

/** Each alert rule of the run and every time it fired, in scenario time; '' when the scenario has none. */
export function renderAlerts(checks: CheckReport, st: Style): string {
  const names = Object.keys(checks).filter((n) => n.startsWith(ALERT_CHECK_PREFIX));
  if (names.length === 0) return '';
  let out = '\nAlerts:\n';
  for (const n of names) {
    const c = checks[n]!;
    const rule = c.values?.[0] ?? '';
    const label = n.slice(ALERT_CHECK_PREFIX.length);
    out += `  ${c.count > 0 ? st.bad('●') : st.ok('○')} ${label === rule ? rule : `${label}: ${rule}`}${c.count === 0 ? st.dim(' (never fired)') : ''}\n`;
    for (const e of c.examples) out += `      ${e}\n`;
    if (c.count > c.examples.length) out += st.dim(`      ... and ${c.count - c.examples.length} more\n`);
  }
  return out;
}

/** The first story of each kind: a lost write, an input's duplicated effect, an input's lost effect. */
export function renderStories(checks: CheckReport): string {
  let out = '';
  for (const [check, title] of STORIES) {
    const first = checks[check]?.stories?.[0];
    if (first) out += `\nThe story of the first ${title}:\n${first.map((l) => `  ${l}`).join('\n')}\n`;
  }
  return out;
}

const STORIES = [
  ['lost-write', 'lost write'],
  ['output-duplicates', 'duplicated effect (output-duplicates)'],
  ['output-lost', 'lost effect (output-lost)'],
] as const;

/** Like kafka-topics --describe, plus the high watermark and the log end offset. */
export function renderTopics(parts: readonly PartitionDescription[]): string {
  if (parts.length === 0) return '';
  const list = (xs: readonly number[]) => (xs.length === 0 ? '-' : xs.join(','));
  return table(
    ['TOPIC', 'PARTITION', 'LEADER', 'REPLICAS', 'ISR', 'ELR', 'HIGH-WATERMARK', 'LOG-END-OFFSET'],
    parts.map((p) => [p.topic, String(p.partition), p.leader >= 0 ? String(p.leader) : 'none', list(p.replicas), list(p.isr), list(p.elr), String(p.highWatermark), String(p.logEndOffset)]),
  );
}

/** Like kafka-consumer-groups --describe. */
export function renderGroups(rows: readonly GroupPartitionDescription[]): string {
  if (rows.length === 0) return '';
  return table(
    ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID'],
    rows.map((r) => [r.group, r.topic, String(r.partition), r.currentOffset === null ? '-' : String(r.currentOffset), String(r.logEndOffset), r.lag === null ? '-' : String(r.lag), r.consumerId]),
  );
}
