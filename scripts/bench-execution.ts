/**
 * Prints, as JSON, the cost of safety: N swaps on the devnet through the full pipeline (quote, every check and
 * the simulation, ledger, exact approval, sign, broadcast, follow, settle) against a bare viem baseline (the same
 * quote, encode, send and receipt, with the router approved once up front and no checks). The two run alternately
 * (A B A B…) in one process, so both see the same machine and the same chain. Reports time, and the HTTP round
 * trips (a batch counts once) and JSON-RPC calls per execution as a proxy in front of the node counted them.
 * A first swap of each warms both up and is not counted.
 * `--latency-ms L` holds every request to the node L ms at the proxy, both sides alike: a node as far away as a
 * real one, where round trips, not our CPU, set the time. `--uniswap-v3` trades CELO for WETH on a devnet with
 * Uniswap V3, where the route goes through the 0.05% V3 pool (its pool proven by its factory, its steadiness by its
 * own oracle), instead of cUSD for CELO through Uniswap V2.
 * Usage: tsx scripts/bench-execution.ts [--swaps N] [--latency-ms L] [--uniswap-v3]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Address, type Hex, createPublicClient, createWalletClient, erc20Abi, http, maxUint256, parseUnits } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainFor } from '../src/chains.ts';
import { SignedHistory } from '../src/trade/signed-history.ts';
import { Wallet } from '../src/chain/wallet.ts';
import { chainChecks } from '../src/trade/check.ts';
import { encodeSwapCall } from '../src/contracts/calldata.ts';
import { swapPayloadFrom } from '../src/contracts/payload.ts';
import { startDevnet, startDevnetRoutingService } from '../src/devnet/devnet.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { TradeRecorder } from '../src/trade/recorder.ts';
import { createRoutingClient } from '../src/routing-client/client.ts';
import { runTrade } from '../src/trade/pipeline.ts';
import { defaultExecutionSettings } from '../src/trade/settings.ts';
import { startRpcProxy } from '../support/rpc-proxy.ts';

const { values } = parseArgs({
  options: { swaps: { type: 'string', default: '40' }, 'latency-ms': { type: 'string', default: '0' }, 'uniswap-v3': { type: 'boolean', default: false } },
});
const uniswapV3 = values['uniswap-v3'] === true;
const swaps = Number(values.swaps);
const latencyMs = Number(values['latency-ms']);

/**
 * A JSON-RPC proxy in front of the node that counts, from outside the process, the HTTP requests (round trips: a
 * batch is one) and the calls in them by method: what the node sees, not what our own code thinks it asked.
 */
async function countingProxy(upstream: string) {
  const proxy = await startRpcProxy(upstream);
  proxy.faults.latencyMs = latencyMs;
  return { url: proxy.url, calls: proxy.calls, roundTrips: proxy.requests, log: proxy.log, close: proxy.close };
}

const devnet = await startDevnet({ uniswapV3 });
const { service, addressBook: book } = await startDevnetRoutingService(devnet.addressBook);
try {
  const chain = chainFor(book.chainId, book.rpcUrl);
  const [pipelineKey, baselineKey, exactKey] = [book.accounts[0]?.privateKey, book.accounts[1]?.privateKey, book.accounts[2]?.privateKey];
  if (!pipelineKey || !baselineKey || !exactKey) throw new Error('the devnet needs three funded accounts');
  const bareAccount = privateKeyToAccount(baselineKey);
  const [tokenIn, tokenOut] = (uniswapV3 ? ['CELO', 'WETH'] : ['cUSD', 'CELO']).map((symbol) => book.tokens[symbol]?.address as Address) as [Address, Address];
  const amountIn = parseUnits('50', 18);
  const routing = createRoutingClient({ baseUrl: book.routingServiceUrl, chainId: book.chainId, rateLimit: { requestsPerSecond: 10_000, maxConcurrent: 16 } });

  // The baseline approves once, up front.
  const setupWallet = createWalletClient({ chain, transport: http(book.rpcUrl), account: privateKeyToAccount(baselineKey) });
  const approved = await setupWallet.writeContract({ address: tokenIn, abi: erc20Abi, functionName: 'approve', args: [book.contracts.router, maxUint256] });
  await createPublicClient({ chain, transport: http(book.rpcUrl) }).waitForTransactionReceipt({ hash: approved, pollingInterval: 20 });

  /**
   * N alternating swaps: the pipeline (wallet `pipelineKey`) and the bare baseline. With `preApproved` the
   * pipeline's wallet approved the router once up front, like the baseline's (the steady state of unlimited
   * approvals); without, it approves exactly each swap's amount (the default), on the nonce before the swap.
   */
  async function measure(pipelineKey: Hex, preApproved: boolean) {
    const pipelineAccount = privateKeyToAccount(pipelineKey);
    if (preApproved) {
      const setup = createWalletClient({ chain, transport: http(book.rpcUrl), account: pipelineAccount });
      const hash = await setup.writeContract({ address: tokenIn, abi: erc20Abi, functionName: 'approve', args: [book.contracts.router, maxUint256] });
      await createPublicClient({ chain, transport: http(book.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 20 });
    }
    const pipelineRpc = await countingProxy(book.rpcUrl);
    const client = createPublicClient({ chain, transport: http(pipelineRpc.url, { batch: true }), pollingInterval: 20, cacheTime: 0 });
    const ledger = await Ledger.open(join(mkdtempSync(join(tmpdir(), 'routekeeper-bench-')), 'ledger.sqlite'));
    const recorder = new TradeRecorder(ledger);
    const wallet = new Wallet({
      client,
      account: pipelineAccount,
      chainId: book.chainId,
      journal: recorder.journal,
      settings: { pollMs: 20 },
      tagScope: ledger.id().then((ledgerId) => ({ ledgerId, paper: false })),
    });
    const deps = {
      reads: ledger,
      recorder,
      routing,
      ...chainChecks(client, book.chainId, book),
      wallet,
      settings: defaultExecutionSettings,
      history: new SignedHistory({ ledger, wallet, approvals: defaultExecutionSettings.approvals }),
    };

    const baselineRpc = await countingProxy(book.rpcUrl);
    const bareClient = createPublicClient({ chain, transport: http(baselineRpc.url, { batch: true }), pollingInterval: 20, cacheTime: 0 });
    const bareWallet = createWalletClient({ chain, transport: http(baselineRpc.url, { batch: true }), account: bareAccount });

    let pipelineMs = 0;
    let baselineMs = 0;
    let baselineQuoteMs = 0;
    const stageMs = new Map<string, number>();
    let lastSwapLog: string[][] = [];
    // Swap -1 warms both up (the route's facts, decimals and the price average's start are read once per process;
    // the baseline's connection is opened): neither its time nor its requests are counted.
    let counted = { pipeline: { trips: 0, calls: new Map<string, number>() }, baseline: { trips: 0, calls: new Map<string, number>() } };
    for (let i = -1; i < swaps; i++) {
      if (i === 0) {
        counted = {
          pipeline: { trips: pipelineRpc.roundTrips(), calls: pipelineRpc.calls() },
          baseline: { trips: baselineRpc.roundTrips(), calls: baselineRpc.calls() },
        };
      }
      const logBefore = pipelineRpc.log().length;
      let started = performance.now();
      const report = await runTrade(deps, {
        id: `bench:${i}`,
        strategyId: 'bench',
        slot: String(i),
        wallet: pipelineAccount.address,
        chainId: book.chainId,
        kind: 'swap',
        tokenIn,
        tokenOut,
        amountIn,
        slippageBps: 50,
      });
      if (report.status !== 'confirmed') throw new Error(`pipeline swap ${i} ended ${report.status}: ${report.reason}`);
      if (i >= 0) {
        pipelineMs += performance.now() - started;
        for (const stage of report.stages) stageMs.set(stage.stage, (stageMs.get(stage.stage) ?? 0) + stage.ms);
      }
      lastSwapLog = pipelineRpc.log().slice(logBefore);

      started = performance.now();
      const route = await routing.getSwapRoute({ tokenIn, tokenOut, amountIn: amountIn + BigInt(i + 1), slippageBps: 50 });
      const quoteMs = performance.now() - started;
      const data = encodeSwapCall(swapPayloadFrom(route.details, { minOutputAmount: route.minimumExpectedOut ?? 0n, to: bareAccount.address }));
      const hash = await bareWallet.sendTransaction({ to: route.routerAddress, data, gas: 600_000n });
      const receipt = await bareClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      if (i >= 0) {
        baselineMs += performance.now() - started;
        baselineQuoteMs += quoteMs;
      }
      if (receipt.status !== 'success') throw new Error(`baseline swap ${i} reverted`);
    }
    await ledger.close();
    await pipelineRpc.close();
    await baselineRpc.close();

    const per = (value: number) => round(value / swaps);
    /** Calls by method since the warm-up. */
    const since = (now: Map<string, number>, before: Map<string, number>) => new Map([...now].map(([method, n]) => [method, n - (before.get(method) ?? 0)]));
    const byMethod = (calls: Map<string, number>) => Object.fromEntries([...calls].filter(([, n]) => n > 0).map(([method, n]) => [method, per(n)]));
    const total = (calls: Map<string, number>) => [...calls.values()].reduce((a, b) => a + b, 0);
    const pipelineCalls = since(pipelineRpc.calls(), counted.pipeline.calls);
    const baselineCalls = since(baselineRpc.calls(), counted.baseline.calls);
    return {
      pipeline: {
        msPerExecution: per(pipelineMs),
        roundTripsPerExecution: per(pipelineRpc.roundTrips() - counted.pipeline.trips),
        callsPerExecution: per(total(pipelineCalls)),
        callsByMethod: byMethod(pipelineCalls),
        msByStage: Object.fromEntries([...stageMs].map(([stage, ms]) => [stage, per(ms)])),
        approvals: preApproved ? 'unlimited, once before the run' : 'exact, one per swap',
        lastSwapRequests: lastSwapLog.map((calls) => calls.join(', ')),
      },
      baseline: {
        msPerExecution: per(baselineMs),
        roundTripsPerExecution: per(baselineRpc.roundTrips() - counted.baseline.trips),
        callsPerExecution: per(total(baselineCalls)),
        callsByMethod: byMethod(baselineCalls),
        quoteMs: per(baselineQuoteMs),
        approvals: 'unlimited, once before the run',
      },
      overhead: { ms: per(pipelineMs - baselineMs), ratio: round(pipelineMs / baselineMs) },
    };
  }

  const steadyState = await measure(pipelineKey, true);
  const withApproval = await measure(exactKey, false);
  console.log(JSON.stringify({ swaps, latencyMs, ...steadyState, withExactApprovals: withApproval }, null, 2));
} finally {
  await service.close();
  await devnet.stop();
}

function round(value: number) {
  return Math.round(value * 100) / 100;
}
