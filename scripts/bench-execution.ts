/**
 * Prints, as JSON, the cost of safety: N swaps on the devnet through the full pipeline (quote, guards,
 * simulation, ledger, sender, outcome) against a bare baseline (the same quote, encode, send and receipt
 * with plain viem and no checks). Reports time per execution and JSON-RPC calls per execution.
 * Usage: tsx scripts/bench-execution.ts [--swaps N]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Address, createPublicClient, createWalletClient, erc20Abi, http, maxUint256, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainFor } from '../src/chain/chains.ts';
import { encodeSwapCall } from '../src/chain/calldata.ts';
import { swapPayloadFrom } from '../src/chain/payload.ts';
import { WalletSender } from '../src/chain/sender.ts';
import { allowlistFor } from '../src/config/allowlist.ts';
import { startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { defaultExecutionSettings, executeTrade } from '../src/engine/executor.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { createRoutingClient } from '../src/service/client.ts';

const { values } = parseArgs({ options: { swaps: { type: 'string', default: '40' } } });
const swaps = Number(values.swaps);

/** An http transport that counts JSON-RPC calls (each call inside a batch counts once) by method. */
function countingTransport(url: string) {
  const counts = new Map<string, number>();
  const transport = http(url, {
    batch: true,
    onFetchRequest: async (request) => {
      const body = JSON.parse(await request.clone().text());
      for (const call of Array.isArray(body) ? body : [body]) counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
    },
  });
  return { transport, counts, total: () => [...counts.values()].reduce((a, b) => a + b, 0), reset: () => counts.clear() };
}

const devnet = await startDevnet();
const { service, addressBook: book } = await startDevnetRoutingService(devnet.addressBook);
try {
  const chain = chainFor(book.chainId, book.rpcUrl);
  const [pipelineKey, baselineKey] = [book.accounts[0]?.privateKey, book.accounts[1]?.privateKey];
  if (!pipelineKey || !baselineKey) throw new Error('the devnet needs two funded accounts');
  const cUSD = book.tokens.cUSD?.address as Address;
  const CELO = book.tokens.CELO?.address as Address;
  const amountIn = parseUnits('50', 18);
  const routing = createRoutingClient({ baseUrl: book.routingServiceUrl, chainId: book.chainId, rateLimit: { requestsPerSecond: 10_000, maxConcurrent: 16 } });

  // Both wallets approve the router once, up front, so each side measures the trade alone.
  for (const key of [pipelineKey, baselineKey] as const) {
    const wallet = createWalletClient({ chain, transport: http(book.rpcUrl), account: privateKeyToAccount(key) });
    const hash = await wallet.writeContract({ address: cUSD, abi: erc20Abi, functionName: 'approve', args: [book.contracts.router, maxUint256] });
    await createPublicClient({ chain, transport: http(book.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 20 });
  }

  // ---- full pipeline
  const pipelineRpc = countingTransport(book.rpcUrl);
  const client = createPublicClient({ chain, transport: pipelineRpc.transport, pollingInterval: 20, cacheTime: 0 });
  const ledger = Ledger.open(join(mkdtempSync(join(tmpdir(), 'routekeeper-bench-')), 'ledger.sqlite'));
  const sender = new WalletSender({ client, account: privateKeyToAccount(pipelineKey), chainId: book.chainId, ledger, settings: { pollMs: 20 } });
  const deps = { chainId: book.chainId, client, ledger, routing, allowlist: allowlistFor(book.chainId, book), sender, settings: defaultExecutionSettings };
  pipelineRpc.reset();
  const pipelineStarted = performance.now();
  for (let i = 0; i < swaps; i++) {
    const report = await executeTrade(deps, { strategyId: 'bench', slot: String(i), kind: 'swap', tokenIn: cUSD, tokenOut: CELO, amountIn, slippageBps: 50 });
    if (report.status !== 'confirmed') throw new Error(`pipeline swap ${i} ended ${report.status}: ${report.reason}`);
  }
  const pipelineMs = (performance.now() - pipelineStarted) / swaps;
  const pipelineCalls = pipelineRpc.total() / swaps;
  const pipelineByMethod = Object.fromEntries([...pipelineRpc.counts].map(([method, n]) => [method, n / swaps]));
  ledger.close();

  // ---- bare baseline: quote, encode, send, receipt
  const baselineRpc = countingTransport(book.rpcUrl);
  const bareClient = createPublicClient({ chain, transport: baselineRpc.transport, pollingInterval: 20, cacheTime: 0 });
  const bareAccount = privateKeyToAccount(baselineKey);
  const bareWallet = createWalletClient({ chain, transport: baselineRpc.transport, account: bareAccount });
  baselineRpc.reset();
  const baselineStarted = performance.now();
  for (let i = 0; i < swaps; i++) {
    const route = await routing.getSwapRoute({ tokenIn: cUSD, tokenOut: CELO, amountIn: amountIn + BigInt(i), slippageBps: 50 });
    const data = encodeSwapCall(swapPayloadFrom(route.details, { minOutputAmount: route.minimumExpectedOut ?? 0n, to: bareAccount.address }));
    const hash = await bareWallet.sendTransaction({ to: route.routerAddress, data, gas: 600_000n });
    const receipt = await bareClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`baseline swap ${i} reverted`);
  }
  const baselineMs = (performance.now() - baselineStarted) / swaps;
  const baselineCalls = baselineRpc.total() / swaps;

  console.log(
    JSON.stringify(
      {
        swaps,
        pipeline: { msPerExecution: round(pipelineMs), rpcCallsPerExecution: round(pipelineCalls), rpcCallsByMethod: pipelineByMethod },
        baseline: { msPerExecution: round(baselineMs), rpcCallsPerExecution: round(baselineCalls) },
        overhead: { ms: round(pipelineMs - baselineMs), ratio: round(pipelineMs / baselineMs) },
      },
      null,
      2,
    ),
  );
} finally {
  await service.close();
  await devnet.stop();
}

function round(value: number) {
  return Math.round(value * 100) / 100;
}
