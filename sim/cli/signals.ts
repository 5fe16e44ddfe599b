import { EXIT } from './errors';

/** What a signal ends a command with: 128 + its number, as shells report it. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
}

/**
 * Runs `work` with SIGINT and SIGTERM turned into an abort of its signal (the work stops handing out tasks and
 * tells its workers to stop, `onSignal` runs at once), so the command can write what it has before it exits.
 * A second signal ends the process at once. Returns the signal that stopped the work, or null.
 */
export async function withSignals<T>(work: (signal: AbortSignal) => Promise<T>, onSignal: (signal: NodeJS.Signals) => void = () => {}): Promise<{ value: T; signal: NodeJS.Signals | null }> {
  const abort = new AbortController();
  let got: NodeJS.Signals | null = null;
  const handler = (signal: NodeJS.Signals): void => {
    if (got !== null) process.exit(signalExitCode(signal)); // determinism-ok: runs outside any simulation
    got = signal;
    abort.abort();
    onSignal(signal);
  };
  process.on('SIGINT', handler); // determinism-ok: runs outside any simulation
  process.on('SIGTERM', handler); // determinism-ok: runs outside any simulation
  try {
    const value = await work(abort.signal);
    return { value, signal: got };
  } finally {
    process.off('SIGINT', handler); // determinism-ok: runs outside any simulation
    process.off('SIGTERM', handler); // determinism-ok: runs outside any simulation
  }
}
