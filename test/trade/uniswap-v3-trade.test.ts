/**
 * The daemon checks and trades routes through Uniswap V3 pools (real V3 bytecode on the devnet): a swap through a V3
 * pool and a DCA run by `routekeeper once` trade end to end, the pool proven by its factory and the reference from
 * each hop's own quote held to the oracle; a V3 pool moved in the block before is refused as manipulated, with both
 * prices; a V3 pool of a factory nobody knows, and one whose own oracle does not reach a window back, are refused by
 * name. The same through Swappa's published PairUniswapV3, which quotes through Uniswap's QuoterV2 (its published
 * build, at Celo's address) and so cannot answer the router's view; and an adapter that quotes more than it swaps is
 * refused. A refused trade signs nothing: the wallet's nonce and balances are unchanged. doctor holds each V3 adapter's
 * own quote to our V3 arithmetic.
 */
import { writeFileSync } from 'node:fs';
import { type Address, type Hex, createWalletClient, decodeFunctionData, getAddress, http, parseEventLogs, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { routerAbi, uniswapV3PoolAbi } from '../../src/contracts/abi.ts';
import { devnetAccount } from '../../src/devnet/accounts.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import { adapterFindings } from '../../src/doctor/routing.ts';
import type { RefusalReason } from '../../src/model/guard-refusal.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import type { Trade } from '../../src/model/trade.ts';
import { runCli } from '../helpers/cli.ts';
import { daemonHome, dcaYaml } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { swapTrade, testExecutor } from '../helpers/engine.ts';
import { type Rewrite, useQuoteProxy } from '../helpers/quote-proxy.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';

const fork = useDevnetFork({ routing: true, uniswapV3: true });
const proxy = useQuoteProxy(fork);

const attacker = devnetAccount(9);
const me = () => fork.addressBook.accounts[0]?.address as Address;
const v3Adapter = () => fork.addressBook.contracts.adapters.uniswapV3 as Address;
/** Swappa's published PairUniswapV3: its getOutputAmount asks Uniswap's QuoterV2, which swaps and reverts. */
const swappaAdapter = () => fork.addressBook.contracts.adapters.swappaUniswapV3 as Address;
const v3Pool = (name: string) => {
  const pool = fork.addressBook.uniswapV3?.pools.find((candidate) => candidate.name === name);
  if (!pool) throw new Error(`no V3 pool ${name}`);
  return pool;
};

let slotCounter = 0;
/** Selling 5,000 CELO for WETH: CELO's liquidity on the devnet, as on Celo, is deepest in the 0.05% V3 pool. */
const celoForWeth = (overrides: Partial<Trade> = {}): Trade =>
  ({
    ...swapTrade(fork, 'v3', `${++slotCounter}`),
    tokenIn: fork.token('CELO'),
    tokenOut: fork.token('WETH'),
    amountIn: parseUnits('5000', 18),
    ...overrides,
  }) as Trade;

async function walletState() {
  return {
    nonce: await fork.publicClient.getTransactionCount({ address: me() }),
    celo: await fork.balanceOf(fork.token('CELO'), me()),
    weth: await fork.balanceOf(fork.token('WETH'), me()),
  };
}

const attackerWallet = () => createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: attacker.account });

async function deploy(artifact: { abi: readonly unknown[]; bytecode: Hex }, args: readonly unknown[] = []): Promise<Address> {
  const receipt = await fork.confirm(await attackerWallet().deployContract({ abi: artifact.abi as never, bytecode: artifact.bytecode, args: args as never }));
  return getAddress(receipt.contractAddress as Address);
}

async function call(address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]): Promise<void> {
  await fork.confirm(
    await attackerWallet().writeContract({ address, abi: abi as never, functionName: functionName as never, args: args as never, gas: 8_000_000n }),
  );
}

/**
 * A CELO/WETH V3 pool of `factory` at `fee`, initialized at the 0.05% pool's price and given deep liquidity around
 * it by the attacker's own liquidity provider.
 */
async function attackerPool(factory: Address, fee: number, liquidity: bigint, options: { priceScale?: number } = {}): Promise<Address> {
  const [celo, weth] = [fork.token('CELO'), fork.token('WETH')];
  await call(factory, artifacts.UniswapV3Factory.abi, 'createPool', [celo, weth, fee]);
  const pool = getAddress(
    await fork.publicClient.readContract({ address: factory, abi: artifacts.UniswapV3Factory.abi, functionName: 'getPool', args: [celo, weth, fee] }),
  );
  const [sqrtPriceX96, tick] = await fork.publicClient.readContract({
    address: v3Pool('CELO/WETH 0.05%').address,
    abi: uniswapV3PoolAbi,
    functionName: 'slot0',
  });
  // `priceScale` sets its price that many times the 0.05% pool's (its square root scales √price).
  const scaledSqrt = options.priceScale ? (sqrtPriceX96 * BigInt(Math.round(Math.sqrt(options.priceScale) * 1e9))) / 10n ** 9n : sqrtPriceX96;
  await call(pool, artifacts.UniswapV3Pool.abi, 'initialize', [scaledSqrt]);
  const provider = await deploy(artifacts.V3LiquidityProvider);
  for (const token of [celo, weth]) await call(token, artifacts.TestToken.abi, 'mint', [provider, parseUnits('100000000', 18)]);
  const spacing = await fork.publicClient.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: 'tickSpacing' });
  const scaledTick = options.priceScale ? tick + Math.round(Math.log(options.priceScale) / Math.log(1.0001)) : tick;
  const center = Math.floor(scaledTick / spacing) * spacing;
  await call(provider, artifacts.V3LiquidityProvider.abi, 'mint', [pool, center - 20 * spacing, center + 20 * spacing, liquidity]);
  return pool;
}

/** The route rewritten to one hop in a pool of our choosing, through a V3 adapter (the devnet's own by default). */
const throughPool =
  (pool: Address, adapter = v3Adapter()): Rewrite =>
  (body) => ({
    ...body,
    details: { ...body.details, path: [fork.token('CELO'), fork.token('WETH')], pairs: [adapter], extras: [pool.toLowerCase()] },
    txn: undefined,
  });

async function expectRefused(rewrite: Rewrite | undefined, reason: RefusalReason, said: readonly string[], addressBook = fork.addressBook) {
  proxy.setRewrite(rewrite);
  const executor = await testExecutor(fork, { serviceUrl: proxy.url, addressBook });
  try {
    const before = await walletState();
    const report = await runTrade(executor, celoForWeth());
    expect(report.status, report.reason).toBe('refused');
    expect(report.refusal, report.reason).toBe(reason);
    for (const part of said) expect(report.reason).toContain(part);
    expect(await executor.ledger.attempts.ofTrade(report.intentId)).toEqual([]);
    expect(await walletState()).toEqual(before);
    return report;
  } finally {
    await executor.close();
    proxy.setRewrite(undefined);
  }
}

describe('a swap through a Uniswap V3 route', () => {
  it('trades, its pool proven by the V3 factory and its reference the oracle: the wallet pays the trade and gets what the pool paid', async () => {
    const executor = await testExecutor(fork);
    try {
      const before = await walletState();
      const report = await runTrade(executor, celoForWeth());
      expect(report.status, report.reason).toBe('confirmed');
      const receipt = await fork.publicClient.getTransactionReceipt({ hash: report.txHash as Hex });
      const [swap] = parseEventLogs({ abi: uniswapV3PoolAbi, eventName: 'Swap', logs: receipt.logs });
      expect(swap?.address.toLowerCase()).toBe(v3Pool('CELO/WETH 0.05%').address.toLowerCase());
      const paidByPool = -(swap?.args.amount1 as bigint);
      expect(await walletState()).toEqual({ nonce: before.nonce + 2, celo: before.celo - parseUnits('5000', 18), weth: before.weth + paidByPool });
      expect(report.amountOut).toBe(paidByPool);
      // The reference is what the verified route pays now (the router over our adapter's view), held to the oracle;
      // nothing moved the pool between the check and the trade.
      expect(report.referenceOut).toBe(paidByPool);
      expect(report.minOut).toBe((paidByPool * 9_950n) / 10_000n);
      expect(await executor.ledger.trades.get(report.intentId)).toMatchObject({ status: 'confirmed', settlement: { amountOut: paidByPool } });
    } finally {
      await executor.close();
    }
  });

  it('is refused as manipulated when its V3 pool was moved in the block before, both prices named', async () => {
    // Someone buys CELO with WETH in the 0.05% pool: CELO is now dear there, which lures a CELO seller into it.
    const pool = v3Pool('CELO/WETH 0.05%');
    await call(fork.token('WETH'), artifacts.TestToken.abi, 'mint', [v3Adapter(), parseUnits('120', 18)]);
    await call(v3Adapter(), artifacts.UniswapV3Adapter.abi, 'swap', [fork.token('WETH'), fork.token('CELO'), attacker.address, pool.address]);
    // A service that offers only this pool: asked again without it, it offers it again, and the refusal stands.
    const report = await expectRefused(throughPool(pool.address), 'manipulated', [
      `pool ${pool.address} prices`,
      'from its 10.0-minute average',
      'moved within the window',
    ]);
    expect(report.reason).toMatch(/prices 0x[0-9a-fA-F]{40} at [\d.e-]+ of 0x[0-9a-fA-F]{40} now, [\d.]+% from its 10\.0-minute average [\d.e-]+/);
  });

  it('is refused against the oracle when its V3 pool is steady at a price the oracle does not give (held there two windows)', async () => {
    // CELO sold hard into the 0.05% pool, then left there for two windows: its own average follows, the oracle does not.
    const pool = v3Pool('CELO/WETH 0.05%');
    await call(fork.token('CELO'), artifacts.TestToken.abi, 'mint', [v3Adapter(), parseUnits('600000', 18)]);
    await call(v3Adapter(), artifacts.UniswapV3Adapter.abi, 'swap', [fork.token('CELO'), fork.token('WETH'), attacker.address, pool.address]);
    await fork.testClient.increaseTime({ seconds: 1200 });
    await fork.testClient.mine({ blocks: 1 });
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook);
    await expectRefused(throughPool(pool.address), 'price', ["the route's pools pay", "below the oracle's", 'pools off the market']);
  });

  it("is refused, naming the hop, when its adapter's getOutputAmount reverts even as an ordinary call", async () => {
    // The chain data names as a V3 adapter one that cannot quote a V3 hop at all: a V2 adapter of the attacker's,
    // which reverts on a 20-byte pool.
    const unreadable = await deploy(artifacts.UniswapV2Adapter);
    const book = {
      ...fork.addressBook,
      contracts: { ...fork.addressBook.contracts, adapters: { ...fork.addressBook.contracts.adapters, uniswapV3: unreadable } },
    };
    const pool = v3Pool('CELO/WETH 0.05%').address;
    const viaIt: Rewrite = (body, path) => {
      const rewritten = throughPool(pool)(body, path);
      return { ...rewritten, details: { ...rewritten.details, pairs: [unreadable] } };
    };
    await expectRefused(
      viaIt,
      'no-price',
      [`pairs[0] ${unreadable}'s getOutputAmount reverts (PackedData: extras must be 21 bytes)`, 'what the route pays now cannot be read'],
      book,
    );
  });

  it('is refused by name when its V3 pool is of a factory nobody knows, even at a fair price', async () => {
    const factory = await deploy(artifacts.UniswapV3Factory);
    const stranger = await attackerPool(factory, 500, 10n ** 26n);
    await expectRefused(throughPool(stranger), 'unknown-pool', ['details.extras[0]', `names pool ${stranger}, which no known Uniswap V3 factory made`]);
  });

  it("is held to the reference when its V3 pool's own oracle does not reach a window back: a young pool 3% off it is refused", async () => {
    // The factory's pool, made a moment ago (one observation, younger than the window) with CELO 3% dearer than the
    // oracle says: no history of its own to hold a trade to, so the reference decides.
    const young = await attackerPool(fork.addressBook.contracts.uniswapV3Factory as Address, 10_000, 10n ** 24n, { priceScale: 1.03 });
    const report = await expectRefused(throughPool(young), 'manipulated', [
      `pool ${young} prices ${fork.token('CELO')} at`,
      'from the reference',
      `pool ${young}'s own oracle does not reach 600 s back (it keeps 1 observation`,
      'not traded into',
    ]);
    expect(report.reason).toMatch(/at block \d+, 3\.00% from the reference 0\.000166667 \(feed 0x[0-9a-fA-F]{40}; feed 0x[0-9a-fA-F]{40}; tolerance 1%\)/);
  });
});

describe("a swap through Swappa's PairUniswapV3, which quotes through Uniswap's QuoterV2 (not a view)", () => {
  const pool = () => v3Pool('CELO/WETH 0.05%').address;

  it("cannot be priced by the router's view, yet trades: its reference is the hop's own quote, the minimum that less slippage, the flows proven", async () => {
    const route = [[fork.token('CELO'), fork.token('WETH')], [swappaAdapter()], [pool().toLowerCase() as Hex], parseUnits('5000', 18)] as const;
    await expect(
      fork.publicClient.readContract({ address: fork.addressBook.contracts.router, abi: routerAbi, functionName: 'getOutputAmount', args: route }),
    ).rejects.toThrow();
    proxy.setRewrite(throughPool(pool(), swappaAdapter()));
    const executor = await testExecutor(fork, { serviceUrl: proxy.url });
    try {
      const before = await walletState();
      const report = await runTrade(executor, celoForWeth());
      expect(report.status, report.reason).toBe('confirmed');
      const receipt = await fork.publicClient.getTransactionReceipt({ hash: report.txHash as Hex });
      const [payload] = decodeFunctionData({ abi: routerAbi, data: (await fork.publicClient.getTransaction({ hash: report.txHash as Hex })).input })
        .args as readonly [{ pairs: readonly Address[]; minOutputAmount: bigint }];
      expect(payload.pairs).toEqual([swappaAdapter()]);
      const [swap] = parseEventLogs({ abi: uniswapV3PoolAbi, eventName: 'Swap', logs: receipt.logs });
      expect(swap?.address.toLowerCase()).toBe(pool().toLowerCase());
      const paidByPool = -(swap?.args.amount1 as bigint);
      expect(await walletState()).toEqual({ nonce: before.nonce + 2, celo: before.celo - parseUnits('5000', 18), weth: before.weth + paidByPool });
      // QuoterV2's quote of the hop, read beside the simulation, is exactly what the pool paid.
      expect(report.referenceOut).toBe(paidByPool);
      expect(report.minOut).toBe((paidByPool * 9_950n) / 10_000n);
      expect(payload.minOutputAmount).toBe(report.minOut);
    } finally {
      await executor.close();
      proxy.setRewrite(undefined);
    }
  });

  it("costs three requests, the hop quote and the pool's own oracle in the first (the checks' one batch)", async () => {
    const node = await startRpcProxy(fork.addressBook.rpcUrl);
    proxy.setRewrite(throughPool(pool(), swappaAdapter()));
    const executor = await testExecutor(fork, { serviceUrl: proxy.url, rpcUrl: node.url });
    try {
      expect((await runTrade(executor, celoForWeth())).status).toBe('confirmed');
      const before = node.log().length;
      const deployless: string[] = [];
      node.faults.rewrite = (call, got) => {
        const [request] = (call.params ?? []) as [{ to?: string; data?: string; input?: string }?];
        if (call.method === 'eth_call' && !request?.to) deployless.push((request?.data ?? request?.input ?? '').toLowerCase());
        return got;
      };
      const report = await runTrade(executor, celoForWeth());
      expect(report.status, report.reason).toBe('confirmed');
      const requests = node.log().slice(before);
      expect(requests, requests.map((calls) => calls.join(', ')).join('\n')).toHaveLength(3);
      const [checks, sends] = requests as [string[], string[]];
      // The simulation carries the hop quote; beside it one call asks the pool's slot0 (0x3850c7bd) and observe
      // (0x883bdbfd) together, so both are of one block.
      expect(checks).toContain('eth_simulateV1');
      expect(checks.filter((entry) => entry === 'eth_call deployless')).toHaveLength(1);
      const asks = (data: string) => [data.includes(pool().slice(2).toLowerCase()), data.includes('3850c7bd'), data.includes('883bdbfd')];
      expect(deployless.map(asks)).toEqual([[true, true, true]]);
      expect(sends.every((method) => method === 'eth_sendRawTransactionSync')).toBe(true);
    } finally {
      await executor.close();
      await node.close();
      proxy.setRewrite(undefined);
    }
  });

  it('is refused as manipulated when its pool was moved in the block before, both prices named', async () => {
    await call(fork.token('WETH'), artifacts.TestToken.abi, 'mint', [v3Adapter(), parseUnits('120', 18)]);
    await call(v3Adapter(), artifacts.UniswapV3Adapter.abi, 'swap', [fork.token('WETH'), fork.token('CELO'), attacker.address, pool()]);
    await expectRefused(throughPool(pool(), swappaAdapter()), 'manipulated', [`pool ${pool()} prices`, 'moved within the window']);
  });

  it("is refused by name when its extras name a pool that is not the factory's own for that pair and fee (QuoterV2 would price the factory's)", async () => {
    const factory = await deploy(artifacts.UniswapV3Factory);
    const stranger = await attackerPool(factory, 500, 10n ** 26n);
    await expectRefused(throughPool(stranger, swappaAdapter()), 'unknown-pool', [
      'details.extras[0]',
      `names pool ${stranger}, which no known Uniswap V3 factory made`,
    ]);
  });

  it('is refused when an adapter quotes more than its swap delivers, nothing signed', async () => {
    // 0.3% more than the honest adapter's swap pays: within slippage, so only the simulation's delivery shows it.
    const liar = await deploy(artifacts.OverQuotingAdapter, [v3Adapter(), 30n]);
    await expectRefused(throughPool(pool(), liar), 'simulation', [
      "the route's hops quoted",
      'but a simulation of the exact transaction delivers',
      `hop 0 (pool ${pool()})`,
    ]);
  });
});

describe("routekeeper once through Swappa's PairUniswapV3", () => {
  /** An address book with no routing service of its own, whose V3 hops the daemon's embedded one sends through Swappa's adapter. */
  function swappaHome(name: string) {
    const home = daemonHome(fork, name);
    const { routingServiceUrl: _devnetService, ...book } = fork.addressBook;
    writeFileSync(
      home.book,
      JSON.stringify({ ...book, contracts: { ...book.contracts, adapters: { ...book.contracts.adapters, uniswapV3: swappaAdapter() } } }),
    );
    return home;
  }
  const key = () => fork.addressBook.accounts[0]?.privateKey as string;

  async function onceThroughSwappa(name: string, yaml: string, id: string, amount: string) {
    const home = swappaHome(name);
    const before = await walletState();
    const fromBlock = await fork.publicClient.getBlockNumber();
    const ran = await runCli(['once', id, '--config', home.config(yaml), '--address-book', home.book, '--json'], {
      ROUTEKEEPER_PRIVATE_KEY: key(),
      ROUTEKEEPER_DATA_DIR: home.dataDir,
      RPC_URL: '',
      ROUTING_SERVICE_URL: '',
      ROUTEKEEPER_CONFIG: '',
    });
    expect(ran.code, ran.stderr).toBe(0);
    const swaps = await fork.publicClient.getContractEvents({
      address: v3Pool('CELO/WETH 0.05%').address,
      abi: uniswapV3PoolAbi,
      eventName: 'Swap',
      fromBlock,
    });
    expect(swaps).toHaveLength(1);
    const tx = await fork.publicClient.getTransaction({ hash: swaps[0]?.transactionHash as Hex });
    const [payload] = decodeFunctionData({ abi: routerAbi, data: tx.input }).args as readonly [{ pairs: readonly Address[] }];
    expect(payload.pairs).toEqual([swappaAdapter()]);
    const paid = -(swaps[0]?.args.amount1 as bigint);
    expect(await walletState()).toMatchObject({ celo: before.celo - parseUnits(amount, 18), weth: before.weth + paid });
    expect(ran.stdout).toContain(paid.toString());
  }

  it('a DCA buys WETH with CELO through it', async () => {
    await onceThroughSwappa('swappa-dca', dcaYaml([{ id: 'weth', sell: 'CELO', buy: 'WETH', amount: '2500', every: '1h' }]), 'weth', '2500');
  });

  it('a take-profit order sells CELO for WETH through it once CELO fetches its level', async () => {
    const yaml = `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: tp, kind: limit, wallet: main, every: 1h, sell: { token: CELO, amount: "3000" }, buy: WETH, takeProfit: "0.00015" }
`;
    await onceThroughSwappa('swappa-tp', yaml, 'tp', '3000');
  });
});

describe('routekeeper once: a DCA through a Uniswap V3 route', () => {
  it('buys WETH with CELO through the 0.05% pool, and records what the pool paid', async () => {
    const home = daemonHome(fork, 'v3-once');
    const config = home.config(dcaYaml([{ id: 'weth', sell: 'CELO', buy: 'WETH', amount: '2500', every: '1h' }]));
    const key = fork.addressBook.accounts[0]?.privateKey as string;
    const before = await walletState();
    const fromBlock = await fork.publicClient.getBlockNumber();
    const ran = await runCli(['once', 'weth', '--config', config, '--address-book', home.book, '--json'], {
      ROUTEKEEPER_PRIVATE_KEY: key,
      ROUTEKEEPER_DATA_DIR: home.dataDir,
      RPC_URL: '',
      ROUTING_SERVICE_URL: '',
      ROUTEKEEPER_CONFIG: '',
    });
    expect(ran.code, ran.stderr).toBe(0);
    const swaps = await fork.publicClient.getContractEvents({
      address: v3Pool('CELO/WETH 0.05%').address,
      abi: uniswapV3PoolAbi,
      eventName: 'Swap',
      fromBlock,
    });
    expect(swaps).toHaveLength(1);
    const paid = -(swaps[0]?.args.amount1 as bigint);
    expect(await walletState()).toMatchObject({ celo: before.celo - parseUnits('2500', 18), weth: before.weth + paid });
    expect(ran.stdout).toContain(paid.toString());
  });
});

describe('routekeeper doctor: the V3 adapter, read as the daemon reads it', () => {
  const env = (home: { dataDir: string }) => ({
    RPC_URL: '',
    ROUTING_SERVICE_URL: '',
    ROUTEKEEPER_CONFIG: '',
    ROUTEKEEPER_DATA_DIR: home.dataDir,
    ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
  });
  const strategies = dcaYaml([{ id: 'weth', sell: 'CELO', buy: 'WETH', amount: '1', every: '1h' }]);

  /** doctor's output with the V3 adapter in the address book replaced by `adapter`. */
  async function doctorWith(name: string, adapter: Address) {
    const home = daemonHome(fork, name);
    writeFileSync(
      home.book,
      JSON.stringify({
        ...fork.addressBook,
        contracts: { ...fork.addressBook.contracts, adapters: { ...fork.addressBook.contracts.adapters, uniswapV3: adapter } },
      }),
    );
    return runCli(['doctor', '--config', home.config(strategies), '--address-book', home.book], env(home));
  }
  const passed = (adapter: Address) =>
    new RegExp(
      `ok {3}adapter ${adapter} \\(Uniswap V3, extras: the pool\\) for uniswap-v3: quotes ${fork.addressBook.uniswapV3?.pools.length} pools \\(0\\.05%, 0\\.3%\\) as their state says, both ways at ([1-9]\\d*) sizes`,
    );

  it('checks the devnet adapter by its own quote against our V3 arithmetic: several pools, tiers, sizes, both ways', async () => {
    const { code, stdout, stderr } = await doctorWith('v3-doctor', v3Adapter());
    expect(code, stdout + stderr).toBe(0);
    expect(Number(passed(v3Adapter()).exec(stdout)?.[1]), stdout).toBeGreaterThanOrEqual(12);
  });

  it("passes Swappa's PairUniswapV3, whose quote goes through QuoterV2 and cannot run in the router's view", async () => {
    const { code, stdout, stderr } = await doctorWith('v3-doctor-swappa', swappaAdapter());
    expect(code, stdout + stderr).toBe(0);
    expect(Number(passed(swappaAdapter()).exec(stdout)?.[1]), stdout).toBeGreaterThanOrEqual(12);
  });

  it('fails an adapter whose quote reverts, naming why', async () => {
    // A V2 adapter named as the V3 one: its quote reverts on a 20-byte pool.
    const v2Adapter = fork.addressBook.contracts.adapters.uniswapV2 as Address;
    const { code, stdout } = await doctorWith('v3-doctor-bad', v2Adapter);
    expect(code, stdout).toBe(1);
    expect(stdout).toMatch(
      new RegExp(
        `FAIL adapter ${v2Adapter} \\(Uniswap V3, extras: the pool\\) for uniswap-v3: its getOutputAmount reverts for pool 0x[0-9a-fA-F]{40} \\(PackedData: extras must be 21 bytes\\): the daemon cannot read what a route through it pays`,
      ),
    );
  });

  it('says whether a V3 factory had code before the block its pools are looked for from', async () => {
    const hash = await attackerWallet().deployContract({ abi: artifacts.UniswapV3Factory.abi, bytecode: artifacts.UniswapV3Factory.bytecode });
    const receipt = await fork.confirm(hash);
    const factoryAt = (fromBlock: bigint) => ({
      address: getAddress(receipt.contractAddress as Address),
      protocol: 'uniswap-v3',
      kind: 'uniswap-v3' as const,
      fromBlock,
      adapter: { address: v3Adapter(), kind: 'uniswap-v3' as const },
    });
    const startFindings = async (fromBlock: bigint) =>
      (await adapterFindings(fork.publicClient, { factories: [factoryAt(fromBlock)], router: fork.addressBook.contracts.router, tokens: {} })).filter(
        (finding) => finding.message.startsWith('factory '),
      );
    expect(await startFindings(receipt.blockNumber)).toEqual([
      {
        level: 'ok',
        message: `factory ${receipt.contractAddress && getAddress(receipt.contractAddress)} (uniswap-v3): no code before block ${receipt.blockNumber}, where its pools are looked for from: none is missed`,
      },
    ]);
    const late = await startFindings(receipt.blockNumber + 1n);
    expect(late.map((finding) => finding.level)).toEqual(['fail']);
    expect(late[0]?.message).toContain(
      `has code at block ${receipt.blockNumber}, before the block its pools are looked for from (${receipt.blockNumber + 1n}): pools made in between are missed`,
    );
  });

  it('fails an adapter that quotes more than the pool pays, with both amounts', async () => {
    const liar = await deploy(artifacts.OverQuotingAdapter, [v3Adapter(), 1n]);
    const { code, stdout } = await doctorWith('v3-doctor-liar', liar);
    expect(code, stdout).toBe(1);
    const [, quoted, expected] =
      /FAIL adapter 0x[0-9a-fA-F]{40} \(Uniswap V3, extras: the pool\) for uniswap-v3: quotes (\d+) for \d+ of 0x[0-9a-fA-F]{40} in pool 0x[0-9a-fA-F]{40} \(0\.\d+%\); its state says (\d+)/.exec(
        stdout,
      ) ?? [];
    expect(BigInt(quoted ?? 0)).toBe((BigInt(expected ?? 0) * 10_001n) / 10_000n);
  });
});
