/**
 * The daemon's trades through Mento v3's fixed-price pool on the devnet (our pool with its interface, our adapter): a
 * rebalance past v2's trading limit goes through the pool, confirmed, paid exactly `expectedOut`, its flows proven
 * (the protocol fee recipient took exactly its fee); and the hops the pool would refuse or that name what the chain data
 * does not (an FX pool while the FX market is closed, past the pool's trading limit, a pool no factory of the chain data
 * lists), refused before anything is signed, the wallet unchanged. A collateral pool trades at weekends, as Celo's USD
 * pools do; one its owner moves to the FX adapter is checked at its settings as they are now. The chain's clock is set
 * to the day each case needs.
 */
import { type Address, type Hex, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import type { RefusalReason } from '../../src/model/guard-refusal.ts';
import type { SwapTrade } from '../../src/model/trade.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { expectThreeTradeRequests, runThroughQuoteProxy, swapTrade, warmTradeRequests } from '../helpers/engine.ts';
import { onAWeekday, onAWeekend } from '../helpers/fx-clock.ts';
import { setOracleAdapter } from '../helpers/mento-governance.ts';
import { type Rewrite, useQuoteProxy } from '../helpers/quote-proxy.ts';

const fork = useDevnetFork({ routing: true, mento: true });
const proxy = useQuoteProxy(fork);
const me = () => fork.addressBook.accounts[0]?.address as Address;
const fpmmAdapter = () => fork.addressBook.contracts.adapters.mentoFpmm as Address;
const pool = () => fork.addressBook.mento?.fixedPricePools.find((entry) => entry.name === 'cUSD/USDC')?.address as Address;
const fxPool = () => fork.addressBook.mento?.fixedPricePools.find((entry) => entry.name === 'cUSD/cEUR')?.address as Address;
const trade = (tokenIn: string, tokenOut: string, human: string, decimals = 18): SwapTrade =>
  swapTrade(fork, 'mento-v3', `slot-${Math.random()}`, {
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

async function mint(symbol: string, amount: bigint) {
  const funder = fork.wallet(fork.addressBook.accounts[0]?.privateKey as Hex);
  await fork.confirm(await funder.writeContract({ address: fork.token(symbol), abi: artifacts.TestToken.abi, functionName: 'mint', args: [me(), amount] }));
}

const run = (swap: SwapTrade, rewrite?: Rewrite) => runThroughQuoteProxy(fork, proxy, swap, rewrite);

async function expectRefused(swap: SwapTrade, reason: RefusalReason, rewrite: Rewrite, says: RegExp) {
  const before = await wallet();
  const { report } = await run(swap, rewrite);
  expect(report.status, report.reason).toBe('refused');
  expect(report.refusal, report.reason).toBe(reason);
  expect(report.reason).toMatch(says);
  expect(await wallet()).toEqual(before);
}

/** A lying service's route: one hop through the Mento v3 adapter to `target`, whatever the service found best. */
const throughPool =
  ([tokenIn, tokenOut]: [string, string], target: Address = pool()): Rewrite =>
  (body) => {
    body.details.pairs = [fpmmAdapter()];
    body.details.extras = [target.toLowerCase()];
    body.details.path = [fork.token(tokenIn), fork.token(tokenOut)];
    delete body.txn;
    return body;
  };

describe("trades through Mento v3's fixed-price pool", () => {
  it("a rebalance past v2's trading limit: through the pool, confirmed, paid exactly expectedOut, the protocol fee exactly 3 bps", async () => {
    await onAWeekday(fork);
    const amountIn = parseUnits('260000', 6);
    await mint('USDC', amountIn);
    const recipient = await fork.publicClient.readContract({ address: pool(), abi: artifacts.DevnetFPMM.abi, functionName: 'protocolFeeRecipient' });
    const [cusdBefore, feeBefore] = await Promise.all([fork.balanceOf(fork.token('cUSD'), me()), fork.balanceOf(fork.token('USDC'), recipient)]);
    const { report, route } = await run(trade('USDC', 'cUSD', '260000', 6));
    expect(report.status, report.reason).toBe('confirmed');
    expect(route?.pairs.map((pair) => pair.toLowerCase())).toEqual([fpmmAdapter().toLowerCase()]);
    expect(report.amountOut).toBe(report.expectedOut);
    // 1 USDC = 1 cUSD on the devnet, less the pool's 8 bps.
    expect(report.amountOut).toBe((parseUnits('260000', 18) * 9_992n) / 10_000n);
    expect((await fork.balanceOf(fork.token('cUSD'), me())) - cusdBefore).toBe(report.amountOut);
    expect((await fork.balanceOf(fork.token('USDC'), recipient)) - feeBefore).toBe((amountIn * 3n) / 10_000n);
  });
});

describe('round trips to the node for a trade through Mento v3', () => {
  it("three requests, as for any trade: the pool's state read in the checks' one batch", async () => {
    await onAWeekday(fork);
    await mint('USDC', parseUnits('261000', 6));
    // The approval and the pool's factory list (read once per process), on a trade of 1,000 USDC through the pool.
    proxy.setRewrite(throughPool(['USDC', 'cUSD']));
    const { report, requests } = await warmTradeRequests(
      fork,
      proxy.url,
      () => trade('USDC', 'cUSD', '1000', 6),
      () => {
        proxy.setRewrite(undefined);
        return trade('USDC', 'cUSD', '260000', 6);
      },
    );
    expect(report.status, report.reason).toBe('confirmed');
    expect(report.amountOut).toBe((parseUnits('260000', 18) * 9_992n) / 10_000n);
    expectThreeTradeRequests(requests);
  });
});

describe('Mento v3 hops refused before anything is signed', () => {
  it('through an FX pool while the FX market is closed (a lying service routes through it on a Saturday)', async () => {
    await onAWeekend(fork);
    await expectRefused(trade('cUSD', 'cEUR', '1000'), 'halted', throughPool(['cUSD', 'cEUR'], fxPool()), /FX market is closed/);
  });

  it('a collateral pool on a Saturday (its breaker has its checks off, as on Celo): confirmed, paid exactly', async () => {
    await onAWeekend(fork);
    await mint('USDC', parseUnits('260000', 6));
    const { report, route } = await run(trade('USDC', 'cUSD', '260000', 6));
    expect(report.status, report.reason).toBe('confirmed');
    expect(route?.extras).toEqual([pool().toLowerCase()]);
    expect(report.amountOut).toBe((parseUnits('260000', 18) * 9_992n) / 10_000n);
  });

  it('a pool whose owner moved it to the FX adapter after the daemon read it: checked at its settings now, refused on a Saturday', async () => {
    await onAWeekend(fork);
    await mint('USDC', parseUnits('1000', 6));
    // The daemon reads the pool's settings (the collateral adapter) in a first trade.
    expect((await run(trade('USDC', 'cUSD', '1000', 6), throughPool(['USDC', 'cUSD']))).report.status).toBe('confirmed');
    await setOracleAdapter(fork, pool(), fork.addressBook.mento?.oracleAdapter as Address);
    await expectRefused(trade('USDC', 'cUSD', '1000', 6), 'halted', throughPool(['USDC', 'cUSD']), /FX market is closed/);
  });

  it("past the pool's trading limit: which limit, and the room left", async () => {
    await onAWeekday(fork);
    // 310,000 USDC into the pool within five minutes is past its L0 (300,000 whole USDC).
    await mint('USDC', parseUnits('310000', 6));
    await expectRefused(trade('USDC', 'cUSD', '310000', 6), 'trading-limit', throughPool(['USDC', 'cUSD']), /limit L0: 300000 whole tokens of room left/);
  });

  it('naming a pool no factory of the chain data lists, or one of other tokens', async () => {
    await onAWeekday(fork);
    // A pool with the same code and tokens, made by another factory: the chain data's does not list it.
    const deployer = fork.wallet(fork.addressBook.accounts[0]?.privateKey as Hex);
    const hash = await deployer.deployContract({
      abi: artifacts.DevnetFPMMFactory.abi,
      bytecode: artifacts.DevnetFPMMFactory.bytecode,
      args: [fork.addressBook.mento?.oracleAdapter as Address],
    });
    const factory = (await fork.confirm(hash)).contractAddress as Address;
    const [token0, token1] = await Promise.all(
      ['token0', 'token1'].map((name) => fork.publicClient.readContract({ address: pool(), abi: artifacts.DevnetFPMM.abi, functionName: name as 'token0' })),
    );
    const feed = await fork.publicClient.readContract({ address: pool(), abi: artifacts.DevnetFPMM.abi, functionName: 'referenceRateFeedID' });
    const invert = await fork.publicClient.readContract({ address: pool(), abi: artifacts.DevnetFPMM.abi, functionName: 'invertRateFeed' });
    await fork.confirm(
      await deployer.writeContract({
        address: factory,
        abi: artifacts.DevnetFPMMFactory.abi,
        functionName: 'deployFPMM',
        args: [token0 as Address, token1 as Address, feed, invert, 5n, 3n, me()],
      }),
    );
    const [stranger] = await fork.publicClient.readContract({ address: factory, abi: artifacts.DevnetFPMMFactory.abi, functionName: 'deployedFPMMAddresses' });
    await expectRefused(
      trade('cUSD', 'USDC', '1000'),
      'unknown-pool',
      throughPool(['cUSD', 'USDC'], stranger as Address),
      /which no Mento v3 pool factory of the chain data .* lists/,
    );
    // The listed pool for a hop of other tokens.
    await expectRefused(trade('cUSD', 'CELO', '1000'), 'unknown-pool', throughPool(['cUSD', 'CELO']), /not .* →/);
  });
});
