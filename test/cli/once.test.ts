/**
 * `routekeeper once` against a node that withholds receipts: it says what it waits for, returns within --wait
 * (plus the stop's grace) with exit 1 and "outcome not known yet", leaves the trade as it was in the ledger,
 * and the next start settles it: one swap in all, recorded once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, parseAbiItem, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.ts';
import { runCli } from '../helpers/cli.ts';
import { runInProcess } from '../helpers/in-process.ts';
import { daemonHome, dcaYaml, settleWithDaemon } from '../helpers/daemon-process.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { startRpcProxy } from '../../support/rpc-proxy.ts';

const fork = useDevnetFork({ routing: true });
const swapEvent = parseAbiItem(
  'event Swap(address indexed sender, address to, address indexed input, address indexed output, uint256 inputAmount, uint256 outputAmount)',
);
const strategies = [{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '3', every: '1h' }];

let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
beforeAll(async () => {
  proxy = await startRpcProxy(fork.addressBook.rpcUrl);
});
afterAll(() => proxy.close());

describe('once', () => {
  it('returns within --wait when the chain withholds the receipt: exit 1, outcome not known, the trade left as it was; the next start settles it', async () => {
    const home = daemonHome(fork, 'once-bounded');
    const me = fork.addressBook.accounts[0]?.address as Address;
    const env = { ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string };
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me);
    const fromBlock = (await fork.publicClient.getBlockNumber()) + 1n;
    // The node takes the transaction and mines it, but never says so.
    proxy.faults.refuse = ['eth_sendRawTransactionSync'];
    proxy.faults.rewrite = (call, got) => (call.method === 'eth_getTransactionReceipt' ? { ...got, result: null } : got);
    const book = join(home.dir, 'withholding-book.json');
    writeFileSync(book, JSON.stringify({ ...fork.addressBook, rpcUrl: proxy.url }));

    const waitMs = 6_000;
    const once = await runCli(['once', 'dca', '--config', home.config(dcaYaml(strategies)), '--address-book', book, '--wait', `${waitMs / 1000}s`], {
      RPC_URL: '',
      ROUTING_SERVICE_URL: '',
      ROUTEKEEPER_CONFIG: '',
      ROUTEKEEPER_DATA_DIR: home.dataDir,
      LOG_LEVEL: 'info',
      ...env,
    });
    const ended = Date.now();
    expect(once.code, once.stderr).toBe(1);
    // Timed from the moment the bound starts (its first line says so; Node's start before it is not once's to
    // bound): the bound, the stop's grace for a sent trade (2 s) and its requests (0.5 s), and closing on a busy
    // machine.
    const bounded = once.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { time: number; msg: string })
      .find((line) => line.msg === `dca: running once, for at most ${waitMs / 1000}s (--wait)`);
    expect(bounded, once.stderr).toBeDefined();
    expect(ended - (bounded?.time as number)).toBeLessThan(waitMs + 2_500 + 4_000);
    const said = once.stderr.split('\n').filter(Boolean);
    expect(
      said.some((line) => /dca:.*#buy: sent the trade 0x[0-9a-f]{64}; waiting for the chain to mine it \(up to \d+ s more; --wait to change\)/.test(line)),
      once.stderr,
    ).toBe(true);
    expect(said.at(-1)).toMatch(/^routekeeper: dca:[^ ]+#buy: outcome not known yet; the daemon settles it \(routekeeper run\)$/);
    expect(once.stderr).not.toMatch(/^\s+at /m);

    // The swap is on chain, the ledger still has the trade open (broadcast), its one attempt not settled.
    const swaps = await fork.publicClient.getLogs({ address: fork.addressBook.contracts.router, event: swapEvent, args: { sender: me }, fromBlock });
    expect(swaps).toHaveLength(1);
    const left = await onlyTrade(home.ledgerFile);
    expect(left.status).toBe('broadcast');
    expect(left.failure?.reason).toBe(`interrupted at broadcast: no answer within --wait ${waitMs / 1000}s`);
    expect(left.attempts.filter((a) => a.purpose === 'trade').map((a) => a.status)).toEqual(['broadcast']);

    // The next start, with an honest node, settles it from what the chain shows, and trades nothing more.
    proxy.faults.refuse = [];
    proxy.faults.rewrite = undefined;
    await settleWithDaemon(home, dcaYaml(strategies, { start: '2099-01-01T00:00:00Z' }), env);
    const settled = await onlyTrade(home.ledgerFile);
    expect(settled.status).toBe('confirmed');
    expect(settled.settlement?.txHash).toBe(swaps[0]?.transactionHash);
    expect(settled.settlement?.amountOut).toBe(swaps[0]?.args.outputAmount);
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(usdBefore - parseUnits('3', 18));
  });

  it('exits 0 only when the strategy ran: a paused one does not, exit 1, and the line says why', async () => {
    const home = daemonHome(fork, 'once-paused');
    const config = home.config(dcaYaml([{ id: 'dca', sell: 'cUSD', buy: 'CELO', amount: '1', every: '1h' }]));
    const env = {
      RPC_URL: '',
      ROUTING_SERVICE_URL: '',
      ROUTEKEEPER_CONFIG: '',
      ROUTEKEEPER_DATA_DIR: home.dataDir,
      ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[2]?.privateKey as string,
    };
    const ran = await runCli(['once', 'dca', '--config', config, '--address-book', home.book], env);
    expect(ran.code, ran.stderr).toBe(0);
    const paused = await runCli(['pause', 'dca', '--reason', 'a person is looking', '--ledger', home.ledgerFile], env);
    expect(paused.code, paused.stderr).toBe(0);
    const me = fork.addressBook.accounts[2]?.address as Address;
    const nonce = await fork.publicClient.getTransactionCount({ address: me });
    const held = await runCli(['once', 'dca', '--config', config, '--address-book', home.book], env);
    expect(held.code).toBe(1);
    expect(held.stderr.trim().split('\n').at(-1)).toBe(
      'routekeeper: once: dca did not run: paused: the strategy dca is paused (a person is looking); lift it with `routekeeper resume` once a person has looked',
    );
    expect(await fork.publicClient.getTransactionCount({ address: me })).toBe(nonce);
  });

  it('refuses a --wait that is not a duration, with exit 2 and the option named', async () => {
    const result = await runInProcess(['once', 'dca', '--wait', 'soon'], { RPC_URL: '', ROUTEKEEPER_CONFIG: '' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe("routekeeper: once: --wait must be a duration such as 30s, 2m or 1h, got 'soon'");
  });

  it('trading costs the node three requests more than a run refused after its simulation: the send, the settlement, one mark', async () => {
    const me = fork.addressBook.accounts[0]?.address as Address;
    proxy.faults.refuse = [];
    proxy.faults.rewrite = undefined;
    const runOnce = async (name: string, minPrice?: string) => {
      const home = daemonHome(fork, name);
      const book = join(home.dir, 'counted-book.json');
      writeFileSync(book, JSON.stringify({ ...fork.addressBook, rpcUrl: proxy.url }));
      const yaml = dcaYaml(strategies).replace('buy: CELO', `buy: CELO${minPrice ? `, minPrice: "${minPrice}"` : ''}`);
      const before = proxy.requests();
      const ran = await runCli(['once', 'dca', '--config', home.config(yaml), '--address-book', book], {
        RPC_URL: '',
        ROUTING_SERVICE_URL: '',
        ROUTEKEEPER_CONFIG: '',
        ROUTEKEEPER_DATA_DIR: home.dataDir,
        ROUTEKEEPER_PRIVATE_KEY: fork.addressBook.accounts[0]?.privateKey as string,
      });
      return { ran, requests: proxy.requests() - before };
    };
    const usdBefore = await fork.balanceOf(fork.token('cUSD'), me);
    // A price limit no route meets: refused by the threshold, after the check's one batch (its simulation in it).
    const refused = await runOnce('once-refused', '1000');
    expect(refused.ran.code, refused.ran.stderr).toBe(0);
    expect(refused.ran.stdout).toMatch(/#buy: refused: sell 3 cUSD for CELO: the quote pays \d+, below the strategy's minimum 3000000000000000000000/);
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(usdBefore);
    const trading = await runOnce('once-trading');
    expect(trading.ran.code, trading.ran.stderr).toBe(0);
    expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(usdBefore - parseUnits('3', 18));
    expect(trading.requests - refused.requests).toBe(3);
  });
});

async function onlyTrade(ledgerFile: string) {
  const ledger = await Ledger.openReadOnly(ledgerFile);
  try {
    const trades = await ledger.trades.history({ strategyId: 'dca' });
    expect(trades).toHaveLength(1);
    const trade = trades[0] as NonNullable<(typeof trades)[0]>;
    return { ...trade, attempts: await ledger.attempts.ofTrade(trade.id) };
  } finally {
    await ledger.close();
  }
}
