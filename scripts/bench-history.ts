/**
 * Prints, as JSON, what proving a wallet's signed history costs before a signature (src/trade/signed-history.ts), on
 * a SQLite ledger holding `--trades` signed trades of one wallet (each a tagged request, a tagged checked call and the
 * wallet's real signed bytes): the first proof ever (every row proven, then the record of what was proven written), the
 * first proof of a process that starts (or takes the wallet over) on that record (the rows read, their digest
 * compared, their tags checked, no signature recovered again), and each later one in a process; and the reading of
 * what already happened that a strategy's run makes before it decides (src/trade/wallet-history.ts: the proof, then
 * every trade of the wallet proven by its tags). The proof reads the database only, never the node.
 * Usage: tsx scripts/bench-history.ts [--trades 1000,10000] [--repeats N]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Address, createPublicClient, encodeFunctionData, erc20Abi, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainFor } from '../src/chains.ts';
import { Wallet } from '../src/chain/wallet.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { TradeRecorder } from '../src/trade/recorder.ts';
import { SignedHistory } from '../src/trade/signed-history.ts';
import { WalletHistory } from '../src/trade/wallet-history.ts';

const { values } = parseArgs({ options: { trades: { type: 'string', default: '1000,10000' }, repeats: { type: 'string', default: '5' } } });
const sizes = values.trades.split(',').map(Number);
const repeats = Number(values.repeats);
// Anvil's first public test key: nothing of value, and no node is asked anything.
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const token: Address = '0x765DE816845861e75A25fCA122bb6898B8B1282a';
const router: Address = '0x0000000000000000000000000000000000000aaa';

async function ledgerOf(trades: number) {
  const ledger = await Ledger.open(join(mkdtempSync(join(tmpdir(), 'routekeeper-bench-history-')), 'ledger.sqlite'));
  const tagScope = ledger.id().then((ledgerId) => ({ ledgerId, paper: false }));
  const client = createPublicClient({ chain: chainFor(42220, 'http://127.0.0.1:9'), transport: http('http://127.0.0.1:9') });
  const wallet = new Wallet({ client, account, chainId: 42220, journal: new TradeRecorder(ledger).journal, tagScope });
  for (let i = 0; i < trades; i++) {
    const trade = {
      id: `dca:${i}#buy`,
      strategyId: 'dca',
      slot: `${i}#buy`,
      wallet: account.address,
      chainId: 42220,
      kind: 'swap' as const,
      tokenIn: token,
      tokenOut: token,
      amountIn: 10n ** 18n,
      slippageBps: 50,
    };
    const now = Date.now();
    await ledger.trades.claimSlot(trade, { now, requestTag: await wallet.tags.request(trade, now) });
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [router, BigInt(i + 1)] });
    const call = { target: router, data, expectedOut: 1n, minOut: 1n, deadline: 2n ** 40n } as const;
    await ledger.trades.commitChecked(trade.id, { call, callTag: await wallet.tags.call(trade.id, call), status: 'checked' });
    const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n };
    if (i === 0) await ledger.attempts.startSignedFrom(account.address, 42220, { nonce: 0, tag: await wallet.tags.signedFrom(account.address, 42220, 0) });
    await wallet.sign(trade.id, [{ to: router, data, purpose: 'trade', nonce: i, gas: 100_000n, fees }]);
  }
  return { ledger, wallet };
}

const median = (values: number[]) => Math.round(([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number) * 10) / 10;
const results = [];
for (const trades of sizes) {
  const { ledger, wallet } = await ledgerOf(trades);
  const timed = async (history: SignedHistory) => {
    const started = performance.now();
    await history.beforeSigning('next', trades);
    return performance.now() - started;
  };
  const firstEverMs = await timed(new SignedHistory({ ledger, wallet, approvals: 'exact' }));
  const restarts: number[] = [];
  for (let i = 0; i < repeats; i++) restarts.push(await timed(new SignedHistory({ ledger, wallet, approvals: 'exact' })));
  const running = new SignedHistory({ ledger, wallet, approvals: 'exact' });
  await timed(running);
  const later: number[] = [];
  for (let i = 0; i < repeats; i++) later.push(await timed(running));
  const readings: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    await running.prove(trades);
    const history = await WalletHistory.read(await ledger.trades.walletRows(wallet.address, wallet.chainId), wallet);
    if (history.ofStrategy('dca').length !== trades) throw new Error('the reading lost a trade');
    readings.push(performance.now() - started);
  }
  results.push({
    trades,
    firstProofEverMs: Math.round(firstEverMs),
    firstProofOfAProcessMsMedian: median(restarts),
    laterProofMsMedian: median(later),
    historyReadingMsMedian: median(readings),
  });
  await ledger.close();
}
console.log(JSON.stringify({ bench: 'signed-history', results }, null, 2));
