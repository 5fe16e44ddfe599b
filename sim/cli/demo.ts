import { seconds } from '../core/time';
import { Process } from '../world/process';
import { World } from '../world/world';
import type { CliIo } from './commands';

/**
 * The engine demonstration: a writer appends a record every 100 ms and fsyncs every 10th; the host loses
 * power at 40 s. What survives is what was fsynced or written back by the OS, not what was written.
 */
export function demo(io: CliIo): number {
  const world = new World({ seed: 1, scenario: 'demo-page-cache' });
  const host = world.addHost({ id: 'host-1' });
  let written = 0;
  let synced = 0;
  class Writer extends Process {
    override onStart(): void {
      const tick = (): void => {
        written++;
        this.disk.append('data.log', written, 100);
        if (written % 10 === 0) {
          const n = written;
          this.setTimer(this.disk.fsync('data.log') - this.now, () => (synced = n));
        }
        this.setTimer(seconds(0.1), tick);
      };
      tick();
    }
    onMessage(): void {}
  }
  host.addProcess({ id: 'writer', create: (ctx) => new Writer('writer', ctx) });
  world.start();
  world.runUntil(seconds(40.05));
  host.powerOff();
  const survived = host.disk.read('data.log').length;
  io.out(`A process wrote ${written} records and fsynced after every 10th; the last fsync to complete covered ${synced}.\n`);
  io.out(`The host lost power at 40.05 s: ${survived} records survived, ${written - survived} were lost from the page cache.\n`);
  io.out(`trace hash ${world.trace.hash()}, ${world.scheduler.eventsRun} events\n`);
  return survived >= synced ? 0 : 1;
}
