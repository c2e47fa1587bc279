import { startDevnet } from '/work/main/src/devnet/devnet.ts';
import { createPublicClient, http, encodeFunctionData, erc20Abi, parseEther } from 'viem';
import { simulateBlocks } from 'viem/actions';
const d = await startDevnet({});
const book = d.addressBook;
const c = createPublicClient({ transport: http(book.rpcUrl) });
const users = (book as any).accounts ?? {};
console.log(Object.keys(book));
const from = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const cusd = book.tokens.cUSD.address;
const r = await c.request({ method: 'eth_simulateV1' as any, params: [{ blockStateCalls: [{ calls: [
  { from, to: cusd, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000dEaD', 5n] }) },
  { from, to: '0x000000000000000000000000000000000000bEEF', value: '0x10' },
] }], traceTransfers: true }, 'latest'] as any });
console.log(JSON.stringify(r, null, 1).slice(0, 3000));
await d.stop();
