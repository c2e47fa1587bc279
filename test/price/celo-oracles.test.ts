/**
 * Prices as Celo's real oracles give them, on the devnet's stand-ins of the real contracts:
 * - SortedOracles' CELO rate feed (id: the dollar stable's address) is USD per CELO: a dollar stable off its peg
 *   leaves CELO's reference where the relayed rate puts it, and a DCA into CELO trades at it (`routekeeper once`);
 * - one source stale beside a fresh one is no price, the stale one named; a feed older than the allowance its
 *   measured heartbeat gives is not used;
 * - a rate feed mapped to another by governance (`setEquivalentToken`) is never answered with the other's rate;
 * - a Mento stable priced by its peg's exchange rate is checked against its market: depegged, it has no price,
 *   both numbers named, and a limit order on it waits (`routekeeper once`);
 * - a sequencer uptime round that started at 0 is no answer.
 */
import { type Address, createWalletClient, http, pad, parseUnits, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { knownContractsFor, priceSourcesFor, type PriceSource } from '../../src/config/chain-data.ts';
import type { AddressBook } from '../../src/config/address-book.ts';
import { sortedOraclesAbi } from '../../src/contracts/abi.ts';
import { devnetAccount } from '../../src/devnet/accounts.ts';
import * as artifacts from '../../src/devnet/artifacts/contracts.ts';
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import { roles } from '../../src/devnet/world-spec.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { defaultPoolAverageOptions } from '../../src/price/pool-average.ts';
import { NoPriceError, PriceReference, SequencerDownError } from '../../src/price/reference.ts';
import { runCli } from '../helpers/cli.ts';
import { daemonHome, dcaYaml } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { constantProductOut, readPool, reservesFrom } from '../helpers/uniswap.ts';

const fork = useDevnetFork({ routing: true });
const me = () => fork.addressBook.accounts[0]?.address as Address;
type BookSources = NonNullable<AddressBook['priceSources']>;
type BookSource = BookSources[string][number];

const reference = (book: AddressBook = fork.addressBook) => new PriceReference(fork.publicClient, priceSourcesFor(book.chainId, book));
/** The address book with `symbol` priced by `sources` alone. */
const pricedBy = (symbol: string, sources: BookSource[]): AddressBook => ({
  ...fork.addressBook,
  priceSources: { ...fork.addressBook.priceSources, [symbol]: sources },
});
const celoSources = () => fork.addressBook.priceSources?.CELO ?? [];
const celoFeed = () => celoSources().find((source) => source.kind === 'feed') as Extract<BookSource, { kind: 'feed' }>;
const celoOracles = () => celoSources().find((source) => source.kind === 'sorted-oracles') as Extract<BookSource, { kind: 'sorted-oracles' }>;

async function letTimePass(seconds: number) {
  await fork.testClient.increaseTime({ seconds });
  await fork.testClient.mine({ blocks: 1 });
}

const cliEnv = (home: ReturnType<typeof daemonHome>) => ({
  RPC_URL: '',
  ROUTING_SERVICE_URL: '',
  ROUTEKEEPER_CONFIG: '',
  ROUTEKEEPER_DATA_DIR: home.dataDir,
  ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
});

describe("CELO's SortedOracles rate, with the dollar stable off its peg", () => {
  it('is the relayed USD rate, not the stable rate: with cUSD at $0.95, CELO is still $0.50 and a DCA into CELO trades at it', async () => {
    await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook, { cUSD: 0.95 });
    const celo = await reference().usdPrice(fork.token('CELO'));
    // Both sources agree on $0.50: the rate is not multiplied by the stable's $0.95 (which would be $0.475, 5% off).
    expect(celo.usdE18).toBe(parseUnits('0.5', 18));
    // 10 cUSD at $0.95 is worth exactly 19 CELO at $0.50: the reference the trade is held to.
    const worth = (await reference().convert(fork.token('cUSD'), fork.token('CELO'), parseUnits('10', 18))).amountOut;
    expect(worth).toBe(parseUnits('19', 18));
    expect(await reference(pricedBy('CELO', [celoOracles()])).usdPrice(fork.token('CELO'))).toMatchObject({
      usdE18: parseUnits('0.5', 18),
      source: expect.stringMatching(/ in USD$/),
    });

    const home = daemonHome(fork, 'depeg-dca');
    const [usdBefore, celoBefore] = await Promise.all([fork.balanceOf(fork.token('cUSD'), me()), fork.balanceOf(fork.token('CELO'), me())]);
    const once = await runCli(
      ['once', 'dca', '--config', home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '10', every: '1h' }])), '--address-book', home.book],
      cliEnv(home),
    );
    expect(once.code, once.stdout + once.stderr).toBe(0);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    try {
      const [trade] = await ledger.trades.history({ strategyId: 'dca' });
      expect(trade?.status).toBe('confirmed');
      // The route (the CELO/cUSD pool, seeded at $0.50 and $1) pays more than the reference; the minimum signed is
      // never below the reference less the pool's 0.3% fee and the 1% tolerance.
      expect(trade?.call?.minOut).toBeGreaterThanOrEqual((worth * 997n * 99n) / (1000n * 100n));
      const [usdAfter, celoAfter] = await Promise.all([fork.balanceOf(fork.token('cUSD'), me()), fork.balanceOf(fork.token('CELO'), me())]);
      expect(usdAfter).toBe(usdBefore - parseUnits('10', 18));
      expect(celoAfter - celoBefore).toBe(trade?.settlement?.amountOut);
      expect(celoAfter - celoBefore).toBeGreaterThanOrEqual(trade?.call?.minOut as bigint);
    } finally {
      await ledger.close();
    }
  });
});

describe('freshness', () => {
  it('a fresh feed beside a stale SortedOracles copy of the same price: no price, the stale source named', async () => {
    const book = pricedBy('CELO', [celoFeed(), { ...celoOracles(), maxAgeSeconds: 300 }]);
    await letTimePass(600);
    // The feed is reported again (fresh); the SortedOracles copy is not (last reported when the world was made).
    await reportWorldPrices(fork.addressBook.rpcUrl, pricedBy('CELO', [celoFeed()]), { CELO: 0.5 });
    const failure = await reference(book)
      .usdPrice(fork.token('CELO'))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoPriceError);
    expect((failure as NoPriceError).shortMessage).toMatch(
      new RegExp(
        `^the price sources of 0x\\w+ disagree on freshness: SortedOracles ${celoOracles().address} rate feed 0x\\w+ is stale: its median was reported \\d+ s before the chain's time, more than 300 s; while feed ${celoFeed().address} answered fresh$`,
      ),
    );
    // Each alone: the feed prices, the stale copy does not (what the old rule did: drop the stale one quietly).
    expect((await reference(pricedBy('CELO', [celoFeed()])).usdPrice(fork.token('CELO'))).usdE18).toBe(parseUnits('0.5', 18));
  });

  it('a feed older than the allowance of its heartbeat (twice the longest gap between its last rounds) is not used', async () => {
    // The feed posts every 60 s for a while: its heartbeat allowance is 120 s, and the source is held to it.
    const feedOnly = pricedBy('CELO', [celoFeed()]);
    for (let round = 0; round < 5; round++) {
      await letTimePass(60);
      await reportWorldPrices(fork.addressBook.rpcUrl, feedOnly, { CELO: 0.5 });
    }
    const held = pricedBy('CELO', [{ ...celoFeed(), maxAgeSeconds: 120 }, celoOracles()]);
    await reportWorldPrices(fork.addressBook.rpcUrl, pricedBy('CELO', [celoOracles()]), { CELO: 0.5 });
    expect((await reference(held).usdPrice(fork.token('CELO'))).usdE18).toBe(parseUnits('0.5', 18));
    // It misses two beats while SortedOracles goes on: the feed is not used, and the fresh copy alone does not price.
    await letTimePass(150);
    await reportWorldPrices(fork.addressBook.rpcUrl, pricedBy('CELO', [celoOracles()]), { CELO: 0.5 });
    await expect(reference(held).usdPrice(fork.token('CELO'))).rejects.toThrow(
      new RegExp(`disagree on freshness: feed ${celoFeed().address} is stale: updated 15\\d s before the chain's time, more than 120 s; while SortedOracles`),
    );
  });
});

describe('a rate feed mapped to another (setEquivalentToken)', () => {
  it("is read as its own rate with its own time: never the other feed's rate passed off as fresh", async () => {
    const oracles = celoOracles();
    const other = fork.token('USDC'); // any other rate feed id
    const reporter = createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: devnetAccount(roles.oracleReporter).account });
    const owner = createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: devnetAccount(roles.deployer).account });
    const abi = artifacts.DevnetSortedOracles.abi;
    // The other feed reported $0.30 two hours ago; CELO's own feed reports $0.50 now; governance maps CELO's to the other.
    await fork.confirm(await reporter.writeContract({ address: oracles.address, abi, functionName: 'report', args: [other, parseUnits('0.3', 24)] }));
    await letTimePass(7200);
    await reportWorldPrices(fork.addressBook.rpcUrl, pricedBy('CELO', [oracles]), { CELO: 0.5 });
    await fork.confirm(await owner.writeContract({ address: oracles.address, abi, functionName: 'setEquivalentToken', args: [oracles.rateFeedId, other] }));
    // What the mapping does on chain: medianRate answers the other feed's two-hour-old rate, medianTimestamp CELO's own time.
    const [mappedRate] = await fork.publicClient.readContract({
      address: oracles.address,
      abi: sortedOraclesAbi,
      functionName: 'medianRate',
      args: [oracles.rateFeedId],
    });
    expect(mappedRate).toBe(parseUnits('0.3', 24));

    const strict = pricedBy('CELO', [{ ...oracles, maxAgeSeconds: 3600 }]);
    expect(await reference(strict).usdPrice(fork.token('CELO'))).toMatchObject({ usdE18: parseUnits('0.5', 18) });

    // Later CELO's own reports stop while the other feed reports $0.70 fresh: no price (its own is stale), never $0.70.
    await letTimePass(7200);
    await fork.confirm(await reporter.writeContract({ address: oracles.address, abi, functionName: 'report', args: [other, parseUnits('0.7', 24)] }));
    await expect(reference(strict).usdPrice(fork.token('CELO'))).rejects.toThrow(
      /rate feed 0x\w+ is stale: its median was reported 720\d s before the chain's time, more than 3600 s/,
    );
  });

  it('a report time of 0 is no report, whatever the rate says', async () => {
    // A rate feed nobody reports, mapped to one somebody does: its own median is empty and its time 0.
    const oracles = celoOracles();
    const unreported = fork.token('WETH');
    const owner = createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: devnetAccount(roles.deployer).account });
    await fork.confirm(
      await owner.writeContract({
        address: oracles.address,
        abi: artifacts.DevnetSortedOracles.abi,
        functionName: 'setEquivalentToken',
        args: [unreported, oracles.rateFeedId],
      }),
    );
    const book = pricedBy('CELO', [{ ...oracles, rateFeedId: unreported }]);
    await expect(reference(book).usdPrice(fork.token('CELO'))).rejects.toThrow(
      new RegExp(`SortedOracles ${oracles.address} rate feed ${unreported} has no report`),
    );
  });
});

/** Sell 100 cEUR for cUSD once it fetches 1 cUSD each: at its peg ($1.08, cUSD at $1) it fills at once. */
const takeProfitYaml = `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: tp, kind: limit, wallet: main, every: 1h, sell: { token: cEUR, amount: "100" }, buy: cUSD, takeProfit: "1.0" }
`;

describe('a Mento stable priced by its peg', () => {
  /** Someone sells cEUR into the cUSD/cEUR pool until it trades 5% under its peg, and it stays there past the window. */
  async function depegCeur(): Promise<void> {
    const pool = await readPool(fork, 'cUSD/cEUR');
    const [reserveEur, reserveUsd] = reservesFrom(pool, fork.token('cEUR'));
    const sold = parseUnits('13100', 18);
    const out = constantProductOut(sold, reserveEur, reserveUsd);
    const seller = devnetAccount(9);
    const wallet = createWalletClient({ chain: fork.chain, transport: http(fork.addressBook.rpcUrl), account: seller.account });
    await fork.confirm(
      await wallet.writeContract({
        address: fork.token('cEUR'),
        abi: artifacts.TestToken.abi,
        functionName: 'mint',
        args: [pool.address, sold],
        gas: 200_000n,
      }),
    );
    const eurIs0 = pool.token0.toLowerCase() === fork.token('cEUR').toLowerCase();
    await fork.confirm(
      await wallet.writeContract({
        address: pool.address,
        abi: artifacts.UniswapV2Pair.abi,
        functionName: 'swap',
        args: eurIs0 ? [0n, out, seller.address, '0x'] : [out, 0n, seller.address, '0x'],
        gas: 300_000n,
      }),
    );
    await letTimePass(defaultPoolAverageOptions.windowSeconds + 60);
  }

  it('is checked against its market: at its peg it has the feed price; its pool 5% under, no price with both numbers', async () => {
    const sources = fork.addressBook.priceSources?.cEUR ?? [];
    expect(sources.map((source) => source.kind)).toEqual(['feed', 'pool']);
    expect(sources[0]).toMatchObject({ kind: 'feed', peg: true });
    expect(await reference().usdPrice(fork.token('cEUR'))).toMatchObject({ usdE18: parseUnits('1.08', 18), source: expect.stringMatching(/ \(its peg\)$/) });

    await depegCeur();
    const failure = await reference()
      .usdPrice(fork.token('cEUR'))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoPriceError);
    expect((failure as NoPriceError).shortMessage).toMatch(
      /disagree by more than 300 bps: feed 0x\w+ \(its peg\) says \$1\.08, pool 0x\w+ \(1\d\.\d-minute average\) × feed 0x\w+ says \$1\.02\d+ \(5\.0\d% apart\)$/,
    );
  });

  it('alone, a feed of its peg is no price: a market source must answer beside it', async () => {
    const [pegFeed, pool] = (fork.addressBook.priceSources?.cEUR ?? []) as [BookSource, BookSource];
    await expect(reference(pricedBy('cEUR', [pegFeed])).usdPrice(fork.token('cEUR'))).rejects.toThrow(
      /prices the peg of 0x\w+, not the token, and no market source of it answered \(none is configured\)$/,
    );
    // The market source does not answer (no pool at its address): no price either, with its reason.
    const nowhere = '0x000000000000000000000000000000000000dEaD';
    const unanswered = pricedBy('cEUR', [pegFeed, { ...(pool as Extract<BookSource, { kind: 'pool' }>), pool: nowhere }]);
    await expect(reference(unanswered).usdPrice(fork.token('cEUR'))).rejects.toThrow(
      new RegExp(`prices the peg of 0x\\w+, not the token, and no market source of it answered: pool ${nowhere}`),
    );
  });

  it('depegged, a take-profit order on it waits and says why (`routekeeper once`): nothing signed', async () => {
    const eurBefore = await fork.balanceOf(fork.token('cEUR'), me());
    const nonceBefore = await fork.publicClient.getTransactionCount({ address: me() });
    await depegCeur();
    const home = daemonHome(fork, 'depeg-limit');
    const waited = await runCli(['once', 'tp', '--config', home.config(takeProfitYaml), '--address-book', home.book], cliEnv(home));
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(
      /^tp: no reference price: the price sources of 0x\w+ disagree by more than 300 bps: feed 0x\w+ \(its peg\) says \$1\.08, pool 0x\w+ .* says \$1\.02\d+ \(5\.0\d% apart\)$/m,
    );
    expect(await fork.balanceOf(fork.token('cEUR'), me())).toBe(eurBefore);
    expect(await fork.publicClient.getTransactionCount({ address: me() })).toBe(nonceBefore);
  });

  it('at its peg, the same take-profit order fills (the control)', async () => {
    const eurBefore = await fork.balanceOf(fork.token('cEUR'), me());
    const home = daemonHome(fork, 'peg-limit');
    const filled = await runCli(['once', 'tp', '--config', home.config(takeProfitYaml), '--address-book', home.book], cliEnv(home));
    expect(filled.code, filled.stdout + filled.stderr).toBe(0);
    expect(filled.stdout).toMatch(/^tp: take-profit: worth 108 cUSD ≥ 100$/m);
    expect(await fork.balanceOf(fork.token('cEUR'), me())).toBe(eurBefore - parseUnits('100', 18));
  });
});

describe('the sequencer uptime feed', () => {
  it('a round that started at 0 is no answer: no price, named', async () => {
    const feed = fork.addressBook.sequencerUptimeFeed?.address as Address;
    const prices = new PriceReference(fork.publicClient, priceSourcesFor(fork.addressBook.chainId, fork.addressBook), {
      sequencer: fork.addressBook.sequencerUptimeFeed,
    });
    expect((await prices.usdPrice(fork.token('CELO'))).usdE18).toBe(parseUnits('0.5', 18));
    // startedAt is the feed's third storage slot (after latestRound and status).
    await fork.testClient.setStorageAt({ address: feed, index: pad(toHex(2), { size: 32 }), value: pad('0x0', { size: 32 }) });
    const [, status, startedAt] = await fork.publicClient.readContract({
      address: feed,
      abi: artifacts.DevnetSequencerUptimeFeed.abi,
      functionName: 'latestRoundData',
    });
    expect([status, startedAt]).toEqual([0n, 0n]);
    const failure = await prices.usdPrice(fork.token('CELO')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SequencerDownError);
    expect((failure as SequencerDownError).shortMessage).toBe(
      `the sequencer uptime feed ${feed} answers a round that started at 0, which is no answer (an invalid round)`,
    );
  });
});

describe("Celo's built-in chain data", () => {
  it('reads the CELO rate feed in USD, holds the Mento stables to a market source, and names the published facts', () => {
    const sources = priceSourcesFor(42220);
    const of = (address: string) => sources.get(address.toLowerCase()) as readonly PriceSource[];
    // CELO (0x471E…): Chainlink CELO / USD and SortedOracles' CELO/USD rate feed (id: USDm's address), in USD.
    expect(of('0x471EcE3750Da237f93B8E339c536989b8978a438')).toContainEqual(
      expect.objectContaining({ kind: 'sorted-oracles', rateFeedId: '0x765DE816845861e75A25fCA122bb6898B8B1282a', quote: 'USD', maxAgeSeconds: 360 }),
    );
    // EURm and BRLm: their peg's exchange rate, and the average of their Ubeswap pair against USDm.
    for (const stable of ['0xD8763CBa276a3738E6DE85b4b3bF5FDed6D6cA73', '0xe8537a3d056DA446677B9E9d6c5dB704EaAb4787']) {
      expect(of(stable).map((source) => [source.kind, source.kind === 'feed' ? source.peg : source.kind === 'pool' ? source.quote : undefined])).toEqual([
        ['feed', true],
        ['pool', '0x765DE816845861e75A25fCA122bb6898B8B1282a'],
      ]);
    }
    // The Ubeswap V2 cUSD/BRLm pair, as the factory and its init code hash give it.
    expect(of('0xe8537a3d056DA446677B9E9d6c5dB704EaAb4787')[1]).toMatchObject({ pool: '0x67449E82A0D354d34e6B7487A968EB3E15Cd47b9' });
    // USDC / USD answers with 8 decimals (Chainlink's own feed data).
    expect(of('0xcebA9300f2b948710d2653dD7B07f33A8B32118C')[0]).toMatchObject({ kind: 'feed', decimals: 8, maxAgeSeconds: 720 });
    // SushiSwap's pair init code hash, as Sushi publishes it for Celo.
    expect(knownContractsFor(42220).factories.find((factory) => factory.address === '0xc35DADB65012eC5796536bD9864eD8773aBc74C4')?.initCodeHash).toBe(
      '0xe18a34eb0e04b04f7a0ac29a6e80748dca96319b42c54d679cb821dca90c6303',
    );
  });
});
