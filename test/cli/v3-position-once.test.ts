/**
 * `routekeeper once` on a strategy file that keeps a Uniswap V3 position: the position's fees, earned from swap
 * volume on the devnet's real position manager, are compounded in one run (collect, ratio swap, add), each step a
 * trade of the ledger, and `status --json` shows what was collected and added back. Killed with an add or a
 * re-range's one move signed, the next start sends it and goes on (the new NFT kept). A file's exit at its time empties the position into the one token it names, in one transaction. A file naming a position that is not the wallet's, burning
 * re-ranged NFTs without naming their pool, or exiting at a price of a token the pool lacks, is refused with one
 * line and exit 2, before anything is traded.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, type Hex, isAddressEqual, parseTransaction, toFunctionSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { runCli, spawnCli } from '../helpers/cli.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';
import { waitFor } from '../helpers/wait.ts';
import { adoptWallet, daemonHome } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { openPosition, positionManagerOf, tradeVolume, cusdCeloPool, readPosition } from '../../support/positions.ts';

const fork = useDevnetFork({ uniswapV3: true, routing: true });
const e18 = 10n ** 18n;
const increaseLiquiditySelector = toFunctionSelector('increaseLiquidity((uint256,uint256,uint256,uint256,uint256,uint256))');
const safeTransferSelector = toFunctionSelector('safeTransferFrom(address,address,uint256,bytes)');

const positionYaml = (positionId: bigint | undefined, more = '') => `
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: lp, kind: uniswap-v3-position, wallet: main, every: 1h, ${positionId === undefined ? '' : `position: ${positionId}, `}valueToken: cUSD, compound: { minFeesToGas: 3 }${more} }
`;

/** The ledger holds one compound, its three trades confirmed: the collect of `owed`, a swap, and an add of `added` liquidity. */
async function expectOneCompound(ledgerFile: string, owed: { amount0: bigint; amount1: bigint }, added: bigint): Promise<void> {
  const ledger = await Ledger.openReadOnly(ledgerFile);
  try {
    const trades = (await ledger.trades.history({})).toReversed();
    expect(trades.map((trade) => [trade.kind, trade.status])).toEqual([
      ['collect', 'confirmed'],
      ['swap', 'confirmed'],
      ['add-liquidity', 'confirmed'],
    ]);
    expect(trades[0]?.settlement?.position).toEqual({ amount0: owed.amount0, amount1: owed.amount1 });
    expect(trades[2]?.settlement?.position?.liquidity).toBe(added);
  } finally {
    await ledger.close();
  }
}

describe('once, on a V3 position', () => {
  const env = (home: ReturnType<typeof daemonHome>) => ({
    RPC_URL: '',
    ROUTING_SERVICE_URL: '',
    ROUTEKEEPER_CONFIG: '',
    ROUTEKEEPER_DATA_DIR: home.dataDir,
    ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
  });
  const pool = () => cusdCeloPool(fork);
  const read = (tokenId: bigint) => readPosition(fork, tokenId);

  /**
   * Runs `once` on a node that takes every transaction but the position manager's call with `selector`, which it
   * holds without an answer, and kills the process (SIGKILL) there: the call is signed and recorded, never mined.
   */
  async function killedWithSendHeld(home: ReturnType<typeof daemonHome>, config: string, selector: Hex): Promise<void> {
    const manager = positionManagerOf(fork).address;
    const node = await startRpcProxy(fork.addressBook.rpcUrl);
    let held = false;
    node.faults.intercept = (call) => {
      if (call.method !== 'eth_sendRawTransaction' && call.method !== 'eth_sendRawTransactionSync') return undefined;
      const tx = parseTransaction((call.params as Hex[])[0] as Hex);
      if (!tx.to || !isAddressEqual(tx.to, manager) || !tx.data?.startsWith(selector)) return undefined;
      held = true;
      return new Promise<never>(() => {});
    };
    const book = join(home.dir, 'holding-book.json');
    writeFileSync(book, JSON.stringify({ ...JSON.parse(readFileSync(home.book, 'utf8')), rpcUrl: node.url }));
    try {
      const child = spawnCli(['once', 'lp', '--config', config, '--address-book', book], env(home));
      const exited = new Promise((resolve) => child.on('close', resolve));
      await waitFor(() => held, 'the held call sent', 60_000);
      child.kill('SIGKILL');
      await exited;
    } finally {
      await node.close();
    }
  }

  it('compounds the fees of the wallet’s position, three trades recorded, and status shows them', async () => {
    const home = daemonHome(fork, 'v3-once');
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 20_000n * e18, amount1: 20_000n * e18 });
    await adoptWallet(fork, home.ledgerFile, env(home).ROUTEKEEPER_PRIVATE_KEY as Hex);
    await tradeVolume(fork, pool(), { account: 1, size: 5_000n * e18, rounds: 5 });
    const { uncollected: owed, liquidity } = await read(opened.tokenId);

    const once = await runCli(['once', 'lp', '--config', home.config(positionYaml(opened.tokenId)), '--address-book', home.book], env(home));
    expect(once.code, once.stderr).toBe(0);
    const grown = (await read(opened.tokenId)).liquidity;
    expect(grown).toBeGreaterThan(liquidity);

    await expectOneCompound(home.ledgerFile, owed, grown - liquidity);
    const status = await runCli(['status', '--json', '--ledger', home.ledgerFile], env(home));
    expect(status.code, status.stderr).toBe(0);
    const lp = (JSON.parse(status.stdout) as { strategies: { id: string; position?: Record<string, unknown> }[] }).strategies.find((s) => s.id === 'lp');
    expect(lp?.position).toMatchObject({ positionId: opened.tokenId.toString(), compounds: 1, collected: { token0: { raw: owed.amount0.toString() } } });
  });

  it('killed (SIGKILL) with its add signed and not yet mined: the next start sends that add and completes, collecting nothing twice', async () => {
    const home = daemonHome(fork, 'v3-once-killed');
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 20_000n * e18, amount1: 20_000n * e18 });
    await adoptWallet(fork, home.ledgerFile, env(home).ROUTEKEEPER_PRIVATE_KEY as Hex);
    await tradeVolume(fork, pool(), { account: 1, size: 5_000n * e18, rounds: 5 });
    const { uncollected: owed, liquidity } = await read(opened.tokenId);
    const config = home.config(positionYaml(opened.tokenId));
    await killedWithSendHeld(home, config, increaseLiquiditySelector);
    expect((await read(opened.tokenId)).liquidity).toBe(liquidity);
    // The next start, on the node itself: the add's signed bytes are sent, the position grows once.
    const again = await runCli(['once', 'lp', '--config', config, '--address-book', home.book], env(home));
    expect(again.code, again.stderr).toBe(0);
    const grown = (await read(opened.tokenId)).liquidity;
    await expectOneCompound(home.ledgerFile, owed, grown - liquidity);
  });

  it('killed (SIGKILL) in a re-range with its one move signed: the next start sends it, once, and the strategy keeps the new NFT', async () => {
    const home = daemonHome(fork, 'v3-once-move-killed');
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 600, offsetTicks: 2_400, amount0: 10_000n * e18, amount1: 10_000n * e18 });
    await adoptWallet(fork, home.ledgerFile, env(home).ROUTEKEEPER_PRIVATE_KEY as Hex);
    await fork.testClient.increaseTime({ seconds: 4_200 });
    await fork.testClient.mine({ blocks: 1 });
    const { liquidity } = await read(opened.tokenId);
    const config = home.config(positionYaml(opened.tokenId, ', keepInRange: { outsideFor: 1h }'));
    await killedWithSendHeld(home, config, safeTransferSelector);
    // Signed and never sent: the position is untouched.
    expect((await read(opened.tokenId)).liquidity).toBe(liquidity);
    const again = await runCli(['once', 'lp', '--config', config, '--address-book', home.book], env(home));
    expect(again.code, again.stderr).toBe(0);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    try {
      const trades = (await ledger.trades.history({})).toReversed();
      expect(trades.map((trade) => [trade.kind, trade.status])).toEqual([['move-position', 'confirmed']]);
      expect((await ledger.attempts.ofTrade(trades[0]?.id as string)).map((attempt) => [attempt.purpose, attempt.status])).toEqual([['trade', 'mined']]);
      const newId = trades[0]?.settlement?.position?.positionId as bigint;
      const opening = await read(newId);
      expect([opening.owner, opening.liquidity]).toEqual([fork.addressBook.accounts[0]?.address, trades[0]?.settlement?.position?.liquidity]);
      expect((await read(opened.tokenId)).liquidity).toBe(0n);
      const [latest] = await ledger.runs.list({ strategyId: 'lp', limit: 1 });
      expect(latest?.note).toMatch(new RegExp(`^position ${newId} \\(opened by 0x[0-9a-f]{64}\\): `));
    } finally {
      await ledger.close();
    }
  });

  it('refuses a position that is not the wallet’s: one line naming it, exit 2, nothing traded', async () => {
    const home = daemonHome(fork, 'v3-once-theirs');
    const theirs = await openPosition(fork, pool(), { account: 2, halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    const me = fork.addressBook.accounts[0]?.address as Address;
    const before = await fork.balanceOf(fork.token('cUSD'), me);
    const once = await runCli(['once', 'lp', '--config', home.config(positionYaml(theirs.tokenId)), '--address-book', home.book], env(home));
    expect(once.code).toBe(2);
    const lines = once.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(new RegExp(`strategies\\.0\\.position: position ${theirs.tokenId} belongs to 0x[0-9a-fA-F]{40}, not to the wallet ${me}`));
    expect(once.stderr).not.toMatch(/\n\s+at /);
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(before);
  });

  it('exits at the file’s time into the one token it names: the position emptied, the wallet paid, the NFT still its own', async () => {
    const home = daemonHome(fork, 'v3-once-exit');
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 5_000n * e18, amount1: 5_000n * e18 });
    await adoptWallet(fork, home.ledgerFile, env(home).ROUTEKEEPER_PRIVATE_KEY as Hex);
    const me = fork.addressBook.accounts[0]?.address as Address;
    const other = pool().token0 === 'cUSD' ? fork.token(pool().token1) : fork.token(pool().token0);
    const [cusdBefore, otherBefore] = [await fork.balanceOf(fork.token('cUSD'), me), await fork.balanceOf(other, me)];
    const file = home.config(positionYaml(opened.tokenId, ', exit: { at: "2026-01-01T00:00:00Z", to: cUSD }'));
    const once = await runCli(['once', 'lp', '--config', file, '--address-book', home.book], env(home));
    expect(once.code, once.stderr).toBe(0);
    const emptied = await read(opened.tokenId);
    expect([emptied.liquidity, emptied.owner]).toEqual([0n, me]);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    try {
      // One transaction: removed, collected and the other token sold, through the position mover.
      const trades = (await ledger.trades.history({})).toReversed();
      expect(trades.map((trade) => [trade.kind, trade.status])).toEqual([['move-position', 'confirmed']]);
      const [move] = trades;
      const collectedCusd = pool().token0 === 'cUSD' ? move?.settlement?.position?.amount0 : move?.settlement?.position?.amount1;
      expect((await fork.balanceOf(fork.token('cUSD'), me)) - cusdBefore).toBe((collectedCusd ?? 0n) + (move?.settlement?.amountOut ?? 0n));
    } finally {
      await ledger.close();
    }
    expect(await fork.balanceOf(other, me)).toBe(otherBefore);
  });

  // One `once` each: a case is a process start, several in one test could pass its time limit beside a second suite.
  it.each<[string, () => string, RegExp]>([
    [
      'both a position and one to open',
      () => `, open: { pool: "${pool().address}", range: { of: CELO, in: cUSD, low: "0.45", high: "0.55" }, amounts: { CELO: "10" } }`,
      /strategies\.0: name the position \(position: its NFT id\) or the one to open \(open: pool, range, amounts\), not both/,
    ],
    [
      're-ranged NFTs burned without the pool named',
      () => ', keepInRange: { outsideFor: 1h, oldPosition: burn }',
      /strategies\.0\.pool: keepInRange\.oldPosition 'burn' needs the pool named/,
    ],
    [
      'an exit at a price of a token not in the pool',
      () => ', exit: { price: { of: WETH, in: cUSD, below: "1500" } }',
      /strategies\.0\.exit\.price\.of: WETH is not one of the pool's tokens/,
    ],
    ['a pool that is not the position’s', () => `, pool: "${fork.token('cUSD')}"`, /strategies\.0\.pool: position \d+ is in pool 0x[0-9a-fA-F]{40}, not 0x/],
    [
      'an exit at a price no pool can hold',
      () => ', exit: { price: { of: CELO, in: cUSD, below: "0" } }',
      /strategies\.0\.exit\.price\.(below|above): 0 is outside the prices a Uniswap V3 pool can hold$/,
    ],
  ])('refuses a file with %s: one line naming it, exit 2, before anything is traded', async (_, more, message) => {
    const home = daemonHome(fork, 'v3-once-refused');
    const opened = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    await adoptWallet(fork, home.ledgerFile, env(home).ROUTEKEEPER_PRIVATE_KEY as Hex);
    const once = await runCli(['once', 'lp', '--config', home.config(positionYaml(opened.tokenId, more())), '--address-book', home.book], env(home));
    expect(once.code, once.stderr).toBe(2);
    expect(once.stderr.trim().split('\n').at(-1)).toMatch(message);
    expect(once.stderr).not.toMatch(/\n\s+at /);
  });

  it('opens a position by pool and range: the file’s amounts sold to the range’s ratio and minted, then kept; never opened twice', async () => {
    const home = daemonHome(fork, 'v3-once-open');
    const me = fork.addressBook.accounts[0]?.address as Address;
    const open = `, open: { pool: "${pool().address}", range: { of: CELO, in: cUSD, low: "0.45", high: "0.55" }, amounts: { CELO: "1000", cUSD: "500" } }`;
    const file = home.config(positionYaml(undefined, open));
    const [celo, cusd] = [fork.token('CELO'), fork.token('cUSD')];
    const before = [await fork.balanceOf(celo, me), await fork.balanceOf(cusd, me)] as const;
    const once = await runCli(['once', 'lp', '--config', file, '--address-book', home.book], env(home));
    expect(once.code, once.stderr).toBe(0);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    let opened: bigint;
    try {
      const [swap, mint] = (await ledger.trades.history({})).toReversed();
      expect([swap?.kind, swap?.status, mint?.kind, mint?.status]).toEqual(['swap', 'confirmed', 'mint', 'confirmed']);
      opened = mint?.settlement?.position?.positionId as bigint;
      // The range: CELO at 0.45 to 0.55 cUSD, on the pool's spacing, rounded outwards.
      const position = await read(opened);
      expect(position.owner).toBe(me);
      expect(mint?.kind === 'mint' && [mint.range.tickLower, mint.range.tickUpper]).toEqual([position.tickLower, position.tickUpper]);
      expect(position.liquidity).toBe(mint?.settlement?.position?.liquidity);
      // CELO's price in cUSD at the range's edges (1.0001^tick is token0's price in token1): 0.45 and 0.55, each
      // within one tick spacing outside.
      const celoPrice = (tick: number) => (pool().token0 === 'CELO' ? 1.0001 ** tick : 1.0001 ** -tick);
      const [low, high] = [celoPrice(position.tickLower), celoPrice(position.tickUpper)].sort((a, b) => a - b) as [number, number];
      const spacing = 1.0001 ** pool().tickSpacing;
      expect(low <= 0.45 && low * spacing > 0.45 && high >= 0.55 && high / spacing < 0.55).toBe(true);
      // No more left the wallet than the file's amounts.
      const spent: [bigint, bigint] = [before[0] - (await fork.balanceOf(celo, me)), before[1] - (await fork.balanceOf(cusd, me))];
      expect(spent[0] <= 1_000n * e18 && spent[1] <= 500n * e18 && spent[0] + spent[1] > 0n).toBe(true);
    } finally {
      await ledger.close();
    }
    // The next run keeps the position it opened, and opens nothing.
    const again = await runCli(['once', 'lp', '--config', file, '--address-book', home.book], env(home));
    expect(again.code, again.stderr).toBe(0);
    const reread = await Ledger.openReadOnly(home.ledgerFile);
    try {
      expect((await reread.trades.history({})).filter((trade) => trade.kind === 'mint')).toHaveLength(1);
      const [latest] = await reread.runs.list({ strategyId: 'lp', limit: 1 });
      expect(latest?.note).toMatch(new RegExp(`^position ${opened} \\(opened by 0x[0-9a-f]{64}\\): fees worth`));
    } finally {
      await reread.close();
    }
  });

  it('opens a position by pair, fee tier and a width around the reference when it opens: ±5% of the price, on the spacing', async () => {
    const home = daemonHome(fork, 'v3-once-open-width');
    const me = fork.addressBook.accounts[0]?.address as Address;
    await adoptWallet(fork, home.ledgerFile, env(home).ROUTEKEEPER_PRIVATE_KEY as Hex);
    const open = `, open: { pair: [CELO, cUSD], fee: "0.3%", width: "5%", amounts: { CELO: "1000", cUSD: "500" } }`;
    const once = await runCli(['once', 'lp', '--config', home.config(positionYaml(undefined, open)), '--address-book', home.book], env(home));
    expect(once.code, once.stderr).toBe(0);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    try {
      const mint = (await ledger.trades.history({})).find((trade) => trade.kind === 'mint');
      expect(mint?.status).toBe('confirmed');
      const position = await read(mint?.settlement?.position?.positionId as bigint);
      // The factory's cUSD/CELO pool at 0.3%, and the wallet's.
      expect([position.pool, position.owner]).toEqual([pool().address, me]);
      // token0's price in token1 at the edges: 5% under and over the reference (the world's price), each within one
      // spacing outside.
      const reference = pool().token0 === 'CELO' ? 0.5 : 2;
      const [low, high] = [1.0001 ** position.tickLower, 1.0001 ** position.tickUpper];
      const spacing = 1.0001 ** pool().tickSpacing;
      expect(low <= reference * 0.95 && low * spacing > reference * 0.95).toBe(true);
      expect(high >= reference * 1.05 && high / spacing < reference * 1.05).toBe(true);
    } finally {
      await ledger.close();
    }
  });

  it('opens its own beside the position another strategy of the file keeps in the same pool: several managed positions per pool', async () => {
    const home = daemonHome(fork, 'v3-once-open-beside');
    const kept = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    await adoptWallet(fork, home.ledgerFile, env(home).ROUTEKEEPER_PRIVATE_KEY as Hex);
    const file = home.config(`
defaults: { confirmations: 1, firstRun: now }
wallets:
  main: { privateKeyEnv: ROUTEKEEPER_PRIVATE_KEY }
strategies:
  - { id: kept, kind: uniswap-v3-position, wallet: main, every: 1h, position: ${kept.tokenId}, valueToken: cUSD }
  - { id: lp, kind: uniswap-v3-position, wallet: main, every: 1h, valueToken: cUSD, open: { pair: [CELO, cUSD], fee: "0.3%", width: "5%", amounts: { CELO: "100" } } }
  - { id: lp2, kind: uniswap-v3-position, wallet: main, every: 1h, valueToken: cUSD, open: { pair: [CELO, cUSD], fee: "0.3%", width: "10%", amounts: { CELO: "100" } } }
`);
    const once = await runCli(['once', 'lp', '--config', file, '--address-book', home.book], env(home));
    expect(once.code, once.stderr).toBe(0);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    try {
      const mint = (await ledger.trades.history({})).find((trade) => trade.kind === 'mint');
      expect(mint?.status).toBe('confirmed');
      const opened = mint?.settlement?.position?.positionId as bigint;
      expect(opened).not.toBe(kept.tokenId);
      // Both the wallet's, both in the pool.
      const [one, two] = [await read(kept.tokenId), await read(opened)];
      expect([one.pool, two.pool, one.owner, two.owner]).toEqual([
        pool().address,
        pool().address,
        fork.addressBook.accounts[0]?.address,
        fork.addressBook.accounts[0]?.address,
      ]);
    } finally {
      await ledger.close();
    }
    // A third opens beside both: the one lp opened is lp's, as its mint (from the wallet, the call it tagged) shows.
    const third = await runCli(['once', 'lp2', '--config', file, '--address-book', home.book], env(home));
    expect(third.code, third.stderr).toBe(0);
    const after = await Ledger.openReadOnly(home.ledgerFile);
    try {
      const mints = (await after.trades.history({})).filter((trade) => trade.kind === 'mint');
      expect(mints.map((trade) => [trade.strategyId, trade.status]).sort()).toEqual([
        ['lp', 'confirmed'],
        ['lp2', 'confirmed'],
      ]);
    } finally {
      await after.close();
    }
  });

  it('opens nothing while the wallet holds a position of liquidity in the pool that it cannot tell is the strategy’s', async () => {
    const home = daemonHome(fork, 'v3-once-open-held');
    const mine = await openPosition(fork, pool(), { halfWidthTicks: 1_200, amount0: 1_000n * e18, amount1: 1_000n * e18 });
    await adoptWallet(fork, home.ledgerFile, env(home).ROUTEKEEPER_PRIVATE_KEY as Hex);
    const open = `, open: { pool: "${pool().address}", range: { of: CELO, in: cUSD, low: "0.45", high: "0.55" }, amounts: { CELO: "1000" } }`;
    const once = await runCli(['once', 'lp', '--config', home.config(positionYaml(undefined, open)), '--address-book', home.book], env(home));
    expect(once.code, once.stderr).toBe(0);
    const ledger = await Ledger.openReadOnly(home.ledgerFile);
    try {
      expect(await ledger.trades.history({})).toEqual([]);
      const [latest] = await ledger.runs.list({ strategyId: 'lp', limit: 1 });
      expect(latest?.note).toMatch(
        new RegExp(`the wallet holds position ${mine.tokenId} of liquidity in the pool, not known as this strategy's: nothing opened`),
      );
    } finally {
      await ledger.close();
    }
  });
});
