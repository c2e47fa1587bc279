/**
 * Prints, as JSON, how long the devnet takes to deploy, to save its state, to start again from that
 * snapshot (what each test file pays), and to start a fork of it. Medians over `--runs` (default 10).
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createPublicClient, http } from 'viem';
import { forkDevnet, startDevnet } from '../src/devnet/devnet.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const runs = Number(values.runs);

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]?.toFixed(1));
  return { p50Ms: at(0.5), maxMs: at(1), runs: samples.length };
}

const deploy: number[] = [];
const dump: number[] = [];
const load: number[] = [];
const fork: number[] = [];
const forkFirstRead: number[] = [];
const directory = await mkdtemp(join(tmpdir(), 'routekeeper-bench-devnet-'));
const stateFile = join(directory, 'state.json');
for (let i = 0; i < runs; i++) {
  const [devnet, deployMs] = await timed(() => startDevnet());
  deploy.push(deployMs);
  const [, dumpMs] = await timed(() => devnet.saveState(stateFile));
  dump.push(dumpMs);
  const [restored, loadMs] = await timed(() => startDevnet({ snapshot: { stateFile, addressBook: devnet.addressBook } }));
  load.push(loadMs);
  const [forked, forkMs] = await timed(() => forkDevnet(restored));
  fork.push(forkMs);
  // A fork reads state lazily from its base: the first read of a contract is the real cost of a cold fork.
  const client = createPublicClient({ transport: http(forked.addressBook.rpcUrl) });
  const [, readMs] = await timed(() => client.getCode({ address: forked.addressBook.contracts.router }));
  forkFirstRead.push(readMs);
  await Promise.all([forked.node.stop(), restored.stop(), devnet.stop()]);
  if (i === 0) console.error(`state snapshot: ${Math.round((await stat(stateFile)).size / 1024)} KiB`);
}
await rm(directory, { recursive: true, force: true });

console.log(
  JSON.stringify(
    {
      deployWorld: summary(deploy),
      saveState: summary(dump),
      startFromSnapshot: summary(load),
      startFork: summary(fork),
      forkFirstRead: summary(forkFirstRead),
    },
    null,
    2,
  ),
);
