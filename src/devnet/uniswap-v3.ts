/**
 * The devnet's Uniswap V3: the real factory and pool bytecode (@uniswap/v3-core), our adapter and a liquidity
 * provider, and the pools of `uniswapV3PoolSpecs` initialized at the world's prices, each with positions of several
 * widths so that swaps cross initialized ticks. Beside them what Celo has for V3 routes: Uniswap's QuoterV2 from its
 * published build (@uniswap/v3-periphery) at Celo's address, and Swappa's PairUniswapV3 as Swappa built it, which
 * quotes through that QuoterV2 (not a view) and whose swap callback pays whoever calls it; and Uniswap's
 * NonfungiblePositionManager from the same build, whose positions (NFTs) a V3 position strategy manages.
 */
import { type Address, getAddress, isAddressEqual, keccak256, zeroAddress } from 'viem';
import { isqrt } from '../bigint-math.ts';
import type { DeploymentAddressBook } from '../config/address-book.ts';
import { v3PoolAddress } from '../contracts/encoding.ts';
import * as solidity from '../contracts/solidity-code.ts';
import { MIN_TICK } from '../pools/uniswap-v3/math.ts';
import * as artifacts from './artifacts/contracts.ts';
import * as swappa from './artifacts/swappa-published.ts';
import { type Deployer, DeploymentError } from './deployer.ts';
import { type TokenSymbol, tokenSpecs, uniswapV3PoolSpecs } from './world-spec.ts';

const Q96 = 2n ** 96n;

const spec = (symbol: TokenSymbol) => {
  const found = tokenSpecs.find((token) => token.symbol === symbol);
  if (!found) throw new DeploymentError(`unknown devnet token ${symbol}`);
  return found;
};

/** Raw units of token1 per raw unit of token0 at the world's prices, as a float (for choosing ticks and sizes). */
function rawPrice(token0: TokenSymbol, token1: TokenSymbol): number {
  return (spec(token0).usdPrice / spec(token1).usdPrice) * 10 ** (spec(token1).decimals - spec(token0).decimals);
}

/** √price × 2⁹⁶ of the world's price, exact to the precision of the prices' decimals. */
function worldSqrtPriceX96(token0: TokenSymbol, token1: TokenSymbol): bigint {
  const scale = 10n ** 12n;
  const usd = (symbol: TokenSymbol) => BigInt(Math.round(spec(symbol).usdPrice * 1e6));
  const numerator = usd(token0) * 10n ** BigInt(spec(token1).decimals) * scale;
  const denominator = usd(token1) * 10n ** BigInt(spec(token0).decimals);
  return isqrt((numerator * Q96 * Q96) / denominator / scale);
}

/** The tick at or below a price, as a multiple of the pool's spacing. */
const tickAt = (price: number, spacing: number) => Math.floor(Math.log(price) / Math.log(1.0001) / spacing) * spacing;

/**
 * Uniswap's QuoterV2 on Celo (Uniswap/v3-periphery deploys.md, Uniswap/sdks sdk-core addresses.ts;
 * ../shared/reference/routing-on-celo.md): Swappa's published PairUniswapV3 calls it at this address, hard-coded.
 */
export const celoQuoterV2: Address = '0x82825d0554fA07f7FC52Ab63c961F330fdEFa8E8';

export async function deployUniswapV3(
  { deploy, call, publicClient }: Deployer,
  tokens: Record<TokenSymbol, { address: Address; decimals: number }>,
): Promise<{
  factory: Address;
  adapter: Address;
  quotingAdapter: Address;
  positionManager: Address;
  rangeMover: Address;
  poolInitCodeHash: `0x${string}`;
  world: NonNullable<DeploymentAddressBook['uniswapV3']>;
}> {
  const factory = await deploy('UniswapV3Factory', artifacts.UniswapV3Factory);
  const adapter = await deploy('UniswapV3Adapter', artifacts.UniswapV3Adapter);
  const liquidityProvider = await deploy('V3LiquidityProvider', artifacts.V3LiquidityProvider);
  const pools: NonNullable<DeploymentAddressBook['uniswapV3']>['pools'] = [];
  // The pool's init code hash proves a pool is the factory's without a chain read (as for a real factory).
  const poolInitCodeHash = keccak256(artifacts.UniswapV3Pool.bytecode);
  for (const poolSpec of uniswapV3PoolSpecs) {
    const [a, b] = [tokens[poolSpec.token0].address, tokens[poolSpec.token1].address];
    await call(factory, artifacts.UniswapV3Factory.abi, 'createPool', [a, b, poolSpec.fee]);
    const pool = getAddress(
      await publicClient.readContract({ address: factory, abi: artifacts.UniswapV3Factory.abi, functionName: 'getPool', args: [a, b, poolSpec.fee] }),
    );
    const spacing = await publicClient.readContract({
      address: factory,
      abi: artifacts.UniswapV3Factory.abi,
      functionName: 'feeAmountTickSpacing',
      args: [poolSpec.fee],
    });
    // The pool's own order: token0 is the lower address.
    const [token0, token1] = BigInt(a) < BigInt(b) ? [poolSpec.token0, poolSpec.token1] : [poolSpec.token1, poolSpec.token0];
    await call(pool, artifacts.UniswapV3Pool.abi, 'initialize', [worldSqrtPriceX96(token0, token1)]);
    if (poolSpec.observations) await call(pool, artifacts.UniswapV3Pool.abi, 'increaseObservationCardinalityNext', [poolSpec.observations]);
    // The provider pays the pool from its own balance: more than the positions take.
    for (const symbol of [token0, token1]) {
      const budget = poolSpec.positions.reduce((sum, position) => sum + position.usd, 0) / spec(symbol).usdPrice;
      const raw = BigInt(Math.ceil(budget * 2)) * 10n ** BigInt(spec(symbol).decimals);
      await call(tokens[symbol].address, artifacts.TestToken.abi, 'mint', [liquidityProvider, raw]);
    }
    const price = rawPrice(token0, token1);
    for (const position of poolSpec.positions) {
      const half = position.widthPercent / 200;
      const lower = Math.max(tickAt(price * (1 - half), spacing), Math.ceil(MIN_TICK / spacing) * spacing);
      const upper = tickAt(price * (1 + half), spacing) + spacing;
      // Liquidity L holds L·(1/√p − 1/√pb) of token0 and L·(√p − √pa) of token1, worth this much of token1 at p.
      const [sqrtP, sqrtA, sqrtB] = [Math.sqrt(price), Math.sqrt(1.0001 ** lower), Math.sqrt(1.0001 ** upper)];
      const valuePerLiquidity = (1 / sqrtP - 1 / sqrtB) * price + (sqrtP - sqrtA);
      const budgetInToken1 = (position.usd / spec(token1).usdPrice) * 10 ** spec(token1).decimals;
      const liquidity = BigInt(Math.floor(budgetInToken1 / valuePerLiquidity));
      await call(liquidityProvider, artifacts.V3LiquidityProvider.abi, 'mint', [pool, lower, upper, liquidity]);
    }
    if (!isAddressEqual(v3PoolAddress(factory, poolInitCodeHash, [a, b], poolSpec.fee), pool)) {
      throw new DeploymentError("the Uniswap V3 pool init code hash does not reproduce the factory's pools");
    }
    pools.push({ name: `${token0}/${token1} ${poolSpec.fee / 10_000}%`, address: pool, token0, token1, fee: poolSpec.fee, tickSpacing: spacing });
  }
  const quotingAdapter = await deployCeloQuoting(deploy, publicClient, factory, tokens.WETH.address);
  // Uniswap's position manager from its published build, over the factory, with the same wrapped coin as QuoterV2 (on
  // Celo, CELO itself); without a token descriptor: the NFTs' images are not the daemon's business.
  const positionManager = await deploy('NonfungiblePositionManager', artifacts.NonfungiblePositionManager, [factory, tokens.WETH.address, zeroAddress]);
  // No position mover is published: ours, as a user deploys it (`routekeeper deploy-adapter v3-range-mover`).
  const rangeMover = await deploy('V3RangeMover (ours)', solidity.V3RangeMover);
  return { factory, adapter, quotingAdapter, positionManager, rangeMover, poolInitCodeHash, world: { liquidityProvider, pools } };
}

/**
 * QuoterV2 over the devnet's factory, its code (immutables included) placed at Celo's QuoterV2 address, and Swappa's
 * PairUniswapV3, which calls it there. Returns the adapter.
 */
async function deployCeloQuoting(deploy: Deployer['deploy'], publicClient: Deployer['publicClient'], factory: Address, weth: Address): Promise<Address> {
  const quoter = await deploy('QuoterV2', artifacts.QuoterV2, [factory, weth]);
  const code = await publicClient.getCode({ address: quoter });
  if (!code) throw new DeploymentError('QuoterV2 has no code once deployed');
  await publicClient.request({ method: 'anvil_setCode', params: [celoQuoterV2, code] } as never);
  return deploy('PairUniswapV3 (Swappa)', swappa.PairUniswapV3);
}
