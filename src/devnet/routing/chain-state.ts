/**
 * The chain as the quote engine sees it: every pool's reserves and the router's partner fees, read at the
 * latest block, and read again whenever a new block appears. Each quote asks for the latest block first,
 * so an answer never rests on reserves older than the latest block.
 */
import { type Address, type PublicClient, parseAbi } from 'viem';
import * as artifacts from '../artifacts/contracts.ts';
import { Market, type PoolInfo, type PoolReserves } from './market.ts';

const uniswapV2PairAbi = parseAbi([
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
  'function totalSupply() view returns (uint256)',
]);

export type ChainSnapshot = {
  blockNumber: bigint;
  blockTimestamp: bigint;
  market: Market;
  /** Fee numerator (over 1e10) the router charges for each partner id; 0 when the id has no admin. */
  partnerFees: ReadonlyMap<number, bigint>;
};

export class ChainState {
  #latest: Promise<ChainSnapshot> | undefined;
  /** Keyed by hash, not number: after a reorg (or anvil's evm_revert) a number can come back with other state. */
  #latestHash: string | undefined;

  constructor(
    private readonly client: PublicClient,
    private readonly pools: readonly PoolInfo[],
    private readonly router: Address,
    private readonly partnerIds: readonly number[],
  ) {}

  async current(): Promise<ChainSnapshot> {
    const block = await this.client.getBlock({ blockTag: 'latest' });
    if (this.#latest === undefined || this.#latestHash !== block.hash) {
      this.#latestHash = block.hash;
      // Shared by every request that arrives during the load; forgotten if it fails, so the next request retries.
      this.#latest = this.#load(block.number, block.timestamp).catch((error) => {
        this.#latest = undefined;
        throw error;
      });
    }
    return this.#latest;
  }

  async #load(blockNumber: bigint, blockTimestamp: bigint): Promise<ChainSnapshot> {
    const reserves = new Map<string, PoolReserves>();
    const partnerFees = new Map<number, bigint>();
    await Promise.all([
      ...this.pools.map(async (pool) => {
        const [[reserve0, reserve1], totalSupply] = await Promise.all([
          this.client.readContract({ address: pool.address, abi: uniswapV2PairAbi, functionName: 'getReserves', blockNumber }),
          this.client.readContract({ address: pool.address, abi: uniswapV2PairAbi, functionName: 'totalSupply', blockNumber }),
        ]);
        reserves.set(pool.address.toLowerCase(), { reserve0, reserve1, totalSupply });
      }),
      ...this.partnerIds.map(async (id) => {
        const [admin, feeNumerator] = await this.client.readContract({
          address: this.router,
          abi: artifacts.DevnetRouter.abi,
          functionName: 'partners',
          args: [BigInt(id)],
          blockNumber,
        });
        partnerFees.set(id, BigInt(admin) === 0n ? 0n : feeNumerator);
      }),
    ]);
    return { blockNumber, blockTimestamp, market: new Market(this.pools, reserves), partnerFees };
  }
}
