/** Every kind of pool the routing service knows (kind.ts), by id: a new venue is a module of its own and a line here. */
import type { PoolKind, PoolKindId } from './kind.ts';
import { uniswapV2 } from './uniswap-v2.ts';
import { uniswapV3 } from './uniswap-v3.ts';

export const poolKinds: Readonly<Record<PoolKindId, PoolKind>> = { 'uniswap-v2': uniswapV2, 'uniswap-v3': uniswapV3 };

/** The events of every kind's factories and pools, once each: what each block's one log request asks for. */
export const poolKindEvents = Object.values(poolKinds).flatMap((kind) => kind.events);
