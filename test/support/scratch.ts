import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh scratch directory under the OS's temp dir, and a way to write a file into it (returns its path). */
export function scratch(prefix: string): { dir: string; file(name: string, content: string): string } {
  const dir = mkdtempSync(join(tmpdir(), `kafkasim-${prefix}-`));
  return {
    dir,
    file(name, content) {
      const p = join(dir, name);
      writeFileSync(p, content);
      return p;
    },
  };
}
