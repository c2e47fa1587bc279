// `npm run bench:cli`: how long the CLI takes to answer commands that need no chain, as a user feels it
// (spawn to exit, compiled JavaScript). Prints one JSON object: milliseconds per command, median and worst.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/routekeeper.js', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 20);
const cases = { '--help': ['--help'], '--version': ['--version'], 'help run': ['help', 'run'], 'run --help': ['run', '--help'], '(no command)': [] };

const result = { runs, target: { '--help': '< 300 ms' }, ms: {} };
for (const [name, args] of Object.entries(cases)) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    const child = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (child.status !== 0) throw new Error(`routekeeper ${args.join(' ')} exited ${child.status}: ${child.stderr}`);
  }
  times.sort((a, b) => a - b);
  result.ms[name] = { median: Number(times[Math.floor(times.length / 2)].toFixed(1)), max: Number(times.at(-1).toFixed(1)) };
}
console.log(JSON.stringify(result));
