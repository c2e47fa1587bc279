import { createPublicClient, http, parseAbi } from 'viem';
import { startDevnet } from '/work/main/src/devnet/devnet.ts';
const abi = parseAbi(['function getReserves() view returns (uint112,uint112,uint32)', 'function price0CumulativeLast() view returns (uint256)']);
const world = await startDevnet();
const file = '/tmp/probe/state.json';
await world.saveState(file);
await world.stop();
const copy = await startDevnet({ snapshot: { stateFile: file, addressBook: world.addressBook } });
const c = createPublicClient({ transport: http(copy.node.rpcUrl) });
const head = await c.getBlockNumber();
const pool = '0xcD9323f1eE7259E38e3247afB043effbBb7A28dD';
for (let n = 0n; n <= head; n++) {
  const b = await c.getBlock({ blockNumber: n });
  let r: unknown = '-';
  try { const [r0, r1, t] = await c.readContract({ address: pool, abi, functionName: 'getReserves', blockNumber: n }); const c0 = await c.readContract({ address: pool, abi, functionName: 'price0CumulativeLast', blockNumber: n }); r = `${r0} ${r1} ${t} c0=${c0}`; } catch (e) { r = 'ERR ' + (e as Error).message.split('\n')[0]; }
  console.log(n, b.timestamp, b.transactions.length, r);
}
await copy.stop();
