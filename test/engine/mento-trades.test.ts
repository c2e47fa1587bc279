/**
 * The daemon's trades through Mento's exchanges on the devnet's real Mento: a DCA from the dollar stable into CELO,
 * a rebalance between the dollar stable and USDC (both ways), and a mixed path (Mento, then pools), each confirmed and
 * paid exactly `expectedOut`, its flows proven; and the hops the Broker would refuse or that name what the chain data
 * does not (a trading limit, a halted rate feed, a stale median, an unknown provider or exchange), refused before
 * anything is signed, the wallet unchanged.
 */
import { type Address, type Hex, concatHex, keccak256, parseUnits, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import type { RefusalReason } from '../../src/model/guard-refusal.ts';
import { readMentoExtras } from '../../src/pools/mento/kind.ts';
import type { SwapTrade } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { destroyExchange, exchangeIdOf, removeRateFeed } from '../helpers/mento-governance.ts';
import { expectThreeTradeRequests, runThroughQuoteProxy, swapTrade, warmTradeRequests } from '../helpers/engine.ts';
import { type Rewrite, useQuoteProxy } from '../helpers/quote-proxy.ts';

const fork = useDevnetFork({ routing: true, mento: true });
const proxy = useQuoteProxy(fork);
const me = () => fork.addressBook.accounts[0]?.address as Address;
const mentoAdapter = () => (fork.addressBook.contracts.adapters.mentoV2 as Address).toLowerCase();
const trade = (tokenIn: string, tokenOut: string, human: string, decimals = 18): SwapTrade =>
  swapTrade(fork, 'mento', `slot-${Math.random()}`, {
    tokenIn: fork.token(tokenIn),
    tokenOut: fork.token(tokenOut),
    amountIn: parseUnits(human, decimals),
    slippageBps: 50,
  });

/** The wallet's nonce and balances of every devnet token. */
async function wallet() {
  const symbols = ['CELO', 'cUSD', 'cEUR', 'USDC', 'WETH'];
  return [
    await fork.publicClient.getTransactionCount({ address: me() }),
    ...(await Promise.all(symbols.map((symbol) => fork.balanceOf(fork.token(symbol), me())))),
  ];
}

const run = (swap: SwapTrade, rewrite?: Rewrite) => runThroughQuoteProxy(fork, proxy, swap, rewrite);

const mentoHops = (route: { pairs: string[] } | undefined) => (route?.pairs ?? []).filter((pair) => pair.toLowerCase() === mentoAdapter()).length;

async function expectFilledThroughMento(swap: SwapTrade, hops: { mento: number; total: number }) {
  const before = await fork.balanceOf(swap.tokenOut, me());
  const { report, route } = await run(swap);
  expect(report.status, report.reason).toBe('confirmed');
  expect({ mento: mentoHops(route), total: route?.pairs.length }).toEqual(hops);
  expect(report.amountOut).toBe(report.expectedOut);
  expect((await fork.balanceOf(swap.tokenOut, me())) - before).toBe(report.amountOut);
}

async function expectRefused(swap: SwapTrade, reason: RefusalReason, rewrite?: Rewrite, says?: RegExp) {
  const before = await wallet();
  const { report } = await run(swap, rewrite);
  expect(report.status, report.reason).toBe('refused');
  expect(report.refusal, report.reason).toBe(reason);
  if (says) expect(report.reason).toMatch(says);
  expect(await wallet()).toEqual(before);
}

/** A lying service's route: one hop, through Mento's adapter with these `extras`, whatever the service found best. */
const throughMentoOnly =
  ([tokenIn, tokenOut]: [string, string], extras: Hex): Rewrite =>
  (body) => {
    body.details.pairs = [fork.addressBook.contracts.adapters.mentoV2];
    body.details.extras = [extras.toLowerCase()];
    body.details.path = [fork.token(tokenIn), fork.token(tokenOut)];
    delete body.txn;
    return body;
  };

/** A rewrite that sends the route's first Mento hop to another exchange (provider and id). */
const mentoHopTo =
  (provider: Address, exchangeId: Hex): Rewrite =>
  (body) => {
    const i = (body.details.pairs as string[]).findIndex((pair) => pair.toLowerCase() === mentoAdapter());
    if (i < 0) throw new Error('the service did not route through Mento');
    const hop = readMentoExtras(body.details.extras[i]);
    if (typeof hop === 'string') throw new Error(hop);
    body.details.extras[i] = concatHex([hop.broker, provider, exchangeId]).toLowerCase();
    return body;
  };

describe('trades through Mento', () => {
  it('DCA from the dollar stable into CELO through Mento: confirmed, paid exactly expectedOut', () =>
    expectFilledThroughMento(trade('cUSD', 'CELO', '500'), { mento: 1, total: 1 }));

  it('a rebalance between the dollar stable and USDC through Mento, both ways', async () => {
    await expectFilledThroughMento(trade('cUSD', 'USDC', '20000'), { mento: 1, total: 1 });
    await expectFilledThroughMento(trade('USDC', 'cUSD', '15000', 6), { mento: 1, total: 1 });
  });

  it('a mixed path: the euro stable to the dollar stable through Mento, then a pool to WETH', () =>
    // Then the deep cUSD/WETH pool (0.3%), which keeps one oracle observation: held to the reference.
    expectFilledThroughMento(trade('cEUR', 'WETH', '10000'), { mento: 1, total: 2 }));
});

describe('round trips to the node for a trade through Mento', () => {
  it("three requests, as for any trade: the exchanges' state read in the checks' one batch", async () => {
    proxy.setRewrite(undefined);
    const { report, requests } = await warmTradeRequests(
      fork,
      proxy.url,
      () => trade('cUSD', 'USDC', '1000'),
      () => trade('cUSD', 'USDC', '1000'),
    );
    expect(report.status, report.reason).toBe('confirmed');
    expectThreeTradeRequests(requests);
  });
});

describe('Mento hops refused before anything is signed', () => {
  it('past a trading limit (a lying service routes through Mento anyway): which limit, and the room left', async () => {
    // 120,000 CELO into the Reserve is past L0 (100,000 whole CELO per five minutes); the service routes it via pools.
    const large = parseUnits('120000', 18);
    const executor = fork.wallet(fork.addressBook.accounts[0]?.privateKey as Hex);
    await fork.confirm(await executor.writeContract({ address: fork.token('CELO'), abi: artifacts.TestToken.abi, functionName: 'mint', args: [me(), large] }));
    const swap = { ...trade('CELO', 'cUSD', '120000') };
    const exchange = fork.addressBook.mento?.exchanges.find((entry) => entry.name === 'cUSD/CELO');
    if (!exchange) throw new Error('no cUSD/CELO exchange');
    const broker = fork.addressBook.mento?.broker as Address;
    const provider = fork.addressBook.mento?.biPoolManager as Address;
    await expectRefused(
      swap,
      'trading-limit',
      throughMentoOnly(['CELO', 'cUSD'], concatHex([broker, provider, exchange.id])),
      /limit L0 .*100000 whole tokens/,
    );
  });

  it('while the breaker halts the rate feed: which feed', async () => {
    const { route } = await run(trade('cUSD', 'CELO', '500'));
    expect(mentoHops(route)).toBe(1);
    const extras = route?.extras[route.pairs.findIndex((pair) => pair.toLowerCase() === mentoAdapter())] as Hex;
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { CELO: 0.55 });
    await expectRefused(trade('cUSD', 'CELO', '500'), 'halted', throughMentoOnly(['cUSD', 'CELO'], extras), new RegExp(`rate feed ${fork.token('cUSD')}`));
  });

  it('naming an exchange provider the chain data does not name, or an exchange the provider does not list', async () => {
    const exchange = fork.addressBook.mento?.exchanges.find((entry) => entry.name === 'cUSD/USDC');
    if (!exchange) throw new Error('no cUSD/USDC exchange');
    const stranger = fork.addressBook.contracts.router;
    await expectRefused(
      trade('cUSD', 'USDC', '1000'),
      'unknown-pool',
      mentoHopTo(stranger, exchange.id),
      /exchange provider .* which the chain data does not name/,
    );
    const unknownId = keccak256(toHex('cUSDUSDCNoSuchPricing'));
    await expectRefused(
      trade('cUSD', 'USDC', '1000'),
      'unknown-pool',
      mentoHopTo(fork.addressBook.mento?.biPoolManager as Address, unknownId),
      /does not list/,
    );
    // A listed exchange of other tokens (cUSD/cEUR) for a cUSD → USDC hop.
    const other = fork.addressBook.mento?.exchanges.find((entry) => entry.name === 'cUSD/cEUR')?.id as Hex;
    await expectRefused(trade('cUSD', 'USDC', '1000'), 'unknown-pool', mentoHopTo(fork.addressBook.mento?.biPoolManager as Address, other), /not .* →/);
  });

  it('a stale median: the exchange is no price, and its quote is not offered', async () => {
    const { route } = await run(trade('cUSD', 'CELO', '500'));
    const extras = route?.extras[route.pairs.findIndex((pair) => pair.toLowerCase() === mentoAdapter())] as Hex;
    // Six minutes with no report on any feed: older than the exchanges' five-minute reset frequency.
    await fork.testClient.increaseTime({ seconds: 360 });
    await fork.testClient.mine({ blocks: 1 });
    const fresh = await run(trade('cUSD', 'CELO', '500'));
    expect(mentoHops(fresh.route)).toBe(0);
    await expectRefused(trade('cUSD', 'CELO', '500'), 'no-price', throughMentoOnly(['cUSD', 'CELO'], extras), /no valid median/);
  });
  it('an exchange governance destroyed after the daemon first traded through it: refused by name, whichever list the daemon holds', async () => {
    const { route } = await run(trade('cUSD', 'CELO', '500'));
    const extras = route?.extras[route.pairs.findIndex((pair) => pair.toLowerCase() === mentoAdapter())] as Hex;
    await destroyExchange(fork, exchangeIdOf(fork, 'cUSD/CELO'));
    // The service no longer offers it; a lying one still routes through it.
    expect(mentoHops((await run(trade('cUSD', 'CELO', '500'))).route)).toBe(0);
    await expectRefused(trade('cUSD', 'CELO', '500'), 'unknown-pool', throughMentoOnly(['cUSD', 'CELO'], extras), /does not list|cannot be read/);
  });

  it('an exchange whose rate feed was taken off the BreakerBox: its views revert, and a route through it is refused naming it', async () => {
    const { route } = await run(trade('cUSD', 'CELO', '500'));
    const extras = route?.extras[route.pairs.findIndex((pair) => pair.toLowerCase() === mentoAdapter())] as Hex;
    await removeRateFeed(fork, fork.token('cUSD'));
    expect(mentoHops((await run(trade('cUSD', 'CELO', '500'))).route)).toBe(0);
    await expectRefused(
      trade('cUSD', 'CELO', '500'),
      'unknown-pool',
      throughMentoOnly(['cUSD', 'CELO'], extras),
      new RegExp(`Mento exchange ${exchangeIdOf(fork, 'cUSD/CELO')} cannot be read .*getRateFeedTradingMode`),
    );
  });
});
