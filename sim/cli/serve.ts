import { closeSync, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { formatTime, parseDuration, type Micros } from '../core/time';
import { JsonlSink, type TraceEvent, type TraceSink } from '../core/trace';
import { ValidationError } from '../core/validate';
import { LiveCluster, TCP_CLIENTS_HOST } from '../serve/liveCluster';
import { parseArgs, single } from './args';
import type { CliIo, Command } from './commands';
import { CliError } from './errors';
import { loadScenario } from './library';
import { renderChecks, renderExpectations, style } from './render';

const HELP_FAULTS = `Live faults, one per line (the scenario file's verbs and targets):
  crash broker-2                       restart broker-2
  power-loss leader:orders/0 for 10s   power-on broker-1
  pause broker-1 for 5s                resume broker-1
  isolate broker-3 for 20s             heal            (or: heal broker-3)
  partition broker-1,broker-2 | broker-3 for 15s
  one-way leader:orders/0 -> tag:broker for 10s
  latency broker-1 -> * 200ms          lossy broker-1 -> broker-2 0.2
  slow-disk broker-1 x10               disk-full broker-2
Targets: host ids (broker-1, controller-2, ${TCP_CLIENTS_HOST}), zone:<z>, rack:<r>, tag:broker, *, leader:<topic>/<p>,
follower:<topic>/<p>, controller:active, broker:<id>. Also: status, help, quit.`;

export const serveCommand: Command = {
  summary: 'serve a scenario\'s cluster to real Kafka clients over TCP, in real time',
  help: `kafkasim serve <scenario-id | file.json> [options]

Runs the scenario's cluster at the speed of the wall clock with one listener per broker on the loopback
interface (broker N on port P + N - 1), advertised as such in Metadata, so that any Kafka client (kcat,
the Java client, librdkafka, kafkajs) connects to it. The scenario's own clients and faults run on schedule;
faults typed on stdin apply at once. Stop with quit, end of input or Ctrl-C: the checkers then report on the
scenario's simulated clients (with the final state once the scenario's duration and quiet period have passed).

  --seed N            the random seed (default: the scenario's, or 1)
  --set scope.k=v     override a config (repeatable), as for run
  --host 127.0.0.1    the address to listen on and advertise
  --port 9092         the first broker's port (0: any free ports)
  --duration 90s      stop after this much scenario time (default: run until stopped)
  --trace out.jsonl   write the trace as it happens, as JSON Lines

${HELP_FAULTS}

Exit codes: 0 stopped, 2 bad input (the scenario, an option, a port in use), 3 an internal error.
`,
  run: (args, io) => serve(args, io),
};

/** Lines worth a person's attention while the cluster runs: faults, elections, brokers, refused connections. */
function liveLog(io: CliIo, startUs: () => Micros | null): TraceSink {
  const at = (t: Micros) => {
    const s = startUs();
    return s === null ? '' : `[${((t - s) / 1e6).toFixed(3).padStart(8)} s] `;
  };
  return {
    event(e: TraceEvent) {
      let line: string | null = null;
      switch (e.kind) {
        case 'fault.start':
          line = `fault ${e.fault} ${e.detail || e.hosts.join(', ')}`;
          break;
        case 'fault.end':
          line = `fault ${e.fault} undone on ${e.hosts.join(', ')}`;
          break;
        case 'controller.election':
          if (!e.topic.startsWith('__')) line = `${e.topic}-${e.partition}: leader ${e.leader < 0 ? 'none' : `broker ${e.leader}`} (epoch ${e.leaderEpoch}, ${e.source ?? 'no replica could lead'}, ${e.reason})`;
          break;
        case 'broker.state':
          if (e.state === 'running') line = `${e.node} is serving`;
          break;
        case 'host.crash':
        case 'host.power-off':
          if (!e.node.startsWith(TCP_CLIENTS_HOST)) line = `${e.node}: ${e.kind === 'host.crash' ? 'crashed' : 'powered off'}`;
          break;
        case 'wire.close':
          line = `${e.node} closed ${e.peer}: ${e.reason}`;
          break;
        case 'wire.create-topics':
          line = e.topics.map((t) => `${e.auto ? 'auto-created' : 'created'} topic ${t.name}: ${t.error}${t.message ? ` (${t.message})` : ''}`).join('; ');
          break;
        case 'caption':
          line = e.text;
          break;
      }
      if (line !== null && startUs() !== null) io.err(`${at(e.t)}${line}\n`);
    },
  };
}

async function serve(args: string[], io: CliIo): Promise<number> {
  const p = parseArgs('serve', args, { seed: { value: true }, set: { value: true, repeat: true }, host: { value: true }, port: { value: true }, duration: { value: true }, trace: { value: true } });
  if (p.positional.length !== 1) throw new CliError(`serve needs exactly one scenario id or file (got ${p.positional.length}); see kafkasim serve --help`);
  const scenario = loadScenario(p.positional[0]!, [...(p.values.get('set') ?? [])]);
  const seedText = single(p, 'seed');
  const seed = seedText === undefined ? undefined : /^-?\d+$/.test(seedText) ? Number(seedText) : seedText;
  const host = single(p, 'host') ?? '127.0.0.1';
  const portText = single(p, 'port') ?? '9092';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535 - scenario.cluster.brokers) throw new CliError(`--port: "${portText}" is not a port (0, or 1 to ${65535 - scenario.cluster.brokers} for ${scenario.cluster.brokers} brokers)`);
  const durationText = single(p, 'duration');
  let durationUs: Micros | undefined;
  if (durationText !== undefined) {
    const us = parseDuration(durationText);
    if (us === null || us <= 0) throw new CliError(`--duration: "${durationText}" is not a duration more than 0; use e.g. 90s, 1500ms, 2m`);
    durationUs = us;
  }
  const sinks: TraceSink[] = [];
  let fd: number | undefined;
  const tracePath = single(p, 'trace');
  if (tracePath) {
    try {
      fd = openSync(tracePath, 'w');
    } catch {
      throw new CliError(`--trace: cannot write ${tracePath}`);
    }
    const out = fd;
    sinks.push(new JsonlSink((line) => writeSync(out, line)));
  }
  let live: LiveCluster | undefined;
  sinks.push(liveLog(io, () => (live ? live.run.startUs : null)));
  try {
    try {
      live = await LiveCluster.start({ scenario, ...(seed !== undefined ? { seed } : {}), host, port, speed: 1, sinks });
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') throw new CliError(`serve: cannot listen on ${host} from port ${port}: ${code} (choose another with --port, or --port 0)`);
      throw e;
    }
    const st = style(io.color);
    io.out(`${st.bold(scenario.title)} ${st.dim(`(${scenario.id}, seed ${live.run.seed})`)}: ${scenario.cluster.brokers} brokers, ${scenario.cluster.controllers} controllers\n`);
    io.out(`bootstrap servers: ${live.bootstrap.join(',')}\n`);
    io.out(`  e.g. kcat -b ${live.bootstrap[0]} -L\n`);
    if (scenario.faults.length > 0) io.out(`${scenario.faults.length} fault(s) on schedule; the first at ${formatTime(scenario.faults[0]!.atUs)}\n`);
    io.out(`Type a fault (crash broker-2, isolate broker-1 for 10s, heal, ...), help, status or quit.\n`);
    return await new Promise<number>((resolve) => {
      const rl = createInterface({ input: process.stdin, terminal: false });
      let done = false;
      const finish = async () => {
        if (done) return;
        done = true;
        rl.close();
        // The input pipe would keep the process alive after the answer.
        process.stdin.destroy();
        process.off('SIGINT', finish);
        clearInterval(watch);
        const r = await live!.stop();
        io.out(`\nstopped after ${formatTime(Math.max(0, live!.scenarioMs()) * 1000)} of scenario time${live!.reachedEnd ? '' : ' (before the scenario\'s end: no final state, so the log checks are partial)'}\n`);
        io.out(renderExpectations(r.expectations, st) + '\n' + renderChecks(r.checks, st));
        resolve(0);
      };
      rl.on('line', (line) => {
        const text = line.trim();
        if (text === '' || text.startsWith('#')) return;
        if (text === 'quit' || text === 'exit') return void finish();
        if (text === 'help') return void io.out(HELP_FAULTS + '\n');
        if (text === 'status') return void io.out(status(live!) + '\n');
        try {
          io.out(live!.applyFault(text) + '\n');
        } catch (e) {
          if (e instanceof ValidationError) io.err(`kafkasim: ${e.message}\n`);
          else throw e;
        }
      });
      rl.on('close', () => void finish());
      process.on('SIGINT', finish);
      const watch = setInterval(() => { // determinism-ok: serve runs in real time, at the CLI edge
        if (durationUs !== undefined && live!.scenarioMs() * 1000 >= durationUs) void finish();
      }, 50);
    });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Brokers and partition leaders as the active controller has them now. */
function status(live: LiveCluster): string {
  const image = live.run.cluster.image();
  const hosts = live.world.hosts().filter((h) => h.tags.includes('broker') || h.tags.includes('controller'));
  const lines = [`at ${(live.scenarioMs() / 1000).toFixed(3)} s: ${hosts.map((h) => `${h.id} ${h.state}`).join(', ')}`];
  for (const t of image?.topics() ?? []) {
    if (t.name.startsWith('__')) continue;
    lines.push(`  ${t.name}: ${t.partitions.map((p, i) => `${i}: leader ${p.leader < 0 ? 'none' : p.leader} isr [${p.isr.join(',')}]`).join('; ')}`);
  }
  return lines.join('\n');
}
