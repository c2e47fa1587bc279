/**
 * Celo's block production on a devnet: a block every second whether or not anyone sends (no block per
 * transaction), and each block's base fee set by Celo's EIP-1559 parameters with its floor, so that the sender's
 * fees, waits and confirmations meet what mainnet gives them. Source: specs.celo.org (print.html): 1 s blocks,
 * elasticity 5, base fee change denominator 400, a base-fee floor of 25 gwei (see docs/spec and celo-mainnet facts).
 */
import { createTestClient, http, parseGwei } from 'viem';
import { getBlock } from 'viem/actions';

export const celoBlocks = {
  intervalMs: 1_000,
  baseFeeFloor: parseGwei('25'),
  elasticity: 5n,
  changeDenominator: 400n,
} as const;

/** The next block's base fee under Celo's rule: EIP-1559 with Celo's parameters, never below the floor. */
export function nextBaseFee(parent: { baseFeePerGas: bigint; gasUsed: bigint; gasLimit: bigint }, rules = celoBlocks): bigint {
  const target = parent.gasLimit / rules.elasticity;
  const base = parent.baseFeePerGas;
  let next = base;
  if (parent.gasUsed > target) {
    const delta = (base * (parent.gasUsed - target)) / target / rules.changeDenominator;
    next = base + (delta > 1n ? delta : 1n);
  } else if (parent.gasUsed < target) {
    next = base - (base * (target - parent.gasUsed)) / target / rules.changeDenominator;
  }
  return next > rules.baseFeeFloor ? next : rules.baseFeeFloor;
}

/**
 * Switches an anvil node from a block per transaction to Celo's production: one block a second, each with the base
 * fee Celo's rule gives its parent. Resolves once the first such block is mined; returns a stop function.
 */
export async function produceBlocksLikeCelo(rpcUrl: string): Promise<() => void> {
  const client = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  await client.setAutomine(false);
  const mineOne = async () => {
    const parent = await getBlock(client, { blockTag: 'latest' });
    const baseFeePerGas = nextBaseFee({ baseFeePerGas: parent.baseFeePerGas ?? celoBlocks.baseFeeFloor, gasUsed: parent.gasUsed, gasLimit: parent.gasLimit });
    await client.setNextBlockBaseFeePerGas({ baseFeePerGas });
    // Each block a second or more after its parent, as on Celo: anvil would give a block mined in its parent's second
    // the same time (the first one here often is, right after the node's last block).
    const now = BigInt(Math.floor(Date.now() / 1000));
    await client.setNextBlockTimestamp({ timestamp: now > parent.timestamp ? now : parent.timestamp + 1n });
    await client.mine({ blocks: 1 });
  };
  await mineOne();
  let mining: Promise<void> | undefined;
  const timer = setInterval(() => {
    // One block at a time: a slow node skips a beat rather than mining two at once.
    mining ??= mineOne()
      .catch(() => {})
      .finally(() => (mining = undefined));
  }, celoBlocks.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
