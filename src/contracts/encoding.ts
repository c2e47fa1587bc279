import { type Address, type Hex, encodeAbiParameters, encodePacked, getAddress, getContractAddress, keccak256, toHex } from 'viem';

/** A Uniswap V2 adapter's `extras` entry (and the Uniswap V2 farm's `data`): pool (20 bytes) ‖ fee per-mille (1 byte). */
export function encodePoolExtras(pool: Address, feePerMille: number): Hex {
  return encodePacked(['address', 'uint8'], [pool, feePerMille]);
}

/** The gauge farm's `data`: pool (20 bytes) ‖ gauge (20 bytes). */
export function encodeGaugeFarmData(pool: Address, gauge: Address): Hex {
  return encodePacked(['address', 'address'], [pool, gauge]);
}

/**
 * What the router's admin signer signs (eth_sign style) to grant a partner its fee on a quote:
 * keccak256(abi.encodePacked(uint256 partner, uint256 deadline, address tokenIn, address tokenOut)).
 */
export function partnerDigest(partner: bigint, deadline: bigint, tokenIn: Address, tokenOut: Address): Hex {
  return keccak256(encodePacked(['uint256', 'uint256', 'address', 'address'], [partner, deadline, tokenIn, tokenOut]));
}

/** The address a Uniswap V2 factory's CREATE2 gives the pair of two tokens (sorted), from its init code hash. */
export function pairAddress(factory: Address, initCodeHash: Hex, [a, b]: readonly [Address, Address]): Address {
  const [token0, token1] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
  return getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt: keccak256(encodePacked(['address', 'address'], [token0, token1])),
    bytecodeHash: initCodeHash,
  });
}

/**
 * The address a Uniswap V3 factory's CREATE2 gives the pool of two tokens at a fee (PoolAddress.computeAddress in
 * v3-periphery): salt keccak256(abi.encode(token0, token1, fee)), from the pool's init code hash.
 */
export function v3PoolAddress(factory: Address, initCodeHash: Hex, [a, b]: readonly [Address, Address], fee: number): Address {
  const [token0, token1] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
  const salt = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'uint24' }], [token0, token1, fee]));
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecodeHash: initCodeHash });
}

/**
 * A Mento rate feed's id for a pair without a stable token of its own (`USDCUSD`): as Mento derives them,
 * `address(uint160(uint256(keccak256(name))))`. Feeds of CELO against a stable are that stable's address instead.
 */
export function mentoRateFeedId(name: string): Address {
  return getAddress(`0x${keccak256(toHex(name)).slice(-40)}`);
}
