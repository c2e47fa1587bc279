import { type Address, type Hex, encodeFunctionData, erc20Abi, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/chain/preflight.ts';
import { useDevnetFork } from '../helpers/devnet.ts';

const fork = useDevnetFork();
const pairAbi = parseAbi(['function sync()', 'function getReserves() view returns (uint112, uint112, uint32)']);
const gaugeAbi = parseAbi(['function claim() returns (uint256)']);

/**
 * Calls whose gas depends on time passing: a Uniswap V2 pair writes its price accumulators only when the block's
 * time moved on since its last update, a gauge settles its reward accrual only then. The preflight's gas must be
 * what the call costs in the next block, a second later, or a deposit through both runs out of gas on chain.
 */
describe('preflight gas', () => {
  const account = () => fork.addressBook.accounts[0] as { address: Address; privateKey: Hex };
  const gauge = () => fork.addressBook.contracts.gauges['CELO/cUSD'] as { address: Address; pool: Address };

  /** Mines `data` to `to` in a block of its own, one second after the latest, with exactly `gas`. */
  async function mineNextSecond(to: Address, data: Hex, gas: bigint) {
    const latest = await fork.publicClient.getBlock({ blockTag: 'latest' });
    await fork.testClient.setNextBlockTimestamp({ timestamp: latest.timestamp + 1n });
    const hash = await fork.wallet(account().privateKey).sendTransaction({ to, data, gas });
    return fork.confirm(hash);
  }

  it.each([
    ['a pair sync, right after the pair last updated', () => ({ to: gauge().pool, data: encodeFunctionData({ abi: pairAbi, functionName: 'sync' }) })],
    ['a gauge claim, right after the gauge last settled', () => ({ to: gauge().address, data: encodeFunctionData({ abi: gaugeAbi, functionName: 'claim' }) })],
  ])('of %s is the gas it uses when mined a second later', async (_name, callOf) => {
    const { to, data } = callOf();
    // Touch the contract so its last update is the latest block's own time: simulated in that time, nothing elapses.
    await mineNextSecond(to, data, 300_000n);
    const latest = await fork.publicClient.getBlock({ blockTag: 'latest' });
    if (to === gauge().pool)
      expect((await fork.publicClient.readContract({ address: to, abi: pairAbi, functionName: 'getReserves' }))[2]).toBe(Number(latest.timestamp));

    const checked = await preflight(fork.publicClient, { from: account().address, to, data });
    if (checked.call === 'unsimulated' || !checked.call.ok) throw new Error(`preflight failed: ${JSON.stringify(checked.call)}`);
    expect(checked.block.number).toBe(latest.number);

    const receipt = await mineNextSecond(to, data, 300_000n);
    expect(receipt.blockNumber).toBe(latest.number + 1n);
    expect(checked.call.gasUsed).toBe(receipt.gasUsed);
  });
});

/**
 * The wallet's transactions in flight are simulated before the call, so the call meets the chain they leave. One of
 * them may have mined since the process last looked: run again on the block that holds it, an approval would set an
 * allowance its spender has spent since, and the call would be signed without an approval of its own.
 */
describe('preflight after transactions in flight', () => {
  type Account = { address: Address; privateKey: Hex };
  it('simulates only those the chain has not mined: a mined approval its spender spent is not set again', async () => {
    const [owner, spender] = fork.addressBook.accounts as [Account, Account];
    const approve = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender.address, amount] });
    const cusd = fork.token('cUSD');
    const nonce = await fork.publicClient.getTransactionCount({ address: owner.address });
    await fork.confirm(await fork.wallet(owner.privateKey).sendTransaction({ to: cusd, data: approve(100n) }));
    const spend = encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [owner.address, spender.address, 100n] });
    await fork.confirm(await fork.wallet(spender.privateKey).sendTransaction({ to: cusd, data: spend }));
    const read = (before: { to: Address; data: Hex; nonce: number }[]) =>
      preflight(fork.publicClient, {
        from: owner.address,
        to: cusd,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [owner.address] }),
        approvals: [{ token: cusd, spender: spender.address, amount: 100n, value: 100n }],
        before,
      });
    // The approval at `nonce` is mined and spent: the allowance is the chain's, none.
    expect((await read([{ to: cusd, data: approve(100n), nonce }])).allowances).toEqual([0n]);
    // One not mined yet (the next nonce) is simulated first: the allowance is what it sets.
    expect(
      (
        await read([
          { to: cusd, data: approve(100n), nonce },
          { to: cusd, data: approve(40n), nonce: nonce + 1 },
        ])
      ).allowances,
    ).toEqual([40n]);
  });
});
