/**
 * The routing service as an attacker would run it: under-quotes of an honest path, contracts of the attacker's
 * inside the route, farm data that sends the position elsewhere, and fake prices meant to trigger a stop-loss.
 * Every attack is refused before anything is signed: no transaction, the wallet's nonce and balances unchanged,
 * the attacker's contracts no richer. The honest quote still trades.
 */
import { type Address, type Hex, concatHex, createWalletClient, getAddress, http, numberToHex, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { devnetAccount } from '../../src/devnet/accounts.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import type { RefusalReason } from '../../src/model/guard-refusal.ts';
import { runStrategy } from '../../src/engine/runner.ts';
import type { LimitStrategy } from '../../src/strategy/types.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import type { Trade } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { limitStrategy, swapTrade, testExecutor } from '../helpers/engine.ts';
import { type Rewrite, useQuoteProxy } from '../helpers/quote-proxy.ts';
import { constantProductOut, readPool, reservesFrom } from '../helpers/uniswap.ts';

const fork = useDevnetFork({ routing: true });
const proxy = useQuoteProxy(fork);

const attacker = devnetAccount(9);
const me = () => fork.addressBook.accounts[0]?.address as Address;
const gauge = () => fork.addressBook.contracts.gauges['CELO/cUSD']?.address as Address;
const pool = (name: string) => fork.addressBook.pools.find((entry) => entry.name === name)?.address as Address;
const extrasOf = (address: Address, feePerMille = 3) => concatHex([address, numberToHex(feePerMille, { size: 1 })]).toLowerCase() as Hex;

let slotCounter = 0;
const trade = (overrides: Partial<Trade> = {}): Trade => ({ ...swapTrade(fork, 'attacked', `${++slotCounter}`), ...overrides }) as Trade;

/** Everything of the wallet an attack could touch, and everything the attacker's contracts hold. */
async function snapshotOf(watched: readonly Address[] = []) {
  const tokens = [fork.token('cUSD'), fork.token('CELO'), fork.token('RWD'), gauge(), pool('CELO/cUSD')];
  return {
    nonce: await fork.publicClient.getTransactionCount({ address: me() }),
    native: await fork.publicClient.getBalance({ address: me() }),
    wallet: await Promise.all(tokens.map((token) => fork.balanceOf(token, me()))),
    attacker: await Promise.all(watched.flatMap((holder) => tokens.map((token) => fork.balanceOf(token, holder)))),
  };
}

async function expectRefused(rewrite: Rewrite, reason: RefusalReason, field: string | undefined, overrides: Partial<Trade> = {}, watched: Address[] = []) {
  proxy.setRewrite(rewrite);
  const executor = await testExecutor(fork, { serviceUrl: proxy.url });
  try {
    const before = await snapshotOf(watched);
    const report = await runTrade(executor, trade(overrides));
    expect(report.status, report.reason).toBe('refused');
    expect(report.refusal, report.reason).toBe(reason);
    if (field) expect(report.reason).toContain(field);
    expect(await executor.ledger.trades.get(report.intentId)).toMatchObject({ status: 'refused', failure: { refusal: reason } });
    expect(await executor.ledger.attempts.ofTrade(report.intentId)).toEqual([]);
    expect(await snapshotOf(watched)).toEqual(before);
    return report;
  } finally {
    await executor.close();
    proxy.setRewrite(undefined);
  }
}

const attackerWallet = () => createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: attacker.account });

async function deploy(artifact: { abi: readonly unknown[]; bytecode: Hex }, args: readonly unknown[] = []): Promise<Address> {
  const hash = await attackerWallet().deployContract({ abi: artifact.abi as never, bytecode: artifact.bytecode, args: args as never });
  const receipt = await fork.confirm(hash);
  return getAddress(receipt.contractAddress as Address);
}

async function call(address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]): Promise<void> {
  await fork.confirm(
    await attackerWallet().writeContract({ address, abi: abi as never, functionName: functionName as never, args: args as never, gas: 5_000_000n }),
  );
}

/** A Uniswap V2 pool of `factory` for two test tokens, seeded by the attacker (who mints the test tokens). */
async function seededPool(factory: Address, [a, amountA]: [Address, bigint], [b, amountB]: [Address, bigint]): Promise<Address> {
  await call(factory, artifacts.UniswapV2Factory.abi, 'createPair', [a, b]);
  const pair = (await fork.publicClient.readContract({
    address: factory,
    abi: artifacts.UniswapV2Factory.abi,
    functionName: 'getPair',
    args: [a, b],
  })) as Address;
  await call(a, artifacts.TestToken.abi, 'mint', [pair, amountA]);
  await call(b, artifacts.TestToken.abi, 'mint', [pair, amountB]);
  await call(pair, artifacts.UniswapV2Pair.abi, 'mint', [attacker.address]);
  return pair;
}

const scaleExpected =
  (numerator: bigint, denominator: bigint): Rewrite =>
  (body) => {
    const scaled = body.expectedOut === '1' ? '1' : ((BigInt(body.expectedOut) * numerator) / denominator).toString();
    body.details.expectedOutputAmount = scaled;
    const { txn, ...rest } = body;
    return { ...rest, expectedOut: scaled };
  };

describe('under-quoting an honest path is refused against the independent reference', () => {
  it('by 50%', () => expectRefused(scaleExpected(1n, 2n), 'price', 'below the reference'));
  it('by 2%', () => expectRefused(scaleExpected(98n, 100n), 'price', 'below the reference'));
  it('to 1 wei', () =>
    expectRefused(
      (body) => {
        body.details.expectedOutputAmount = '1';
        const { txn, ...rest } = body;
        return { ...rest, expectedOut: '1' };
      },
      'price',
      'the quote pays 1,',
    ));
});

describe('adapters are judged by what the simulated transaction does, not by a list', () => {
  const viaAdapter =
    (adapter: Address): Rewrite =>
    (body) => ({ ...body, details: { ...body.details, pairs: [adapter] }, txn: undefined });

  it('an honest adapter that no list names is traded through, paying exactly what the pool pays', async () => {
    const unlisted = await deploy(artifacts.UniswapV2Adapter);
    expect(Object.values(fork.addressBook.contracts.adapters).map((a) => a.toLowerCase())).not.toContain(unlisted.toLowerCase());
    const [reserveCusd, reserveCelo] = reservesFrom(await readPool(fork, 'CELO/cUSD'), fork.token('cUSD'));
    proxy.setRewrite(viaAdapter(unlisted));
    const executor = await testExecutor(fork, { serviceUrl: proxy.url });
    try {
      const [cusdBefore, celoBefore] = await Promise.all([fork.balanceOf(fork.token('cUSD'), me()), fork.balanceOf(fork.token('CELO'), me())]);
      const report = await runTrade(executor, trade());
      expect(report.status, report.reason).toBe('confirmed');
      const paid = constantProductOut(parseUnits('100', 18), reserveCusd, reserveCelo);
      expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(cusdBefore - parseUnits('100', 18));
      expect(await fork.balanceOf(fork.token('CELO'), me())).toBe(celoBefore + paid);
      expect(report.amountOut).toBe(paid);
      expect(await fork.balanceOf(fork.token('CELO'), unlisted)).toBe(0n);
      expect(await fork.balanceOf(fork.token('cUSD'), unlisted)).toBe(0n);
    } finally {
      await executor.close();
      proxy.setRewrite(undefined);
    }
  });

  it('an adapter that keeps 1 wei of the input (far below the slippage) is refused, naming it', async () => {
    const skimmer = await deploy(artifacts.SkimmingAdapter, [1n, 0n]);
    const report = await expectRefused(viaAdapter(skimmer), 'token-flow', `${skimmer} would keep 1 of ${fork.token('cUSD')}`, {}, [skimmer]);
    expect(report.reason).toContain('neither the wallet, a known pool making one swap');
  });

  it('an adapter that keeps 1 wei of the output is refused, naming it', async () => {
    const skimmer = await deploy(artifacts.SkimmingAdapter, [0n, 1n]);
    await expectRefused(viaAdapter(skimmer), 'token-flow', `${skimmer} would keep 1 of ${fork.token('CELO')}`, {}, [skimmer]);
  });

  it('an unlisted adapter swapping in a pool no known factory made, even at a fair price, is refused', async () => {
    const adapter = await deploy(artifacts.UniswapV2Adapter);
    const factory = await deploy(artifacts.UniswapV2Factory, [attacker.address]);
    const fair = await seededPool(factory, [fork.token('cUSD'), parseUnits('2000000', 18)], [fork.token('CELO'), parseUnits('4000000', 18)]);
    await expectRefused(
      (body) => ({ ...body, details: { ...body.details, pairs: [adapter], extras: [extrasOf(fair)] }, txn: undefined }),
      'token-flow',
      `${fair} would take 100000000000000000000 of ${fork.token('cUSD')}`,
      {},
      [adapter, fair],
    );
  });

  const depositCelo = (): Trade =>
    trade({ kind: 'deposit', tokenIn: fork.token('CELO'), tokenOut: gauge(), amountIn: parseUnits('1000', 18) } as Partial<Trade>);
  const swapLegVia =
    (adapter: Address): Rewrite =>
    (body) => {
      const leg = body.underlyingRoutes.find((route: { path: string[] }) => route.path.length === 2);
      leg.pairs = [adapter];
      return body;
    };

  it("a deposit whose swap leg runs through an unlisted honest adapter mints the position, at the legs' proven fees", async () => {
    const unlisted = await deploy(artifacts.UniswapV2Adapter);
    proxy.setRewrite(swapLegVia(unlisted));
    const executor = await testExecutor(fork, { serviceUrl: proxy.url });
    try {
      const [celoBefore, positionBefore] = await Promise.all([fork.balanceOf(fork.token('CELO'), me()), fork.balanceOf(gauge(), me())]);
      const report = await runTrade(executor, depositCelo());
      expect(report.status, report.reason).toBe('confirmed');
      expect(await fork.balanceOf(gauge(), me())).toBe(positionBefore + (report.amountOut as bigint));
      expect(report.amountOut).toBeGreaterThanOrEqual(report.minOut as bigint);
      const paid = celoBefore - (await fork.balanceOf(fork.token('CELO'), me()));
      expect(paid).toBeGreaterThan(0n);
      expect(paid).toBeLessThanOrEqual(parseUnits('1000', 18));
      expect((await executor.ledger.trades.get(report.intentId))?.call?.referenceOut).toBeDefined();
      for (const token of [fork.token('CELO'), fork.token('cUSD')]) expect(await fork.balanceOf(token, unlisted)).toBe(0n);
    } finally {
      await executor.close();
      proxy.setRewrite(undefined);
    }
  });

  it("a factory's protocol fee (feeTo switched on) minted in the position's pool is accounted for, and the deposit goes through", async () => {
    const factory = fork.addressBook.contracts.uniswapV2Factory as Address;
    const feeTo = devnetAccount(8).address;
    const owner = createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: devnetAccount(0).account });
    await fork.confirm(
      await owner.writeContract({ address: factory, abi: artifacts.UniswapV2Factory.abi, functionName: 'setFeeTo', args: [feeTo], gas: 100_000n }),
    );
    const executor = await testExecutor(fork);
    try {
      // The first deposit with the fee on records the pool's k; a swap grows it; the next deposit mints the fee.
      const first = await runTrade(executor, depositCelo());
      expect(first.status, first.reason).toBe('confirmed');
      const grow = await runTrade(executor, trade({ amountIn: parseUnits('10000', 18) }));
      expect(grow.status, grow.reason).toBe('confirmed');
      const positionBefore = await fork.balanceOf(gauge(), me());
      const report = await runTrade(executor, depositCelo());
      expect(report.status, report.reason).toBe('confirmed');
      expect(await fork.balanceOf(pool('CELO/cUSD'), feeTo)).toBeGreaterThan(0n);
      expect(await fork.balanceOf(gauge(), me())).toBe(positionBefore + (report.amountOut as bigint));
    } finally {
      await executor.close();
    }
  });

  it('a deposit leg through an adapter keeping 1 wei is refused, naming it, with nothing sent', async () => {
    const skimmer = await deploy(artifacts.SkimmingAdapter, [0n, 1n]);
    await expectRefused(swapLegVia(skimmer), 'token-flow', `${skimmer} would keep 1 of ${fork.token('cUSD')}`, depositCelo(), [skimmer]);
  });

  it('the devnet service routes cUSD → USDC through its second adapter, which no list names, and it trades', async () => {
    const bips = fork.addressBook.routingService?.bipsAdapter as Address;
    const executor = await testExecutor(fork, { serviceUrl: proxy.url });
    let pairs: string[] = [];
    proxy.setRewrite((body) => {
      pairs = body.details.pairs;
      return body;
    });
    try {
      const usdcBefore = await fork.balanceOf(fork.token('USDC'), me());
      const report = await runTrade(executor, trade({ tokenOut: fork.token('USDC') }));
      expect(report.status, report.reason).toBe('confirmed');
      expect(pairs.map((p) => p.toLowerCase())).toEqual([bips.toLowerCase()]);
      expect(await fork.balanceOf(fork.token('USDC'), me())).toBe(usdcBefore + (report.amountOut as bigint));
      expect(report.amountOut).toBeGreaterThanOrEqual(report.minOut as bigint);
    } finally {
      await executor.close();
      proxy.setRewrite(undefined);
    }
  });
});

describe('contracts of the attacker inside a route are refused', () => {
  it('the real adapter with an attacker pool in extras', async () => {
    const factory = await deploy(artifacts.UniswapV2Factory, [attacker.address]);
    // The attacker's pool prices CELO at ten times the market, so it would pay a tenth of what it should.
    const skewed = await seededPool(factory, [fork.token('cUSD'), parseUnits('1000000', 18)], [fork.token('CELO'), parseUnits('200000', 18)]);
    await expectRefused(
      (body) => ({ ...body, details: { ...body.details, extras: [extrasOf(skewed)] }, txn: undefined }),
      'unknown-pool',
      'details.extras[0]',
      {},
      [skewed, factory],
    );
  });

  it('a known pool with another fee than it charges in extras', () =>
    expectRefused(
      (body) => ({ ...body, details: { ...body.details, extras: [extrasOf(pool('CELO/cUSD'), 200)] }, txn: undefined }),
      'unknown-pool',
      'details.extras[0]',
    ));

  it('an attacker token in the middle of the path, through pools of the known factory', async () => {
    const evil = await deploy(artifacts.TestToken, ['Evil', 'EVIL', 18]);
    const factory = fork.addressBook.contracts.uniswapV2Factory as Address;
    const first = await seededPool(factory, [fork.token('cUSD'), parseUnits('1000000', 18)], [evil, parseUnits('1000000', 18)]);
    const second = await seededPool(factory, [evil, parseUnits('1000000', 18)], [fork.token('CELO'), parseUnits('2000000', 18)]);
    const adapter = fork.addressBook.contracts.adapters.uniswapV2 as Address;
    await expectRefused(
      (body) => ({
        ...body,
        details: {
          ...body.details,
          path: [fork.token('cUSD'), evil, fork.token('CELO')],
          pairs: [adapter, adapter],
          extras: [extrasOf(first), extrasOf(second)],
        },
        txn: undefined,
      }),
      'unknown-token',
      'details.path[1]',
      {},
      [first, second],
    );
  });

  it('a partner id that is not ours', () =>
    expectRefused((body) => ({ ...body, details: { ...body.details, partner: 7 }, txn: undefined }), 'unknown-partner', 'details.partner'));
});

describe('farm data that does not name the position is refused', () => {
  const depositToGauge = { kind: 'deposit' as const, tokenIn: '' as Address, tokenOut: '' as Address, amountIn: parseUnits('1000', 18) };
  const deposit = () => ({ ...depositToGauge, tokenIn: fork.token('CELO'), tokenOut: gauge() });

  it('an attacker gauge (staking the right pool) in deposit farm data', async () => {
    const fake = await deploy(artifacts.StakingGauge, ['Fake gauge', 'g-fake', pool('CELO/cUSD'), fork.token('RWD')]);
    await expectRefused(
      (body) => ({ ...body, depositData: { ...body.depositData, extra: concatHex([pool('CELO/cUSD'), fake]) } }),
      'farm-mismatch',
      'depositData.extra',
      deposit(),
      [fake],
    );
  });

  it('an attacker pool in deposit farm data', async () => {
    const factory = await deploy(artifacts.UniswapV2Factory, [attacker.address]);
    const fakePool = await seededPool(factory, [fork.token('CELO'), parseUnits('1000', 18)], [fork.token('cUSD'), parseUnits('500', 18)]);
    await expectRefused(
      (body) => ({ ...body, depositData: { ...body.depositData, extra: concatHex([fakePool, gauge()]) } }),
      'farm-mismatch',
      'depositData.extra',
      deposit(),
      [fakePool],
    );
  });

  it('withdraw farm data that does not match the position (the LP farm for a gauge position)', async () => {
    // The devnet staked a gauge position for this wallet; leaving part of it through the wrong farm is refused.
    const position = await fork.balanceOf(gauge(), me());
    expect(position).toBeGreaterThan(0n);
    await expectRefused(
      (body) => ({ ...body, depositData: { addr: fork.addressBook.contracts.farms.uniswapV2, extra: extrasOf(pool('CELO/cUSD')) } }),
      'farm-mismatch',
      'depositData.extra',
      { kind: 'withdraw', tokenIn: gauge(), tokenOut: fork.token('cUSD'), amountIn: position / 100n },
    );
  });

  it('a deposit leg that ends in a token the pool does not hold (left in the farm for anyone to take)', () =>
    expectRefused(
      (body) => {
        // A valid route through a known pool, but to WETH, which the CELO/cUSD farm would not use.
        const leg = body.underlyingRoutes.find((route: { path: string[] }) => route.path.length === 2);
        leg.path = [fork.token('CELO'), fork.token('WETH')];
        leg.extras = [extrasOf(pool('CELO/WETH'))];
        return body;
      },
      'farm-mismatch',
      'underlyingRoutes[1].path[1]',
      deposit(),
    ));
});

describe('strategies decide on the reference, not on quotes', () => {
  const stopLoss = (): LimitStrategy => limitStrategy(fork, { id: 'stop', stopLoss: '0.45' });

  async function runStop(serviceUrl: string) {
    const executor = await testExecutor(fork, { serviceUrl });
    try {
      const view = { client: executor.wallet.client, prices: executor.prices, wallet: me(), now: Date.now };
      return { report: await runStrategy(stopLoss(), `slot-${++slotCounter}`, { executor, view }), history: await executor.ledger.trades.history({}) };
    } finally {
      await executor.close();
    }
  }

  it('a fake quote that would trigger a stop-loss trades nothing', async () => {
    // The service quotes CELO at a tenth of its price: a quote-driven stop-loss would sell at any price.
    proxy.setRewrite(scaleExpected(1n, 10n));
    try {
      const before = await snapshotOf();
      const { report, history } = await runStop(proxy.url);
      expect(report.trades).toEqual([]);
      expect(report.note).toBe('waiting: worth 50 cUSD');
      expect(history).toEqual([]);
      expect(await snapshotOf()).toEqual(before);
    } finally {
      proxy.setRewrite(undefined);
    }
  });

  it('the oracle falling through the stop sells, at the honest quote', async () => {
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { CELO: 0.44 });
    const celoBefore = await fork.balanceOf(fork.token('CELO'), me());
    // The pool still pays about 0.5 cUSD per CELO, which is more than the oracle says: within tolerance, it sells.
    const { report } = await runStop(fork.addressBook.routingServiceUrl as string);
    expect(report.note).toBe('stop-loss: worth 44 cUSD ≤ 45');
    expect(report.trades.map((t) => [t.status, t.reason])).toEqual([['confirmed', undefined]]);
    expect(await fork.balanceOf(fork.token('CELO'), me())).toBe(celoBefore - parseUnits('100', 18));
  });
});

describe('the honest service still trades', () => {
  it('a swap through the proxy with nothing rewritten', async () => {
    const executor = await testExecutor(fork, { serviceUrl: proxy.url });
    try {
      const usdBefore = await fork.balanceOf(fork.token('cUSD'), me());
      const report = await runTrade(executor, trade());
      expect(report.status, report.reason).toBe('confirmed');
      expect(await fork.balanceOf(fork.token('cUSD'), me())).toBe(usdBefore - parseUnits('100', 18));
      expect(report.amountOut).toBeGreaterThanOrEqual(report.minOut as bigint);
    } finally {
      await executor.close();
    }
  });
});
