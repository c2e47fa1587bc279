/**
 * The devnet producing blocks as Celo mainnet does: a block a second and none per transaction, each with the base
 * fee Celo's EIP-1559 rule gives its parent, never below the 25 gwei floor; and a trade still goes through.
 */
import { type Address, parseGwei, parseUnits } from 'viem';
import { describe, expect, it } from 'vitest';
import { celoBlocks, nextBaseFee, produceBlocksLikeCelo } from '../../src/devnet/celo-blocks.ts';
import { runTrade } from '../../src/trade/pipeline.ts';
import { useDevnetFork } from '../helpers/devnet.ts';
import { swapTrade, testExecutor } from '../helpers/engine.ts';
import { waitFor } from '../helpers/wait.ts';

const fork = useDevnetFork({ routing: true });

describe("Celo's base fee rule", () => {
  const limit = 30_000_000n;
  it('holds an empty block at the floor, and moves by 1/400 of the gap to the target per block', () => {
    expect(nextBaseFee({ baseFeePerGas: parseGwei('25'), gasUsed: 0n, gasLimit: limit })).toBe(parseGwei('25'));
    expect(nextBaseFee({ baseFeePerGas: parseGwei('100'), gasUsed: 0n, gasLimit: limit })).toBe(parseGwei('99.75'));
    // A full block is 4 targets over the target (elasticity 5): + 4/400.
    expect(nextBaseFee({ baseFeePerGas: parseGwei('25'), gasUsed: limit, gasLimit: limit })).toBe(parseGwei('25.25'));
    expect(nextBaseFee({ baseFeePerGas: parseGwei('1'), gasUsed: limit / 5n, gasLimit: limit })).toBe(celoBlocks.baseFeeFloor);
  });
});

describe('a devnet producing blocks as Celo does', () => {
  it('makes a block a second at the rule and floor, and a swap waits for its block and confirms', async () => {
    const stop = await produceBlocksLikeCelo(fork.addressBook.rpcUrl);
    const executor = await testExecutor(fork);
    try {
      const first = await fork.publicClient.getBlockNumber({ cacheTime: 0 });
      const blocks = [];
      for (let number = first; number <= first + 3n; number++) {
        // Waits for the block to exist (an event of the chain, not a span of time).
        blocks.push(await waitForBlock(number));
      }
      for (let i = 1; i < blocks.length; i++) {
        const [parent, block] = [blocks[i - 1], blocks[i]] as [(typeof blocks)[number], (typeof blocks)[number]];
        expect(block.baseFeePerGas).toBe(nextBaseFee({ baseFeePerGas: parent.baseFeePerGas as bigint, gasUsed: parent.gasUsed, gasLimit: parent.gasLimit }));
        expect(block.baseFeePerGas).toBeGreaterThanOrEqual(celoBlocks.baseFeeFloor);
        expect(block.timestamp).toBeGreaterThan(parent.timestamp);
      }

      const me = fork.addressBook.accounts[0]?.address as Address;
      const cusdBefore = await fork.balanceOf(fork.token('cUSD'), me);
      const report = await runTrade(executor, swapTrade(fork, 'celo-blocks', 'only'));
      expect(report.status, report.reason).toBe('confirmed');
      expect(await fork.balanceOf(fork.token('cUSD'), me)).toBe(cusdBefore - parseUnits('100', 18));
      const [attempt] = (await executor.ledger.attempts.ofTrade(report.intentId)).filter((a) => a.purpose !== 'approve');
      const receipt = await fork.publicClient.getTransactionReceipt({ hash: attempt?.hash as `0x${string}` });
      expect(receipt.effectiveGasPrice).toBeGreaterThanOrEqual(celoBlocks.baseFeeFloor);
    } finally {
      stop();
      await executor.close();
      await fork.testClient.setAutomine(true);
    }
  });
});

function waitForBlock(number: bigint) {
  return waitFor(() => fork.publicClient.getBlock({ blockNumber: number }).catch(() => undefined), `block ${number}`, 30_000);
}
