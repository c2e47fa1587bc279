/**
 * Uniswap V2 arithmetic in bigint, exactly as the devnet contracts compute it, so that quotes equal,
 * to the wei, what the router, the adapters and the farms pay.
 */

/**
 * What a pool pays for `amountIn`, its fee in basis points. Both adapters compute exactly this: the per-mille one's
 * fraction in(1000 − f)·rOut / (rIn·1000 + in(1000 − f)) is the same fraction with f = bps / 10, scaled by 10.
 */
export function swapOutput(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: number): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const inAfterFee = amountIn * BigInt(10_000 - feeBps);
  return (inAfterFee * reserveOut) / (reserveIn * 10_000n + inAfterFee);
}

/**
 * What a farm's add-liquidity step does with balances (b0, b1) on a pool with reserves (r0, r1) and
 * `totalSupply` LP: adds both at the pool's ratio, mints LP, leaves the rest over (V2LiquidityFarmBase).
 */
export function addLiquidity(balance0: bigint, balance1: bigint, reserve0: bigint, reserve1: bigint, totalSupply: bigint) {
  let [amount0, amount1] = [balance0, balance1];
  const matching1 = (balance0 * reserve1) / reserve0;
  if (matching1 <= balance1) amount1 = matching1;
  else amount0 = (balance1 * reserve0) / reserve1;
  const by0 = (amount0 * totalSupply) / reserve0;
  const by1 = (amount1 * totalSupply) / reserve1;
  return { liquidity: by0 < by1 ? by0 : by1, amount0, amount1 };
}

/** What burning `liquidity` of a pool pays out of each reserve (UniswapV2Pair.burn, protocol fee off). */
export function removeLiquidity(liquidity: bigint, reserve0: bigint, reserve1: bigint, totalSupply: bigint) {
  return { amount0: (liquidity * reserve0) / totalSupply, amount1: (liquidity * reserve1) / totalSupply };
}
