import type { ScenarioSpec } from '../../../sim/scenario/spec';

// The scenario library, bundled at build time: every JSON file in scenarios/.
const modules = import.meta.glob('../../../scenarios/*.json', { eager: true, import: 'default' });

/** The library's scenarios, by id. */
export const LIBRARY: readonly ScenarioSpec[] = Object.values(modules)
  .map((m) => m as ScenarioSpec)
  .filter((s) => typeof s === 'object' && s !== null && typeof s.id === 'string')
  .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

export function findScenario(id: string): ScenarioSpec | undefined {
  return LIBRARY.find((s) => s.id === id);
}

/** The courier-hub walk-through (and any scenario tagged as using the analogy) opens on the glossary. */
export function usesAnalogy(s: ScenarioSpec): boolean {
  return s.id.includes('courier-hub') || (s.tags ?? []).some((t) => t === 'analogy' || t.includes('courier-hub'));
}
